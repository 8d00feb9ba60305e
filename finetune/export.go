package finetune

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/sft"
)

// Format names an export format.
type Format string

// The export formats.
const (
	// FormatLLaMAFactory writes LLaMA-Factory's sharegpt format in its
	// OpenAI-style variant (messages with role/content tags) plus the
	// dataset_info.json that registers both splits.
	FormatLLaMAFactory Format = "llamafactory"
	// FormatOpenAI writes OpenAI's chat fine-tuning JSONL: one
	// {"messages": [...]} object per line and nothing else.
	FormatOpenAI Format = "openai"
	// FormatHF writes plain JSONL with a fixed set of columns that the
	// Hugging Face datasets "json" loader reads with one schema.
	FormatHF Format = "hf"
)

// Formats lists the export formats.
var Formats = []Format{FormatLLaMAFactory, FormatOpenAI, FormatHF}

// The LLaMA-Factory dataset names written to dataset_info.json; the YAML
// files in configs/finetune refer to them.
const (
	DatasetTrain      = "parog_planner_train"
	DatasetValidation = "parog_planner_validation"
)

// File names written by Export.
const (
	ManifestFile    = "manifest.json"
	DatasetInfoFile = "dataset_info.json"
)

// ExportOptions configures Export.
type ExportOptions struct {
	// Format is the output format.
	Format Format
	// OutDir is created when missing; files in it are replaced.
	OutDir string
	// SkipInvalid drops invalid records (they are listed in the manifest)
	// instead of failing.
	SkipInvalid bool
	// AllowEvalSplits exports records from a benchmark's dev or test split,
	// or of no recorded split, for training; without it Export refuses
	// them, so evaluation data does not leak into the planner by accident.
	AllowEvalSplits bool
}

// Manifest describes an export: what went in and what came out.
type Manifest struct {
	// Format of the files.
	Format Format `json:"format"`
	// PlanVersion of the plans in the assistant messages.
	PlanVersion int `json:"plan_version"`
	// Input describes the SFT file read.
	Input InputInfo `json:"input"`
	// Splits counts records per split.
	Splits map[string]int `json:"splits"`
	// Kinds counts records per plan kind, over both splits.
	Kinds map[string]int `json:"kinds"`
	// Files lists every file written except the manifest itself.
	Files []FileInfo `json:"files"`
}

// InputInfo describes the input file of an export.
type InputInfo struct {
	// Path as given.
	Path string `json:"path"`
	// SHA256 of the whole file.
	SHA256 string `json:"sha256"`
	// Bytes is the file size.
	Bytes int64 `json:"bytes"`
	// Records is the number of valid records exported.
	Records int `json:"records"`
	// Invalid lists the records dropped (only with SkipInvalid).
	Invalid []LineError `json:"invalid"`
}

// FileInfo describes one written file.
type FileInfo struct {
	// Name relative to the output directory.
	Name string `json:"name"`
	// Split is train or validation; empty for metadata files.
	Split string `json:"split,omitempty"`
	// Records in the file (0 for metadata files).
	Records int `json:"records"`
	// SHA256 of the file.
	SHA256 string `json:"sha256"`
	// Bytes is the file size.
	Bytes int64 `json:"bytes"`
}

// ParseFormat returns the Format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("finetune: unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Export reads the SFT records in inPath and writes the train and
// validation files of opts.Format, plus manifest.json, to opts.OutDir.
func Export(ctx context.Context, inPath string, opts ExportOptions) (*Manifest, error) {
	if _, err := ParseFormat(string(opts.Format)); err != nil {
		return nil, err
	}
	f, err := os.Open(inPath)
	if err != nil {
		return nil, fmt.Errorf("finetune: export: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	counter := &countingWriter{w: h}
	res, err := ReadRecords(io.TeeReader(f, counter))
	if err != nil {
		return nil, fmt.Errorf("finetune: export: %w", err)
	}
	if len(res.Invalid) > 0 && !opts.SkipInvalid {
		return nil, invalidError(inPath, res.Invalid)
	}
	if err := checkSourceSplits(inPath, res.Records, opts.AllowEvalSplits); err != nil {
		return nil, err
	}
	split := map[string][]*sft.Record{}
	kinds := map[string]int{}
	for _, r := range res.Records {
		split[r.Split] = append(split[r.Split], r)
		for _, k := range r.Gold().Kinds() {
			kinds[string(k)]++
		}
	}
	if len(split[sft.SplitTrain]) == 0 {
		return nil, fmt.Errorf("finetune: export: %s has no %s records", inPath, sft.SplitTrain)
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("finetune: export: %w", err)
	}
	m := &Manifest{
		Format:      opts.Format,
		PlanVersion: kgqa.PlanVersion,
		Input: InputInfo{
			Path: inPath, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: counter.n,
			Records: len(res.Records), Invalid: res.Invalid,
		},
		Splits: map[string]int{sft.SplitTrain: len(split[sft.SplitTrain]), sft.SplitValidation: len(split[sft.SplitValidation])},
		Kinds:  kinds,
	}
	if m.Input.Invalid == nil {
		m.Input.Invalid = []LineError{}
	}
	for _, s := range []string{sft.SplitTrain, sft.SplitValidation} {
		fi, err := writeSplit(ctx, opts, s, split[s])
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, fi)
	}
	if opts.Format == FormatLLaMAFactory {
		fi, err := writeDatasetInfo(opts.OutDir, m.Files, len(split[sft.SplitValidation]) > 0)
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, fi)
	}
	if _, err := writeFile(opts.OutDir, ManifestFile, func(w io.Writer) error { return writeIndented(w, m) }); err != nil {
		return nil, err
	}
	return m, nil
}

// checkSourceSplits refuses records that do not come from a benchmark's
// train split, unless allowed.
func checkSourceSplits(path string, recs []*sft.Record, allow bool) error {
	if allow {
		return nil
	}
	bad := map[string]int{}
	first := map[string]string{}
	for _, r := range recs {
		if r.SourceSplit != sft.SourceTrain {
			if bad[r.SourceSplit] == 0 {
				first[r.SourceSplit] = r.ID
			}
			bad[r.SourceSplit]++
		}
	}
	if len(bad) == 0 {
		return nil
	}
	var parts []string
	for _, s := range []string{sft.SourceTest, sft.SourceDev, ""} {
		if n := bad[s]; n > 0 {
			name := s
			if s == "" {
				name = "no recorded"
			}
			parts = append(parts, fmt.Sprintf("%d from the %s split (first %s)", n, name, first[s]))
		}
	}
	for s, n := range bad {
		if s != sft.SourceTest && s != sft.SourceDev && s != "" {
			parts = append(parts, fmt.Sprintf("%d from the %q split (first %s)", n, s, first[s]))
		}
	}
	return fmt.Errorf("finetune: export: %s holds records that are not benchmark training data: %s; "+
		"train on train splits (parog sparql2plan --split train), or pass --allow-eval-splits to export them anyway",
		path, strings.Join(parts, ", "))
}

func invalidError(path string, bad []LineError) error {
	var b strings.Builder
	fmt.Fprintf(&b, "finetune: export: %s has %d invalid record(s) (use --skip-invalid to drop them)", path, len(bad))
	for i, e := range bad {
		if i == 3 {
			fmt.Fprintf(&b, "; ...")
			break
		}
		fmt.Fprintf(&b, "; %s", e.Error())
	}
	return errors.New(b.String())
}

// SplitFile returns the file name of a split in format f.
func SplitFile(f Format, split string) string {
	if f == FormatLLaMAFactory {
		return "parog_planner_" + split + ".json"
	}
	return split + ".jsonl"
}

func writeSplit(ctx context.Context, opts ExportOptions, split string, recs []*sft.Record) (FileInfo, error) {
	name := SplitFile(opts.Format, split)
	fi, err := writeFile(opts.OutDir, name, func(w io.Writer) error {
		if opts.Format == FormatLLaMAFactory {
			return writeJSONArray(ctx, w, recs, llamaFactoryItem)
		}
		conv := openAIItem
		if opts.Format == FormatHF {
			conv = hfItem
		}
		return writeJSONLines(ctx, w, recs, conv)
	})
	fi.Split, fi.Records = split, len(recs)
	return fi, err
}

// lfItem is one LLaMA-Factory sharegpt example in its role/content variant.
type lfItem struct {
	ID       string         `json:"id"`
	Messages []kgqa.Message `json:"messages"`
}

func llamaFactoryItem(r *sft.Record) any { return lfItem{ID: r.ID, Messages: r.Messages} }

type openAIExample struct {
	Messages []kgqa.Message `json:"messages"`
}

func openAIItem(r *sft.Record) any { return openAIExample{Messages: r.Messages} }

// hfExample has the same columns on every line, so the datasets json
// loader infers one schema (no nulls, kinds always a list).
type hfExample struct {
	ID           string         `json:"id"`
	Source       string         `json:"source"`
	Split        string         `json:"split"`
	Messages     []kgqa.Message `json:"messages"`
	Kinds        []string       `json:"kinds"`
	Label        string         `json:"label"`
	Rendering    string         `json:"rendering"`
	QuestionUsed string         `json:"question_used"`
}

func hfItem(r *sft.Record) any {
	kinds := make([]string, 0, 4)
	for _, k := range r.Gold().Kinds() {
		kinds = append(kinds, string(k))
	}
	return hfExample{
		ID: r.ID, Source: r.Source, Split: r.Split, Messages: r.Messages, Kinds: kinds,
		Label: r.Label, Rendering: r.Rendering, QuestionUsed: r.QuestionUsed,
	}
}

func writeJSONLines(ctx context.Context, w io.Writer, recs []*sft.Record, conv func(*sft.Record) any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, r := range recs {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := enc.Encode(conv(r)); err != nil {
			return err
		}
	}
	return nil
}

// writeJSONArray writes one array element per line, so the file diffs and
// greps like JSONL while staying one JSON document.
func writeJSONArray(ctx context.Context, w io.Writer, recs []*sft.Record, conv func(*sft.Record) any) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for i, r := range recs {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b, err := marshal(conv(r))
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep+string(b)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]\n")
	return err
}

// datasetEntry is one dataset of LLaMA-Factory's dataset_info.json.
type datasetEntry struct {
	FileName   string            `json:"file_name"`
	Formatting string            `json:"formatting"`
	Columns    map[string]string `json:"columns"`
	Tags       map[string]string `json:"tags"`
}

func writeDatasetInfo(dir string, files []FileInfo, withValidation bool) (FileInfo, error) {
	entry := func(file string) datasetEntry {
		return datasetEntry{
			FileName:   file,
			Formatting: "sharegpt",
			Columns:    map[string]string{"messages": "messages"},
			// The role/content variant of sharegpt: the system prompt is the
			// first message, so Llama-3.1's system header is kept.
			Tags: map[string]string{
				"role_tag": "role", "content_tag": "content",
				"user_tag": sft.RoleUser, "assistant_tag": sft.RoleAssistant, "system_tag": sft.RoleSystem,
			},
		}
	}
	info := map[string]datasetEntry{DatasetTrain: entry(files[0].Name)}
	if withValidation {
		info[DatasetValidation] = entry(files[1].Name)
	}
	return writeFile(dir, DatasetInfoFile, func(w io.Writer) error { return writeIndented(w, info) })
}

func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeFile writes name in dir through a temporary file renamed into
// place, and returns its size and hash.
func writeFile(dir, name string, fill func(io.Writer) error) (FileInfo, error) {
	fi := FileInfo{Name: name}
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return fi, fmt.Errorf("finetune: write %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fi, fmt.Errorf("finetune: write %s: %w", name, err)
	}
	h := sha256.New()
	cw := &countingWriter{w: h}
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, cw), 256<<10)
	if err := fill(bw); err != nil {
		tmp.Close()
		return fi, fmt.Errorf("finetune: write %s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fi, fmt.Errorf("finetune: write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fi, fmt.Errorf("finetune: write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fi, fmt.Errorf("finetune: write %s: %w", name, err)
	}
	fi.SHA256, fi.Bytes = hex.EncodeToString(h.Sum(nil)), cw.n
	return fi, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
