package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func resultsOf(lines ...Result) *ResultFile { return &ResultFile{Results: lines} }

func res(id string, seed *int, hit bool) Result {
	return Result{ID: id, Seed: seed, Hit: hit, Question: "q " + id}
}

func TestMerge(t *testing.T) {
	one, two := 1, 2
	qs := []dataset.Question{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	for _, tc := range []struct {
		name    string
		inputs  []MergeInput
		opts    MergeOptions
		wantIDs []string
		wantErr string
		gaps    int
	}{
		{
			name: "disjoint shards in input order",
			inputs: []MergeInput{
				{Path: "s2", File: resultsOf(res("c", nil, true), res("a", nil, false))},
				{Path: "s1", File: resultsOf(res("b", nil, true))},
			},
			opts:    MergeOptions{Expected: qs},
			wantIDs: []string{"a", "b", "c"},
		},
		{
			name: "without expected questions: sorted by id and seed",
			inputs: []MergeInput{
				{Path: "s1", File: resultsOf(res("b", &two, true), res("b", &one, true))},
				{Path: "s2", File: resultsOf(res("a", &one, true))},
			},
			wantIDs: []string{"a", "b", "b"},
		},
		{
			name: "last line of a key wins within a file",
			inputs: []MergeInput{
				{Path: "s1", File: resultsOf(Result{ID: "a", Error: "llm down"}, res("a", nil, true), res("b", nil, true), res("c", nil, true))},
			},
			opts:    MergeOptions{Expected: qs},
			wantIDs: []string{"a", "b", "c"},
		},
		{
			name: "overlap fails",
			inputs: []MergeInput{
				{Path: "s1", File: resultsOf(res("a", nil, true))},
				{Path: "s2", File: resultsOf(res("a", nil, true))},
			},
			wantErr: "a: s1, s2",
		},
		{
			name:    "gap fails",
			inputs:  []MergeInput{{Path: "s1", File: resultsOf(res("a", nil, true), res("c", nil, true))}},
			opts:    MergeOptions{Expected: qs},
			wantErr: "1 expected (question, seed) pairs in no file, first b",
		},
		{
			name:    "gap allowed",
			inputs:  []MergeInput{{Path: "s1", File: resultsOf(res("a", nil, true), res("c", nil, true))}},
			opts:    MergeOptions{Expected: qs, AllowGaps: true},
			wantIDs: []string{"a", "c"},
			gaps:    1,
		},
		{
			name:    "a missing seed is a gap",
			inputs:  []MergeInput{{Path: "s1", File: resultsOf(res("a", &one, true), res("b", &one, true), res("b", &two, true), res("c", &one, true), res("c", &two, true))}},
			opts:    MergeOptions{Expected: qs, Seeds: []int{1, 2}},
			wantErr: "first a (seed 2)",
		},
		{
			name:    "unexpected question fails",
			inputs:  []MergeInput{{Path: "s1", File: resultsOf(res("a", nil, true), res("b", nil, true), res("c", nil, true), res("z", nil, true))}},
			opts:    MergeOptions{Expected: qs},
			wantErr: "not in the expected questions, first z",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rep, err := Merge(tc.inputs, tc.opts)
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrMerge)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			var ids []string
			for _, r := range out {
				ids = append(ids, r.ID)
			}
			assert.Equal(t, tc.wantIDs, ids)
			assert.Len(t, rep.Gaps, tc.gaps)
			assert.Equal(t, len(out), rep.Results)
		})
	}
}

func TestWriteResultsFileReadsBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("old content\n"), 0o644))
	one := 1
	in := []Result{res("a", &one, true), res("b", nil, false)}
	require.NoError(t, WriteResultsFile(path, in))
	rf, err := ReadResults(path)
	require.NoError(t, err)
	assert.Empty(t, rf.Torn)
	require.Len(t, rf.Results, 2)
	assert.Equal(t, "a", rf.Results[0].ID)
	assert.Equal(t, 1, *rf.Results[0].Seed)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")

	err = WriteResultsFile(filepath.Join(dir, "no-such-dir", "m.jsonl"), in)
	assert.Error(t, err)
}
