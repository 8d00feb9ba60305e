package finetune

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/sft"
)

const fixture = "testdata/sft_small.jsonl"

// schemas compiles every schema in testdata under its $id, plus the Plan
// schema, and returns them by file name.
func schemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	ids := map[string]string{}
	files, err := filepath.Glob("testdata/*.schema.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err, f)
		id := doc.(map[string]any)["$id"].(string)
		require.NoError(t, c.AddResource(id, doc), f)
		ids[filepath.Base(f)] = id
	}
	plan, err := jsonschema.UnmarshalJSON(bytes.NewReader(engine.PlanSchema))
	require.NoError(t, err)
	require.NoError(t, c.AddResource("https://parog.dev/schemas/plan-v1.json", plan))
	ids["plan"] = "https://parog.dev/schemas/plan-v1.json"
	out := map[string]*jsonschema.Schema{}
	for name, id := range ids {
		s, err := c.Compile(id)
		require.NoError(t, err, name)
		out[name] = s
	}
	return out
}

func validateJSON(t *testing.T, s *jsonschema.Schema, data []byte, what string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err, what)
	require.NoError(t, s.Validate(v), what)
	return v
}

// assistantPlans checks every assistant message of a messages array
// against the Plan schema and returns how many it saw.
func assistantPlans(t *testing.T, plan *jsonschema.Schema, msgs any) int {
	t.Helper()
	n := 0
	for _, m := range msgs.([]any) {
		mm := m.(map[string]any)
		if mm["role"] == sft.RoleAssistant {
			validateJSON(t, plan, []byte(mm["content"].(string)), "assistant plan")
			n++
		}
	}
	return n
}

func lines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return out
}

func sha(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestExportFormatsPassSchemas(t *testing.T) {
	sch := schemas(t)
	// The fixture holds 4 train and 3 validation records.
	wantCount := map[string]int{sft.SplitTrain: 4, sft.SplitValidation: 3}
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			dir := t.TempDir()
			m, err := Export(context.Background(), fixture, ExportOptions{Format: f, OutDir: dir})
			require.NoError(t, err)

			mb, err := os.ReadFile(filepath.Join(dir, ManifestFile))
			require.NoError(t, err)
			validateJSON(t, sch["manifest.schema.json"], mb, "manifest")
			assert.Equal(t, sha(t, fixture), m.Input.SHA256)
			assert.Equal(t, wantCount, m.Splits)
			assert.Equal(t, 7, m.Input.Records)
			// composition: cwq-0001, cwq-0002, cwq-0006; conjunction: 0001, 0007.
			assert.Equal(t, map[string]int{"composition": 3, "conjunction": 2, "superlative": 1,
				"linear": 1, "count": 1, "comparative": 1}, m.Kinds)

			for _, fi := range m.Files {
				path := filepath.Join(dir, fi.Name)
				assert.Equal(t, sha(t, path), fi.SHA256, fi.Name)
				st, err := os.Stat(path)
				require.NoError(t, err)
				assert.Equal(t, st.Size(), fi.Bytes, fi.Name)
				if fi.Split == "" {
					continue
				}
				assert.Equal(t, wantCount[fi.Split], fi.Records, fi.Name)
				ids := checkSplitFile(t, f, sch, path)
				assert.Len(t, ids, wantCount[fi.Split])
			}
			if f == FormatLLaMAFactory {
				b, err := os.ReadFile(filepath.Join(dir, DatasetInfoFile))
				require.NoError(t, err)
				info := validateJSON(t, sch["llamafactory_dataset_info.schema.json"], b, "dataset_info").(map[string]any)
				for name, split := range map[string]string{DatasetTrain: sft.SplitTrain, DatasetValidation: sft.SplitValidation} {
					file := info[name].(map[string]any)["file_name"].(string)
					assert.FileExists(t, filepath.Join(dir, file))
					assert.Equal(t, SplitFile(f, split), file)
				}
			}
		})
	}
}

// checkSplitFile validates one split file against its format's schema and
// the Plan schema, and returns the ids (or questions) it holds.
func checkSplitFile(t *testing.T, f Format, sch map[string]*jsonschema.Schema, path string) []string {
	t.Helper()
	var ids []string
	switch f {
	case FormatLLaMAFactory:
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		arr := validateJSON(t, sch["llamafactory_split.schema.json"], b, path).([]any)
		for _, it := range arr {
			m := it.(map[string]any)
			require.Equal(t, 1, assistantPlans(t, sch["plan"], m["messages"]))
			ids = append(ids, m["id"].(string))
		}
	case FormatOpenAI, FormatHF:
		name := "openai_chat_line.schema.json"
		if f == FormatHF {
			name = "hf_line.schema.json"
		}
		for i, l := range lines(t, path) {
			m := validateJSON(t, sch[name], l, fmt.Sprintf("%s:%d", path, i+1)).(map[string]any)
			require.Equal(t, 1, assistantPlans(t, sch["plan"], m["messages"]))
			ids = append(ids, m["messages"].([]any)[1].(map[string]any)["content"].(string))
		}
	}
	return ids
}

func TestExportKeepsSplitsApartAndOrder(t *testing.T) {
	dir := t.TempDir()
	_, err := Export(context.Background(), fixture, ExportOptions{Format: FormatHF, OutDir: dir})
	require.NoError(t, err)
	var got []string
	for _, l := range lines(t, filepath.Join(dir, "validation.jsonl")) {
		var e hfExample
		require.NoError(t, json.Unmarshal(l, &e))
		assert.Equal(t, sft.SplitValidation, e.Split)
		got = append(got, e.ID)
	}
	assert.Equal(t, []string{"cwq-0005", "cwq-0006", "cwq-0007"}, got)
}

func TestExportIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ma, err := Export(context.Background(), fixture, ExportOptions{Format: FormatLLaMAFactory, OutDir: a})
	require.NoError(t, err)
	mb, err := Export(context.Background(), fixture, ExportOptions{Format: FormatLLaMAFactory, OutDir: b})
	require.NoError(t, err)
	assert.Equal(t, ma.Files, mb.Files)
}

func TestExportInvalidInput(t *testing.T) {
	good, err := os.ReadFile(fixture)
	require.NoError(t, err)
	first := strings.SplitN(string(good), "\n", 2)[0]
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(first), &rec))
	mutate := func(f func(map[string]any)) string {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(first), &r))
		r["id"] = "bad"
		f(r)
		b, err := json.Marshal(r)
		require.NoError(t, err)
		return string(b)
	}
	msgs := func(r map[string]any) []any { return r["messages"].([]any) }
	cases := []struct {
		name, line, reason string
	}{
		{"malformed json", `{"id": "x", `, "malformed JSON"},
		{"bad split", mutate(func(r map[string]any) { r["split"] = "test" }), `split "test"`},
		{"roles out of order", mutate(func(r map[string]any) {
			m := msgs(r)
			m[1], m[2] = m[2], m[1]
		}), `role "assistant", want "user"`},
		{"assistant not a plan", mutate(func(r map[string]any) {
			msgs(r)[2].(map[string]any)["content"] = `{"subgoals":[{"id":"s1","text":"x","op":"teleport"}]}`
		}), `unknown op "teleport"`},
		{"plan field differs", mutate(func(r map[string]any) {
			r["plan"] = map[string]any{"version": 1, "subgoals": []any{map[string]any{"id": "s1", "text": "other", "op": "find"}}}
		}), "plan field differs"},
		{"duplicate id", first, `duplicate id "cwq-0001"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.jsonl")
			require.NoError(t, os.WriteFile(in, []byte(string(good)+tc.line+"\n"), 0o644))
			_, err := Export(context.Background(), in, ExportOptions{Format: FormatOpenAI, OutDir: t.TempDir()})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "line 8: ")
			assert.Contains(t, err.Error(), tc.reason)

			out := t.TempDir()
			m, err := Export(context.Background(), in, ExportOptions{Format: FormatOpenAI, OutDir: out, SkipInvalid: true})
			require.NoError(t, err)
			require.Len(t, m.Input.Invalid, 1)
			assert.Equal(t, 8, m.Input.Invalid[0].Line)
			assert.Equal(t, 7, m.Input.Records)
		})
	}
}

func TestExportRejectsUnknownFormatAndEmptyTrain(t *testing.T) {
	_, err := Export(context.Background(), fixture, ExportOptions{Format: "alpaca", OutDir: t.TempDir()})
	require.ErrorContains(t, err, `unknown format "alpaca"`)

	b, err := os.ReadFile(fixture)
	require.NoError(t, err)
	var val []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(l, `"split": "validation"`) {
			val = append(val, l)
		}
	}
	require.Len(t, val, 3)
	in := filepath.Join(t.TempDir(), "val-only.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(strings.Join(val, "\n")), 0o644))
	_, err = Export(context.Background(), in, ExportOptions{Format: FormatHF, OutDir: t.TempDir()})
	require.ErrorContains(t, err, "no train records")
}

// BenchmarkExport exports a file the size of the paper's SFT set (74,802
// records, made by repeating the fixture under new ids).
func BenchmarkExport(b *testing.B) {
	src, err := os.ReadFile(fixture)
	require.NoError(b, err)
	base := strings.Split(strings.TrimSpace(string(src)), "\n")
	in := filepath.Join(b.TempDir(), "sft.jsonl")
	f, err := os.Create(in)
	require.NoError(b, err)
	w := bufio.NewWriter(f)
	const n = 74802
	for i := 0; i < n; i++ {
		l := base[i%len(base)]
		id := fmt.Sprintf(`"id": "r%06d"`, i)
		_, err := w.WriteString(strings.Replace(l, l[strings.Index(l, `"id"`):strings.Index(l, `, "source"`)], id, 1) + "\n")
		require.NoError(b, err)
	}
	require.NoError(b, w.Flush())
	require.NoError(b, f.Close())
	for _, format := range Formats {
		b.Run(string(format), func(b *testing.B) {
			for b.Loop() {
				m, err := Export(context.Background(), in, ExportOptions{Format: format, OutDir: b.TempDir()})
				require.NoError(b, err)
				require.Equal(b, n, m.Input.Records)
			}
		})
	}
}

func TestExportRefusesEvaluationSplits(t *testing.T) {
	good, err := os.ReadFile(fixture)
	require.NoError(t, err)
	first := strings.SplitN(string(good), "\n", 2)[0]
	with := func(split string) string {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(first), &r))
		r["id"] = "eval-1"
		if split == "" {
			delete(r, "source_split")
		} else {
			r["source_split"] = split
		}
		b, err := json.Marshal(r)
		require.NoError(t, err)
		return string(b)
	}
	for _, tc := range []struct{ split, want string }{
		{"test", "1 from the test split (first eval-1)"},
		{"dev", "1 from the dev split (first eval-1)"},
		{"", "1 from the no recorded split (first eval-1)"},
	} {
		t.Run("split "+tc.split, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.jsonl")
			require.NoError(t, os.WriteFile(in, []byte(string(good)+with(tc.split)+"\n"), 0o644))
			_, err := Export(context.Background(), in, ExportOptions{Format: FormatHF, OutDir: t.TempDir()})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "--allow-eval-splits")

			m, err := Export(context.Background(), in, ExportOptions{Format: FormatHF, OutDir: t.TempDir(), AllowEvalSplits: true})
			require.NoError(t, err, "forced")
			assert.Equal(t, 8, m.Input.Records)
		})
	}
}
