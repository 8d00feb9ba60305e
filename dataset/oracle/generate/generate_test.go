package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgdata/densify"
	"github.com/parog/parog-go/sparql2plan"
)

// world is a small dense world built by densify from its test excerpt of
// the real slice and schema, loaded into the embedded store once.
var world struct {
	once   sync.Once
	g      kg.Graph
	ranges map[string]string
	err    error
}

func openWorld(t *testing.T) (kg.Graph, map[string]string) {
	t.Helper()
	world.once.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			world.err = err
			return
		}
		ctx := context.Background()
		rep, err := densify.Build(ctx, "../../../kgqa/kgdata/densify/testdata/slice.nt", "../../../kgqa/kgdata/densify/testdata/schema", dir,
			densify.Options{Seed: 3, TargetTriples: 40_000})
		if err != nil {
			world.err = err
			return
		}
		s, err := densify.LoadSchema("../../../kgqa/kgdata/densify/testdata/schema")
		if err != nil {
			world.err = err
			return
		}
		world.ranges = map[string]string{}
		for id, p := range s.Props {
			world.ranges[id] = p.Range
		}
		world.g, world.err = kg.Open(ctx, config.KG{Backend: "embedded", Dialect: "freebase", Files: rep.Shards, Language: "en"}, "", adapters.Open)
	})
	require.NoError(t, world.err)
	return world.g, world.ranges
}

type run struct {
	qs  []Question
	rep *Report
}

// runs holds the generations made so far, so that tests share them.
var runs = map[[2]uint64]run{}

func generate(t *testing.T, seed uint64, perShape int) ([]Question, *Report) {
	t.Helper()
	k := [2]uint64{seed, uint64(perShape)}
	if r, ok := runs[k]; ok {
		return r.qs, r.rep
	}
	qs, rep := generateFresh(t, seed, perShape)
	runs[k] = run{qs, rep}
	return qs, rep
}

func generateFresh(t *testing.T, seed uint64, perShape int) ([]Question, *Report) {
	t.Helper()
	g, ranges := openWorld(t)
	qs, rep, err := Generate(context.Background(), g, Options{PerShape: perShape, Seed: seed, Ranges: ranges})
	require.NoError(t, err)
	return qs, rep
}

// TestEveryShapeIsMade: the small world yields questions of every shape.
func TestEveryShapeIsMade(t *testing.T) {
	qs, rep := generate(t, 1, 8)
	for _, sh := range Shapes {
		assert.Equal(t, 8, rep.Made[sh], "shape %s (%d tries)", sh, rep.Tried[sh])
	}
	for _, q := range qs {
		t.Logf("%-11s %s -> %v", q.Shape, q.Text, q.Answers)
	}
}

// TestGoldQueriesReturnTheirAnswers runs every question's gold query again,
// as the loaders read it from the written file, and compares the result
// with its answers.
func TestGoldQueriesReturnTheirAnswers(t *testing.T) {
	qs, _ := generate(t, 1, 8)
	g, _ := openWorld(t)
	for _, f := range []dataset.Format{dataset.CWQ, dataset.GrailQA} {
		var buf bytes.Buffer
		require.NoError(t, Write(&buf, f, qs))
		loaded := loadAll(t, buf.Bytes(), f)
		require.Len(t, loaded, len(qs), "format %s", f)
		for i, lq := range loaded {
			norm, _ := sparql2plan.Normalize(lq.SPARQL)
			res, err := g.Select(context.Background(), norm)
			require.NoError(t, err, lq.SPARQL)
			var got []string
			for _, row := range res.Rows {
				got = append(got, termKey(row[res.Vars[0]]))
			}
			var want []string
			for _, a := range lq.Answers {
				want = append(want, answerKey(a))
			}
			slices.Sort(got)
			slices.Sort(want)
			assert.Equal(t, want, slices.Compact(got), "%s %s: %s", f, qs[i].ID, lq.Text)
			assert.NotEmpty(t, want)
			assert.LessOrEqual(t, len(want), 10)
			assert.NotEmpty(t, lq.TopicEntities, qs[i].ID)
		}
	}
}

func termKey(t kgqa.Term) string {
	if t.ID != "" {
		return t.ID
	}
	return t.Name
}

func answerKey(a dataset.Answer) string {
	if a.ID != "" {
		return a.ID
	}
	return a.Name
}

func loadAll(t *testing.T, b []byte, f dataset.Format) []dataset.Question {
	t.Helper()
	var out []dataset.Question
	err := dataset.DecodeRecords(context.Background(), bytes.NewReader(b), f, func(q dataset.Question, _ json.RawMessage) error {
		out = append(out, q)
		return nil
	}, func(s dataset.Skipped) { t.Errorf("skipped: %v", s) })
	require.NoError(t, err)
	return out
}

// TestShapesAreWhatTheyClaim parses each gold query with sparql2plan and
// checks the plan's operations.
func TestShapesAreWhatTheyClaim(t *testing.T) {
	qs, _ := generate(t, 2, 6)
	for _, q := range qs {
		c, err := sparql2plan.ConvertQuery(q.SPARQL, nil)
		require.NoError(t, err, q.SPARQL)
		ops := map[kgqa.Op]int{}
		for _, s := range c.Steps {
			ops[s.Op]++
		}
		primary := sparql2plan.PrimaryKind(c.Plan)
		switch q.Shape {
		case Conjunction:
			assert.Equal(t, kgqa.KindConjunction, primary, q.SPARQL)
		case Composition:
			assert.Equal(t, kgqa.KindComposition, primary, q.SPARQL)
			assert.True(t, crossesMediator(c.Steps), "a find through a mediator: %s", q.SPARQL)
		case Comparative:
			assert.Equal(t, 1, ops[kgqa.OpCompare], q.SPARQL)
		case Superlative:
			assert.Equal(t, 1, ops[kgqa.OpSuperlative], q.SPARQL)
		case Count:
			assert.Equal(t, 1, ops[kgqa.OpCount], q.SPARQL)
		case Time:
			assert.True(t, timeQualified(c.Steps), "a find with a time qualifier: %s", q.SPARQL)
		case Text:
			assert.Equal(t, kgqa.KindConjunction, primary, q.SPARQL)
			assert.True(t, textFiltered(c.Plan), "a filter on a text value: %s", q.SPARQL)
		}
	}
}

func crossesMediator(steps []sparql2plan.Step) bool {
	for _, s := range steps {
		if s.Op == kgqa.OpFind && len(s.Needs) > 0 && len(s.Path) == 2 {
			return true
		}
	}
	return false
}

func timeQualified(steps []sparql2plan.Step) bool {
	for _, s := range steps {
		for _, q := range s.Qualifiers {
			if q.Cmp != "" && q.Value != "" {
				return true
			}
		}
	}
	return false
}

// textFiltered reports whether a plan filters by a text value, compared
// as the gold query's str() does.
func textFiltered(p *kgqa.Plan) bool {
	for _, sg := range p.Subgoals {
		if sg.Op == kgqa.OpFilter && sg.Args != nil && sg.Args.Type == kgqa.TypeText && sg.Args.Value != "" {
			return true
		}
	}
	return false
}

// TestTextShapeLeavesTheOthers: the text shape draws apart, so a seed
// makes the same questions of every other shape with it as without it.
func TestTextShapeLeavesTheOthers(t *testing.T) {
	all, _ := generate(t, 1, 8)
	g, ranges := openWorld(t)
	without, _, err := Generate(context.Background(), g, Options{Shapes: Shapes[:len(Shapes)-1], PerShape: 8, Seed: 1, Ranges: ranges})
	require.NoError(t, err)
	var others []Question
	texts := 0
	for _, q := range all {
		if q.Shape == Text {
			texts++
			continue
		}
		others = append(others, q)
	}
	assert.Equal(t, 8, texts)
	assert.Equal(t, without, others)
}

// TestTextQuestionsVerify: each text question's gold query converts to a
// plan that compiles back to the same algebra and, on the world, returns
// the same answers (what parog sparql2plan --verify checks).
func TestTextQuestionsVerify(t *testing.T) {
	qs, _ := generate(t, 1, 8)
	g, _ := openWorld(t)
	var pairs []sparql2plan.Pair
	for _, q := range qs {
		if q.Shape == Text {
			pairs = append(pairs, sparql2plan.Pair{ID: q.ID, Text: q.Text, SPARQL: q.SPARQL, Source: "cwq"})
		}
	}
	require.NotEmpty(t, pairs)
	st, err := sparql2plan.Verify(context.Background(), sparql2plan.VerifyOptions{Questions: pairs, Format: "cwq",
		Exec: func(ctx context.Context, query string) (map[string]bool, error) {
			res, err := g.Select(ctx, query)
			if err != nil {
				return nil, err
			}
			out := map[string]bool{}
			for _, row := range res.Rows {
				out[termKey(row[res.Vars[0]])] = true
			}
			return out, nil
		}})
	require.NoError(t, err)
	assert.Equal(t, len(pairs), st.SameAlgebra, "%v", st.AlgebraCauses)
	assert.Equal(t, len(pairs), st.SameNonEmpty, "%v", st.AnswerCauses)
}

var dottedID = regexp.MustCompile(`\b[a-z0-9_]+\.[a-z0-9_]+\.[a-z0-9_]+\b`)

// TestTextHasNoRelationIDs: no question names a relation by its id, nor
// writes an id's underscores.
func TestTextHasNoRelationIDs(t *testing.T) {
	qs, _ := generate(t, 1, 8)
	for _, q := range qs {
		assert.False(t, dottedID.MatchString(q.Text), q.Text)
		for _, r := range q.Relations {
			assert.NotContains(t, q.Text, r)
		}
		assert.NotContains(t, q.Text, "_", q.Text)
		assert.True(t, strings.HasSuffix(q.Text, "?"), q.Text)
	}
}

// TestDeterministicBySeed: the same seed gives the same file; another seed
// another one.
func TestDeterministicBySeed(t *testing.T) {
	write := func(qs []Question) string {
		var buf bytes.Buffer
		require.NoError(t, Write(&buf, dataset.CWQ, qs))
		return buf.String()
	}
	a, _ := generate(t, 1, 8)
	again, _ := generateFresh(t, 1, 8)
	other, _ := generate(t, 2, 6)
	assert.Equal(t, write(a), write(again))
	assert.NotEqual(t, write(a[:6]), write(other[:6]))
}

func TestParseShapes(t *testing.T) {
	s, err := ParseShapes("count, superlative,count")
	require.NoError(t, err)
	assert.Equal(t, []Shape{Count, Superlative}, s)
	s, err = ParseShapes("")
	require.NoError(t, err)
	assert.Equal(t, Shapes, s)
	s, err = ParseShapes("text,time")
	require.NoError(t, err)
	assert.Equal(t, []Shape{Text, Time}, s)
	_, err = ParseShapes("conjunction,linear")
	assert.ErrorContains(t, err, `unknown shape "linear"`)
}

var tempDirs []string

func osMkdirTemp() (string, error) {
	d, err := os.MkdirTemp("", "generate-world-")
	if err == nil {
		tempDirs = append(tempDirs, d)
	}
	return d, err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if world.g != nil {
		_ = world.g.Close()
	}
	for _, d := range tempDirs {
		_ = os.RemoveAll(d)
	}
	os.Exit(code)
}
