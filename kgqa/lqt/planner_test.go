package lqt

import (
	"context"
	"math"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/prompts"
)

// scripted is a model that lists fixed atomic queries per question and
// relates pairs from a table keyed by the two queries as shown.
type scripted struct {
	atoms map[string][]Atom
	// rel maps "A|B" (queries as shown) to a reply.
	rel map[string]relationReply

	// reject lists merges the model turns down, as "parent|child"
	// (queries as shown).
	reject map[string]bool

	mu     sync.Mutex
	pairs  []string // pairs asked, as "A|B"
	merges []string // merges judged, as "parent|child|partial tree|subtree"
}

var (
	questionRE = regexp.MustCompile(`(?m)^Question: (.*)$`)
	queryRE    = regexp.MustCompile(`(?m)^Query ([AB]): (.*)$`)
	mergeRE    = regexp.MustCompile(`(?m)^(?:Partial tree|Parent query|Child query|Child subtree): (.*)$`)
)

// firstUser is the task; a repair turn only follows it.
func firstUser(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			return m.Content
		}
	}
	return ""
}

func (s *scripted) handle(req openai.ChatCompletionRequest) llmtest.Reply {
	user := firstUser(req)
	q := questionRE.FindStringSubmatch(user)
	if q == nil {
		return llmtest.Error(http.StatusBadRequest, "no question")
	}
	switch llmtest.StageOf(req) {
	case prompts.LQTAtoms:
		return llmtest.JSON(map[string]any{"reason": "scripted", "queries": s.atoms[q[1]]})
	case prompts.LQTRelation:
		m := queryRE.FindAllStringSubmatch(user, -1)
		key := m[0][2] + "|" + m[1][2]
		s.mu.Lock()
		s.pairs = append(s.pairs, key)
		s.mu.Unlock()
		if r, ok := s.rel[key]; ok {
			return llmtest.JSON(r)
		}
		if r, ok := s.rel[m[1][2]+"|"+m[0][2]]; ok { // the table's pair the other way round
			switch r.Parent {
			case "A":
				r.Parent = "B"
			case "B":
				r.Parent = "A"
			}
			return llmtest.JSON(r)
		}
		return llmtest.JSON(relationReply{Reason: "scripted", Relation: "unrelated"})
	case prompts.LQTMerge:
		m := mergeRE.FindAllStringSubmatch(user, -1)
		tree, parent, child, sub := m[0][1], m[1][1], m[2][1], m[3][1]
		s.mu.Lock()
		s.merges = append(s.merges, parent+"|"+child+"|"+tree+"|"+sub)
		s.mu.Unlock()
		return llmtest.JSON(map[string]any{"reason": "scripted", "merge": !s.reject[parent+"|"+child]})
	}
	return llmtest.Error(http.StatusBadRequest, "unexpected stage "+llmtest.StageOf(req))
}

func client(t *testing.T, h llmtest.Handler) (*llm.Client, *llmtest.Server) {
	t.Helper()
	s := llmtest.New(t, llmtest.WithHandler(h))
	cfg := config.Default().LLM
	cfg.Reasoner.BaseURL, cfg.Reasoner.Model, cfg.Reasoner.Timeout = s.URL(), "scripted", 10*time.Second
	c, err := llm.New(cfg, llm.WithBackoff(time.Millisecond, 10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, s
}

const airport = "What country bordering France contains an airport that serves Nijmegen?"

func airportModel() *scripted {
	a := []Atom{
		{Text: "Find the countries that border France.", Op: kgqa.OpFind},
		{Text: "Find the airports that serve Nijmegen.", Op: kgqa.OpFind},
		{Text: "Find the countries that contain #2.", Op: kgqa.OpFind},
		{Text: "Which of #1 are also in #3?", Op: kgqa.OpIntersect},
	}
	texts := []string{a[0].Text, a[1].Text, a[2].Text, a[3].Text}
	shown := func(i int) string { return prompts.ExpandRefs(texts, i) }
	return &scripted{
		atoms: map[string][]Atom{airport: a},
		rel: map[string]relationReply{
			shown(0) + "|" + shown(2): {Reason: "both feed #4", Relation: "sibling"},
			shown(1) + "|" + shown(2): {Reason: "#3 uses #2", Relation: "parent_child", Parent: "B"},
			shown(0) + "|" + shown(3): {Reason: "#4 uses #1", Relation: "parent_child", Parent: "B"},
			shown(2) + "|" + shown(3): {Reason: "#4 uses #3", Relation: "parent_child", Parent: "B"},
		},
	}
}

func TestPlanBuildsTheTreeAsTheEnginesPlan(t *testing.T) {
	m := airportModel()
	c, _ := client(t, m.handle)
	p := New(c, config.LQT{})
	plan, info, err := p.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, engine.PlanSourceLQT, info.Source)
	require.NotNil(t, info.Tree)
	ti := info.Tree
	assert.Equal(t, 4, ti.Atoms)
	assert.Equal(t, 6, ti.Pairs)
	assert.Equal(t, 6, ti.PairCalls, "a cold cache asks every pair")
	assert.Equal(t, map[string]int{"unrelated": 2, "sibling": 1, "parent_child": 3}, ti.Labels)
	assert.Equal(t, "dp", ti.Method)
	assert.Equal(t, "lexical", ti.Similarity)
	assert.Equal(t, 1, ti.Roots)
	assert.Equal(t, 2, ti.Depth)
	assert.Equal(t, 1, ti.Balance)
	assert.Zero(t, ti.RefNeeds, "every reference is an edge of the tree")

	assert.Equal(t, "s4", plan.Answer)
	needs := map[string][]string{}
	var order []string
	for _, s := range plan.Subgoals {
		needs[s.ID] = s.Needs
		order = append(order, s.ID)
	}
	assert.Equal(t, map[string][]string{"s1": nil, "s2": nil, "s3": {"s2"}, "s4": {"s1", "s3"}}, needs)
	assert.Equal(t, []string{"s1", "s2", "s3", "s4"}, order, "children before parents")
}

// Unrelated pairs are remembered by their spelled-out text: asking the
// same question again asks only the related pairs, and a second question
// whose queries read the same but refer to other results asks anew.
func TestUnrelatedPairsAreCachedAcrossQuestions(t *testing.T) {
	m := airportModel()
	other := "Which country that contains the airport serving Weeze borders France?"
	m.atoms[other] = []Atom{
		{Text: "Find the countries that border France.", Op: kgqa.OpFind},
		{Text: "Find the airports that serve Weeze.", Op: kgqa.OpFind},
		{Text: "Find the countries that contain #2.", Op: kgqa.OpFind},
		{Text: "Which of #1 are also in #3?", Op: kgqa.OpIntersect},
	}
	c, _ := client(t, m.handle)
	p := New(c, config.LQT{CacheSize: 100})
	_, info, err := p.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, 6, info.Tree.PairCalls)

	_, info, err = p.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, 2, info.Tree.CachedUnrelated, "the two unrelated pairs come from the cache")
	assert.Equal(t, 4, info.Tree.PairCalls)

	_, info, err = p.Plan(context.Background(), other)
	require.NoError(t, err)
	// Only "countries bordering France" shows the same in both questions,
	// and its unrelated partner there (airports serving Nijmegen) differs.
	assert.Zero(t, info.Tree.CachedUnrelated)
	assert.Equal(t, 6, info.Tree.PairCalls)
}

func TestCacheOffRemembersNothing(t *testing.T) {
	m := airportModel()
	c, _ := client(t, m.handle)
	p := New(c, config.LQT{CacheSize: 0})
	for range 2 {
		_, info, err := p.Plan(context.Background(), airport)
		require.NoError(t, err)
		assert.Equal(t, 6, info.Tree.PairCalls)
	}
}

func TestPairCacheForgetsTheOldest(t *testing.T) {
	c := NewPairCache(2)
	c.AddUnrelated("A", "B")
	c.AddUnrelated("c", "d")
	assert.True(t, c.Unrelated("b", " a "), "either order, case and spacing folded")
	c.AddUnrelated("e", "f")
	assert.False(t, c.Unrelated("a", "b"))
	assert.True(t, c.Unrelated("c", "d"))
	assert.Equal(t, 2, c.Len())
}

// Above planner.lqt.max_exact the greedy merge builds the tree, and the
// trace says so.
func TestGreedyAboveMaxExact(t *testing.T) {
	m := airportModel()
	c, _ := client(t, m.handle)
	p := New(c, config.LQT{MaxExact: 3})
	plan, info, err := p.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, "greedy", info.Tree.Method)
	assert.Contains(t, info.Tree.Note, "greedy merge")
	assert.Equal(t, "s4", plan.Answer)
	assert.Equal(t, []string{"s1", "s3"}, plan.Subgoals[len(plan.Subgoals)-1].Needs)
}

// A pair whose reply stays unreadable counts as unrelated, is not
// cached, and is counted; a bad list of atomic queries is an error.
func TestBadReplies(t *testing.T) {
	m := airportModel()
	c, _ := client(t, func(req openai.ChatCompletionRequest) llmtest.Reply {
		if llmtest.StageOf(req) == prompts.LQTRelation && strings.Contains(firstUser(req), "Query A: Find the countries that border France.\nQuery B: Find the airports") {
			return llmtest.Text("I cannot say.")
		}
		return m.handle(req)
	})
	p := New(c, config.LQT{CacheSize: 10})
	_, info, err := p.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, 1, info.Tree.FailedPairs)
	assert.Equal(t, 1, p.cache.Len(), "only the pair answered unrelated is cached")

	m.atoms["Bad?"] = []Atom{{Text: "Find #3.", Op: kgqa.OpFind}}
	_, _, err = p.Plan(context.Background(), "Bad?")
	var se *kgqa.SchemaError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "refers to #3")
}

// A query naming "#k" that the tree did not put above k still needs k.
func TestToPlanKeepsReferencesTheTreeMissed(t *testing.T) {
	atoms := []Atom{
		{Text: "Find the teams of Lou Seal.", Op: kgqa.OpFind},
		{Text: "Find the championships #1 won.", Op: kgqa.OpFind},
		{Text: "Find the years of #2.", Op: kgqa.OpFind},
	}
	plan, added, err := ToPlan(atoms, Tree{Parent: []int{-1, 0, -1}})
	require.NoError(t, err)
	assert.Equal(t, 1, added)
	assert.Equal(t, "s3", plan.Answer, "s3 now rests on s2 and s1")
	for _, s := range plan.Subgoals {
		if s.ID == "s3" {
			assert.Equal(t, []string{"s2"}, s.Needs)
		}
	}
	_, err = plan.Order()
	assert.NoError(t, err)
}

func TestLexicalSimilarity(t *testing.T) {
	m, err := Lexical{}.Matrix(context.Background(), []string{"Find the capital of #1.", "Find the capital city of #2.", "Count the players."})
	require.NoError(t, err)
	// "find", "the" and "of" are stopwords: {capital} against {capital, city}.
	assert.InDelta(t, 1/math.Sqrt2, m[0][1], 1e-9)
	assert.InDelta(t, m[0][1], m[1][0], 1e-12)
	assert.Zero(t, m[0][2])
}
