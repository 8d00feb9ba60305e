package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset"
)

// MergeInput is one shard's results file.
type MergeInput struct {
	// Path names the file in messages.
	Path string
	// File is what ReadResults found in it.
	File *ResultFile
}

// MergeOptions says what a complete merge must hold.
type MergeOptions struct {
	// Expected are the questions the shards were cut from (after --limit);
	// nil skips the gap check.
	Expected []dataset.Question
	// Seeds are the seeds of the run (nil: one run without a seed).
	Seeds []int
	// AllowGaps keeps going when expected keys are missing.
	AllowGaps bool
}

// MergeReport says what Merge found.
type MergeReport struct {
	// Files is the number of input files.
	Files int
	// Results is the number of merged lines.
	Results int
	// Overlaps are keys present in more than one file, as "id (seed s):
	// a.jsonl, b.jsonl".
	Overlaps []string
	// Gaps are expected keys present in no file, as "id (seed s)".
	Gaps []string
	// Unexpected are keys in the files that are not expected (only with
	// MergeOptions.Expected).
	Unexpected []string
	// Torn names files whose last line was cut short (that question is a
	// gap unless another file has it).
	Torn []string
}

// Merge joins shard result files into one set of results. Within a file
// the last line per key wins, as everywhere else. A key found in two files
// is an overlap: the shards were not cut from the same input, limit and
// shard count, and the merge fails rather than pick one. With
// opts.Expected, every (question, seed) pair must be present once, unless
// opts.AllowGaps. The merged results come in the order of opts.Expected
// (seed by seed within a question), else sorted by id and seed, so the
// same shards always merge to the same bytes.
func Merge(inputs []MergeInput, opts MergeOptions) ([]Result, MergeReport, error) {
	rep := MergeReport{Files: len(inputs)}
	owner := map[Key]string{}
	merged := map[Key]Result{}
	for _, in := range inputs {
		if in.File.Torn != "" {
			rep.Torn = append(rep.Torn, in.Path+": "+in.File.Torn)
		}
		for _, r := range in.File.Latest() {
			k := r.KeyOf()
			if first, dup := owner[k]; dup {
				rep.Overlaps = append(rep.Overlaps, fmt.Sprintf("%s: %s, %s", keyLabel(k), first, in.Path))
				continue
			}
			owner[k] = in.Path
			merged[k] = r
		}
	}
	out := orderMerged(merged, opts, &rep)
	rep.Results = len(out)
	if len(rep.Overlaps) > 0 {
		return nil, rep, fmt.Errorf("%w: %d (question, seed) pairs in more than one file, first %s", ErrMerge, len(rep.Overlaps), rep.Overlaps[0])
	}
	if len(rep.Unexpected) > 0 {
		return nil, rep, fmt.Errorf("%w: %d (question, seed) pairs not in the expected questions, first %s (same --input, --limit and --seeds as the shards?)", ErrMerge, len(rep.Unexpected), rep.Unexpected[0])
	}
	if len(rep.Gaps) > 0 && !opts.AllowGaps {
		return nil, rep, fmt.Errorf("%w: %d expected (question, seed) pairs in no file, first %s (a shard missing or unfinished? rerun it to resume, or --allow-gaps)", ErrMerge, len(rep.Gaps), rep.Gaps[0])
	}
	return out, rep, nil
}

// ErrMerge is wrapped by errors about shards that do not merge cleanly.
var ErrMerge = errors.New("dataset: merge")

func orderMerged(merged map[Key]Result, opts MergeOptions, rep *MergeReport) []Result {
	out := make([]Result, 0, len(merged))
	if opts.Expected == nil {
		keys := make([]Key, 0, len(merged))
		for k := range merged {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].ID != keys[j].ID {
				return keys[i].ID < keys[j].ID
			}
			return keys[i].Seed < keys[j].Seed
		})
		for _, k := range keys {
			out = append(out, merged[k])
		}
		return out
	}
	seeds := opts.Seeds
	seen := map[Key]bool{}
	for _, q := range opts.Expected {
		for _, k := range questionKeys(q.ID, seeds) {
			if seen[k] {
				continue // a repeated id in the input: counted once
			}
			seen[k] = true
			r, ok := merged[k]
			if !ok {
				rep.Gaps = append(rep.Gaps, keyLabel(k))
				continue
			}
			out = append(out, r)
		}
	}
	for k := range merged {
		if !seen[k] {
			rep.Unexpected = append(rep.Unexpected, keyLabel(k))
		}
	}
	sort.Strings(rep.Unexpected)
	return out
}

func questionKeys(id string, seeds []int) []Key {
	if len(seeds) == 0 {
		return []Key{MakeKey(id, nil)}
	}
	keys := make([]Key, len(seeds))
	for i := range seeds {
		keys[i] = MakeKey(id, &seeds[i])
	}
	return keys
}

func keyLabel(k Key) string {
	if k.Seed == NoSeed {
		return k.ID
	}
	return fmt.Sprintf("%s (seed %d)", k.ID, k.Seed)
}

// WriteResultsFile writes rs to path as a results file, atomically: a
// temporary file beside it is synced and renamed over path, so a crash
// leaves either the old file or the whole new one.
func WriteResultsFile(path string, rs []Result) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("dataset: results: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	for i := range rs {
		line, err := json.Marshal(&rs[i]) // the bytes ResultWriter writes
		if err != nil {
			return fmt.Errorf("dataset: results: encode %s: %w", rs[i].ID, err)
		}
		bw.Write(append(line, '\n'))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dataset: results: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("dataset: results: sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("dataset: results: close %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("dataset: results: %w", err)
	}
	return nil
}

// Summary is a one-line account of a merge for the CLI.
func (r MergeReport) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "merged %d results from %d files", r.Results, r.Files)
	if n := len(r.Gaps); n > 0 {
		fmt.Fprintf(&b, "; %d gaps", n)
	}
	if n := len(r.Torn); n > 0 {
		fmt.Fprintf(&b, "; %d files had a torn last line", n)
	}
	return b.String()
}
