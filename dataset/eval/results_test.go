package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func intp(v int) *int { return &v }

func TestResultWriterAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := CreateResultWriter(path, true)
	require.NoError(t, err)
	require.NoError(t, w.Write(&Result{ID: "a", Seed: intp(1), Question: "q?", Results: "x", Hit: true}))
	require.NoError(t, w.Write(&Result{ID: "a", Seed: intp(2), Error: "boom"}))
	require.NoError(t, w.Write(&Result{ID: "a", Seed: intp(2), Hit: true}))
	require.NoError(t, w.Close())

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 3)
	// PoG's field names are on every line.
	for _, f := range []string{`"question"`, `"results"`, `"call_num"`, `"total_token"`, `"input_token"`, `"output_token"`, `"time"`, `"id"`, `"seed"`, `"hit"`} {
		assert.Contains(t, lines[0], f)
	}
	rf, err := ReadResults(path)
	require.NoError(t, err)
	assert.Empty(t, rf.Torn)
	require.Len(t, rf.Results, 3)
	latest := rf.Latest()
	require.Len(t, latest, 2)
	assert.True(t, latest[1].Hit, "the retried line wins")
}

func TestReadResultsTornAndCorrupt(t *testing.T) {
	good := `{"question":"q","id":"a","seed":null,"results":"","call_num":1,"total_token":0,"input_token":0,"output_token":0,"time":0.1,"prediction":"","entities":[],"hit":false,"f1":0}` + "\n"
	for _, tc := range []struct {
		name    string
		content string
		n       int
		torn    bool
		err     string
	}{
		{name: "missing file reads empty", content: "-", n: 0},
		{name: "clean", content: good + good, n: 2},
		{name: "torn last line without newline", content: good + `{"question":"b","que`, n: 1, torn: true},
		{name: "torn only line", content: `{"question":"b","que`, n: 0, torn: true},
		{name: "unparsable last line with newline", content: good + "{\"question\":\"x\",\n", n: 1, torn: true},
		{name: "foreign last line without newline is an error", content: good + `[{"id":"b"}]`, err: "line 2: not a result line"},
		{name: "a JSON array file is not results", content: "[\n" + good, err: "line 1: not a result line"},
		{name: "a one-line foreign file is not results", content: `[{"id":"a"}]` + "\n", err: "line 1: not a result line"},
		{name: "corrupt middle line is an error", content: good + "garbage\n" + good, err: "line 2"},
		{name: "line without id is an error in the middle", content: `{"question":"q","results":"x"}` + "\n" + good, err: `no "id" field`},
		{name: "blank lines are harmless", content: good + "\n" + good, n: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			if tc.content != "-" {
				require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))
			}
			rf, err := ReadResults(path)
			if tc.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrBadResults)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), path)
				return
			}
			require.NoError(t, err)
			assert.Len(t, rf.Results, tc.n)
			assert.Equal(t, tc.torn, rf.Torn != "", rf.Torn)
		})
	}
}

func TestPrepareResumeTruncatesTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := CreateResultWriter(path, false)
	require.NoError(t, err)
	require.NoError(t, w.Write(&Result{ID: "a"}))
	require.NoError(t, w.Write(&Result{ID: "b", Error: "deadline", ErrorKind: "timeout"}))
	require.NoError(t, w.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"question":"cut sh`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	done, prior, note, err := PrepareResume(path, false)
	require.NoError(t, err)
	assert.Contains(t, note, "torn")
	assert.Equal(t, map[Key]bool{{ID: "a", Seed: NoSeed}: true, {ID: "b", Seed: NoSeed}: true}, done)
	assert.Len(t, prior, 2)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the torn line is truncated away")

	done, _, note, err = PrepareResume(path, true)
	require.NoError(t, err)
	assert.Equal(t, "1 earlier failed results will be run again", note)
	assert.Equal(t, map[Key]bool{{ID: "a", Seed: NoSeed}: true}, done, "retry-failed reruns b")
}

// A question that failed because the model or the KG could not be reached
// never had a fair run: resuming runs it again without --retry-failed.
func TestPrepareResumeRetriesInfrastructureFailures(t *testing.T) {
	tests := []struct {
		kind  string
		rerun bool
	}{
		{"llm_unavailable", true},
		{"llm_not_configured", true},
		{"kg_unavailable", true},
		{"canceled", true},
		{"timeout", false},
		{"invalid_plan", false},
		{"other", false},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			w, err := CreateResultWriter(path, false)
			require.NoError(t, err)
			require.NoError(t, w.Write(&Result{ID: "answered"}))
			require.NoError(t, w.Write(&Result{ID: "failed", Error: "x", ErrorKind: tt.kind}))
			require.NoError(t, w.Close())
			done, prior, _, err := PrepareResume(path, false)
			require.NoError(t, err)
			assert.True(t, done[Key{ID: "answered", Seed: NoSeed}])
			assert.Equal(t, !tt.rerun, done[Key{ID: "failed", Seed: NoSeed}])
			assert.Len(t, prior, len(done))
		})
	}
}
