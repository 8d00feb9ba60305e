package refine

import (
	"context"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The facts of the dense-world question "What was the sponsor in the
// sponsoring organization of Coming of age in 2001?" (gen-time-29): the
// 2001 sponsor is Voupirkgin (F1); Shearhouck (F2) sponsored another year.
var sponsorFacts = []kgqa.Fact{
	{Head: kgqa.Term{ID: "m.01j1n2", Name: "Coming of age"}, Path: []string{"film.film_festival.sponsoring_organization"}, Dir: kgqa.Out,
		Tail: kgqa.Term{ID: "m.dzp75n_1", Name: "Voupirkgin"}},
	{Head: kgqa.Term{ID: "m.01j1n2", Name: "Coming of age"}, Path: []string{"film.film_festival.sponsoring_organization"}, Dir: kgqa.Out,
		Tail: kgqa.Term{ID: "m.dzp75n_3", Name: "Shearhouck"}},
}

func verdictReply(entity string, used ...int) llmtest.Reply {
	return llmtest.JSON(map[string]any{"reason": "scripted", "aligned": true, "answer": entity, "entities": []string{entity}, "used_facts": used})
}

func newRefiner(t *testing.T, replies ...llmtest.Reply) (*Refiner, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t, llmtest.WithReplies(replies...))
	cfg := config.Default().LLM
	cfg.Reasoner.BaseURL, cfg.Reasoner.Model, cfg.Reasoner.Timeout = srv.URL(), "scripted", 10*time.Second
	c, err := llm.New(cfg, llm.WithBackoff(time.Millisecond, 10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return New(c, kg.Freebase(kg.DialectOptions{})), srv
}

func refineSponsor(t *testing.T, r *Refiner) kgqa.Verdict {
	t.Helper()
	v, err := r.Refine(context.Background(), Input{Subgoal: "Find the sponsor of Coming of age in 2001.", Tentative: "I do not know.", Facts: sponsorFacts})
	require.NoError(t, err)
	return v
}

// An answer that does not rest on the fact it cites (Shearhouck, citing
// F1, which names Voupirkgin) is sent back once; the reconciled reply is
// taken.
func TestRefineAnswerMustRestOnItsFacts(t *testing.T) {
	r, srv := newRefiner(t, verdictReply("m.dzp75n_3", 1), verdictReply("m.dzp75n_1", 1))
	v := refineSponsor(t, r)
	require.Len(t, v.Entities, 1)
	assert.Equal(t, "m.dzp75n_1", v.Entities[0].ID)
	assert.Equal(t, 2, srv.Count(), "one repair turn")
	assert.Contains(t, llmtest.LastUser(srv.Requests()[1].Chat), "m.dzp75n_3 is in none of the facts listed in used_facts")
}

// The check asks once: a model that answers the same after the repair
// turn is taken at its word, and the question goes on.
func TestRefineInconsistentTwiceIsTaken(t *testing.T) {
	r, srv := newRefiner(t, verdictReply("m.dzp75n_3", 1), verdictReply("m.dzp75n_3", 1))
	v := refineSponsor(t, r)
	require.Len(t, v.Entities, 1)
	assert.Equal(t, "m.dzp75n_3", v.Entities[0].ID)
	assert.Equal(t, 2, srv.Count())
}

// A consistent reply costs no extra call.
func TestRefineConsistentReplyOneCall(t *testing.T) {
	r, srv := newRefiner(t, verdictReply("m.dzp75n_3", 2))
	v := refineSponsor(t, r)
	require.Len(t, v.Entities, 1)
	assert.Equal(t, "m.dzp75n_3", v.Entities[0].ID)
	assert.Equal(t, 1, srv.Count())
}
