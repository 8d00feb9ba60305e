package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstRelationsPrompt is the user message of the first relations call
// made for the subgoal whose text contains sub.
func firstRelationsPrompt(t *testing.T, h *harness, sub string) string {
	t.Helper()
	for _, r := range h.server.Requests() {
		if r.Stage != "relations" {
			continue
		}
		if u := r.Chat.Messages[1].Content; strings.Contains(u, "Current subgoal: "+sub) {
			return u
		}
	}
	t.Fatalf("no relations prompt for %q", sub)
	return ""
}

func TestRelationsPromptOffersEveryRelationGroupedByType(t *testing.T) {
	// "border" shares no word with location.location.adjoin_s: a lexical
	// cut to the best-matching relations could drop it. Every relation of
	// France is offered, one line per type and direction, and the anchor
	// is named once, not on every line.
	q := demoQuestion(t, "demo-01")
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.ElementsMatch(t, []string{"Germany"}, termNames(ans.Entities))

	user := firstRelationsPrompt(t, h, "Find the countries that border France.")
	rels, err := h.g.Relations(context.Background(), "m.0f8l9c")
	require.NoError(t, err)
	require.NotEmpty(t, rels)
	_, list, ok := strings.Cut(user, "Offered relations")
	require.True(t, ok)
	out, in, _ := strings.Cut(list, "in (the anchor is the object):")
	for _, r := range rels {
		typ, name := explore.RelationType(r.ID)
		section := out
		if r.Dir == kgqa.In {
			section = in
		}
		var line string
		for _, l := range strings.Split(section, "\n") {
			if strings.HasPrefix(l, "- "+typ+": ") {
				line = l
			}
		}
		require.NotEmpty(t, line, "%s (%s) has a line of its type", r.ID, r.Dir)
		assert.Contains(t, strings.Split(strings.TrimPrefix(line, "- "+typ+": "), ", "), name, "%s (%s) is offered", r.ID, r.Dir)
	}
	assert.Contains(t, out, "- location.location: ")
	assert.Equal(t, 1, strings.Count(user, "France [m.0f8l9c]"), "the anchor is listed once")
	rd := ans.Subgoals[0].Rounds[0]
	assert.Equal(t, len(rels), rd.Offered)
	assert.Nil(t, rd.Cut)
}

func TestRelationCutIsRankedAndRecorded(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	// The cut is of the offer the relation choice shows: clear_top_facts
	// off, or the clear top would be fetched with no prompt to show it.
	budgets := clearTopBudgets(false)
	budgets.MaxOfferedRelations = 2
	cases := []struct {
		name     string
		embedder bool
		method   string
	}{
		{"word overlap without an embeddings endpoint", false, "lexical"},
		{"embeddings when configured", true, "embeddings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, kgqatest.NewDemoModel(), budgets, llmtest.WithEmbedder(llmtest.HashedWords))
			if c.embedder {
				em, err := llm.NewEmbeddings(config.Embeddings{BaseURL: h.server.URL(), Model: "scripted-embed"})
				require.NoError(t, err)
				h.engine = mustNew(t, h.g, h.client, budgets, WithEmbedder(em))
			}
			ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
			rels, err := h.g.Relations(context.Background(), "m.01785m")
			require.NoError(t, err)
			require.Greater(t, len(rels), 2, "the anchor has more relations than the bound")

			rd := ans.Subgoals[0].Rounds[0]
			require.NotNil(t, rd.Cut)
			assert.Equal(t, c.method, rd.Cut.Method)
			assert.Equal(t, len(rels), rd.Cut.Available)
			assert.Equal(t, 2, rd.Cut.Shown)
			assert.Equal(t, len(rels)-2, rd.Cut.DroppedCount)
			assert.Len(t, rd.Cut.Dropped, min(len(rels)-2, explore.MaxDroppedShown))
			assert.Equal(t, 2, rd.Offered)
			for _, d := range rd.Cut.Dropped {
				assert.NotContains(t, rd.OfferedRelations, d, "a dropped relation is not offered")
			}
			// The relation that shares the subgoal's word "contains" ranks
			// first either way; the anchor's name ("Airport") counts for
			// nothing.
			assert.Equal(t, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.In}, rd.OfferedRelations[0])
			user := firstRelationsPrompt(t, h, "Find the country that contains Weeze Airport.")
			_, list, _ := strings.Cut(user, "Offered relations")
			names := 0
			for _, l := range strings.Split(list, "\n") {
				if typ, ns, ok := strings.Cut(strings.TrimPrefix(l, "- "), ": "); ok && strings.HasPrefix(l, "- ") && typ != "" {
					names += len(strings.Split(ns, ", "))
				}
			}
			assert.Equal(t, 2, names, "the prompt shows the relations kept")
			if c.embedder {
				assert.Positive(t, h.server.EmbeddingRequests())
				assert.Positive(t, ans.Usage.LLM.ByRole[llm.Embeddings].Calls, "the embeddings call is accounted")
			} else {
				assert.Zero(t, h.server.EmbeddingRequests())
			}
		})
	}
}

func TestRelationReplyIsResolvedAgainstTheOffered(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	want := kgqa.Relation{ID: "location.location.containedby", Dir: kgqa.Out}
	cases := map[string]map[string]string{
		"upper-case full id":      {"id": "LOCATION.LOCATION.CONTAINEDBY", "dir": "out"},
		"name alone":              {"id": "containedby", "dir": "out"},
		"name in another case":    {"id": "ContainedBy", "dir": "OUT"},
		"padded full id and name": {"id": " location.location.containedby ", "dir": " out"},
	}
	for name, reply := range cases {
		t.Run(name, func(t *testing.T) {
			m := kgqatest.NewDemoModel()
			// Of the model's relation reply: clear_top_facts off, or the
			// first find's clear top would be fetched without one.
			h := newHarness(t, m, clearTopBudgets(false))
			var once atomic.Bool
			h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
				if llmtest.StageOf(req) == "relations" && once.CompareAndSwap(false, true) {
					return llmtest.JSON(map[string]any{"relations": []map[string]string{reply}})
				}
				return m.Handle(req)
			})
			ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
			rd := ans.Subgoals[0].Rounds[0]
			assert.Equal(t, []kgqa.Relation{want}, rd.Chosen)
			assert.Empty(t, rd.Rejected)
			assert.Equal(t, []string{"Berlin"}, termNames(ans.Entities))
			for _, r := range h.server.Requests() {
				assert.LessOrEqual(t, len(r.Chat.Messages), 2, "no repair turn")
			}
		})
	}
}

func TestUnofferedRelationsTwiceFallBackLexically(t *testing.T) {
	// A model that names only relations that were not offered, repair
	// included, does not fail the question: the offered relations sharing
	// words with the subgoal are explored, and the trace says so.
	// Of the model's relation reply: clear_top_facts off, or the first
	// find's clear top would be fetched without one.
	q := demoQuestion(t, "demo-06")
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, clearTopBudgets(false))
	h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if llmtest.StageOf(req) == "relations" {
			return llmtest.JSON(map[string]any{"relations": []map[string]string{{"id": "people.person.favorite_color", "dir": "out"}}})
		}
		return m.Handle(req)
	})
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	rd := ans.Subgoals[0].Rounds[0]
	assert.Equal(t, "lexical_fallback", rd.ChosenBy)
	assert.Contains(t, rd.Fallback, "no offered relation in shape")
	require.NotEmpty(t, rd.Chosen)
	for _, r := range rd.Chosen {
		assert.Contains(t, rd.OfferedRelations, r)
		assert.NotEqual(t, "aviation.airport.iata", r.ID, "the anchor's name (an airport) says nothing of the relation")
	}
	require.Len(t, rd.Rejected, 2, "the reply and its repair")
	assert.Equal(t, "not_offered", rd.Rejected[0].Reason)
	assert.Equal(t, []string{"Berlin"}, termNames(ans.Entities))
}
