package sparql2plan

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/sft"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func teacherClient(t *testing.T, srv *llmtest.Server) *llm.Client {
	t.Helper()
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model, ep.Timeout, ep.Retries = srv.URL(), "teacher", 2*time.Second, 1
	c, err := llm.New(config.LLM{Teacher: ep}, llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)
	return c
}

var louSeal = Pair{
	ID: "q1", Source: string(dataset.CWQ), Label: "composition",
	Text:          "Lou Seal is the mascot for the team that last won the World Series when?",
	TopicEntities: []Entity{{ID: "m.03_dwn", Name: "Lou Seal"}},
	SPARQL:        "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x WHERE { ?c ns:sports.sports_team.team_mascot ns:m.03_dwn . ?c ns:sports.sports_team.championships ?x . ?x ns:time.event.start_date ?d . } ORDER BY DESC(xsd:datetime(?d)) LIMIT 1",
}

// fluent answers the subgoal stage with good subgoals and the back-
// translation stage with a question.
func fluent(req openai.ChatCompletionRequest) llmtest.Reply {
	if strings.Contains(req.Messages[0].Content, "write the single natural question") {
		return llmtest.JSON(map[string]string{"question": "When did the team whose mascot is Lou Seal last win the World Series?"})
	}
	return llmtest.JSON(map[string][]string{"subgoals": {
		"Identify the team whose mascot is Lou Seal.",
		"List the championships won by #1.",
		"Pick the most recent of #2 by start date.",
	}})
}

func TestTeacherRender(t *testing.T) {
	c, err := Convert(louSeal)
	require.NoError(t, err)
	t.Run("success", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.WithHandler(fluent))
		tr, err := (&Teacher{Chat: teacherClient(t, srv)}).Render(context.Background(), louSeal, c)
		require.NoError(t, err)
		assert.Len(t, tr.Subgoals, 3)
		assert.Equal(t, "When did the team whose mascot is Lou Seal last win the World Series?", tr.BackTranslated)
		assert.InDelta(t, TokenF1(tr.BackTranslated, louSeal.Text), tr.Consistency, 1e-9)
		assert.Greater(t, tr.Consistency, 0.5)
		rec, err := NewRecord(louSeal, c, tr, true, 5)
		require.NoError(t, err)
		assert.Equal(t, sft.RenderingTeacher, rec.Rendering)
		assert.Equal(t, sft.QuestionBackTranslate, rec.QuestionUsed)
		assert.Equal(t, tr.BackTranslated, rec.Messages[1].Content)
		assert.Equal(t, "List the championships won by #1.", rec.Plan.Subgoals[1].Text)
		assert.Equal(t, c.Plan.Subgoals[1].Text, rec.Renderings.Template[1], "template rendering kept")
		assert.Equal(t, 2, srv.Count())

		// The line written is one the fine-tuning reader accepts, with the
		// teacher's plan as its gold.
		line, err := json.Marshal(rec)
		require.NoError(t, err)
		var read sft.Record
		require.NoError(t, json.Unmarshal(line, &read))
		require.NoError(t, read.Validate())
		assert.Equal(t, rec.Plan.Subgoals, read.Gold().Subgoals)
		assert.Equal(t, tr.BackTranslated, read.UserText())
		assert.Equal(t, louSeal.Text, read.Question)
	})
	t.Run("lost reference is repaired once then fails", func(t *testing.T) {
		bad := llmtest.JSON(map[string][]string{"subgoals": {"Find the team.", "Find its championships.", "Pick the latest."}})
		srv := llmtest.New(t, llmtest.WithReplies(bad, bad))
		tr, err := (&Teacher{Chat: teacherClient(t, srv)}).Render(context.Background(), louSeal, c)
		require.Error(t, err)
		assert.ErrorIs(t, err, kgqa.ErrSchema)
		assert.Contains(t, tr.Err, "lost its reference #1")
		rec, err := NewRecord(louSeal, c, tr, true, 5)
		require.NoError(t, err)
		assert.Equal(t, sft.RenderingTemplate, rec.Rendering, "template kept on teacher failure")
		assert.Equal(t, sft.QuestionOriginal, rec.QuestionUsed)
		assert.Nil(t, rec.Consistency)
	})
	t.Run("wrong count", func(t *testing.T) {
		two := llmtest.JSON(map[string][]string{"subgoals": {"a #1", "b"}})
		srv := llmtest.New(t, llmtest.WithReplies(two, two))
		_, err := (&Teacher{Chat: teacherClient(t, srv)}).Render(context.Background(), louSeal, c)
		assert.ErrorContains(t, err, "got 2 subgoals, want 3")
	})
	t.Run("server errors", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.ServerError() }))
		_, err := (&Teacher{Chat: teacherClient(t, srv)}).Render(context.Background(), louSeal, c)
		assert.ErrorIs(t, err, kgqa.ErrModelUnavailable)
	})
	t.Run("429 then success", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.WithReplies(llmtest.RetryAfterSeconds(0)), llmtest.WithHandler(fluent))
		tr, err := (&Teacher{Chat: teacherClient(t, srv)}).Render(context.Background(), louSeal, c)
		require.NoError(t, err)
		assert.Len(t, tr.Subgoals, 3)
	})
}

// TestRunTeacherResume runs teacher mode concurrently over a small file,
// cuts the output as a crash would, and resumes without redoing records.
func TestRunTeacherResume(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	var qs []map[string]any
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		qs = append(qs, map[string]any{"ID": id, "question": "Lou Seal question " + id, "sparql": louSeal.SPARQL,
			"compositionality_type": "composition", "topic_entity": map[string]string{"m.03_dwn": "Lou Seal"}})
	}
	qs = append(qs, map[string]any{"ID": "bad", "question": 5})
	b, err := json.Marshal(qs)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, b, 0o600))
	var calls atomic.Int64
	srv := llmtest.New(t, llmtest.WithHandler(func(r openai.ChatCompletionRequest) llmtest.Reply { calls.Add(1); return fluent(r) }))
	out := filepath.Join(dir, "out.jsonl")
	pairs, skipped := loadPairs(t, in, dataset.CWQ)
	opts := RunOptions{Questions: questions(pairs, len(skipped)), Out: out, Teacher: &Teacher{Chat: teacherClient(t, srv)}, Concurrency: 3, Rate: 1000}
	st, err := Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, 6, st.Written)
	assert.Equal(t, 1, st.Malformed)
	assert.Equal(t, "bad", skipped[0].ID)
	assert.Equal(t, int64(12), calls.Load())
	assert.LessOrEqual(t, srv.MaxInFlight(), 3)

	// Simulate a crash: keep 4 full lines and half of the fifth.
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	require.NoError(t, os.WriteFile(out, []byte(strings.Join(lines[:4], "")+lines[4][:10]), 0o600))

	st, err = Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, 4, st.Resumed)
	assert.Equal(t, 2, st.Written)
	assert.Equal(t, 6, st.Records, "the report covers the whole output file")
	rendered := 0
	for _, n := range st.Renderings {
		rendered += n
	}
	assert.Equal(t, 6, rendered, "renderings of the whole output file")
	assert.Equal(t, int64(16), calls.Load(), "only the two unfinished questions call the teacher")
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r sft.Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "every line is a record")
		assert.False(t, ids[r.ID], "duplicate %s", r.ID)
		ids[r.ID] = true
		assert.Equal(t, sft.RenderingTeacher, r.Rendering)
	}
	assert.Len(t, ids, 6)
}

func TestRunRefusesForeignOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	require.NoError(t, os.WriteFile(out, []byte("not json\n"), 0o600))
	pairs, _ := loadPairs(t, realdata.Excerpt(t, grailQAFile), dataset.GrailQA)
	_, err := Run(context.Background(), RunOptions{Questions: questions(pairs, 0), Out: out})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 1 is not a record")
	assert.False(t, errors.Is(err, os.ErrNotExist))
}

func TestSplitAndDedup(t *testing.T) {
	assert.Equal(t, SplitOf("WebQTest-832", 5), SplitOf("WebQTest-832", 5), "deterministic")
	val := 0
	for i := range 2000 {
		if SplitOf(strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune(i)), 10) == sft.SplitValidation {
			val++
		}
	}
	assert.InDelta(t, 200, val, 80)
	d := NewDeduper()
	assert.False(t, d.Seen("a", "What is X?"))
	assert.True(t, d.Seen("b", "what is  x"), "same question text")
	assert.True(t, d.Seen("a", "other"), "same id")
	assert.InDelta(t, 1.0, TokenF1("a b c", "c b a"), 1e-9)
	assert.InDelta(t, 0.0, TokenF1("a", ""), 1e-9)
	assert.InDelta(t, 0.5, TokenF1("a b", "a c"), 1e-9)
}

// TestRunBackTranslationFilter trains on back-translated questions and
// drops the renderings whose back-translation strays from the question.
func TestRunBackTranslationFilter(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	qs := []map[string]any{
		{"ID": "close", "question": louSeal.Text, "sparql": louSeal.SPARQL, "compositionality_type": "composition",
			"topic_entity": map[string]string{"m.03_dwn": "Lou Seal"}},
		{"ID": "far", "question": "Lou Seal question far", "sparql": louSeal.SPARQL, "compositionality_type": "composition",
			"topic_entity": map[string]string{"m.03_dwn": "Lou Seal"}},
	}
	b, err := json.Marshal(qs)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, b, 0o600))
	srv := llmtest.New(t, llmtest.WithHandler(fluent))
	out := filepath.Join(dir, "out.jsonl")
	pairs, _ := loadPairs(t, in, dataset.CWQ)
	st, err := Run(context.Background(), RunOptions{Questions: questions(pairs, 0), Out: out, SourceSplit: sft.SourceTrain,
		Teacher: &Teacher{Chat: teacherClient(t, srv)}, UseBackTranslation: true, MinConsistency: 0.5})
	require.NoError(t, err)
	assert.Equal(t, 1, st.Written)
	assert.Equal(t, 1, st.Inconsistent)
	assert.Contains(t, st.Markdown(), "dropped for back-translation consistency below 0.50: 1")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var r sft.Record
	require.NoError(t, json.Unmarshal(data, &r))
	assert.Equal(t, "close", r.ID)
	assert.Equal(t, sft.SourceTrain, r.SourceSplit)
	assert.Equal(t, sft.QuestionBackTranslate, r.QuestionUsed)
	assert.Equal(t, "When did the team whose mascot is Lou Seal last win the World Series?", r.Messages[1].Content)
}
