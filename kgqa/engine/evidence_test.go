package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pairFacts returns n facts head -rel (dir)-> tail0..tailn-1.
func pairFacts(head, rel string, dir kgqa.Direction, n int) []kgqa.Fact {
	out := make([]kgqa.Fact, n)
	for i := range out {
		id := fmt.Sprintf("m.%s%s%02d", head[2:], rel, i)
		out[i] = kgqa.Fact{Head: kgqa.Term{ID: head, Name: head}, Path: []string{"x." + rel}, Dir: dir, Tail: kgqa.Term{ID: id, Name: id}}
	}
	return out
}

func TestPromptFactsCapsEachPair(t *testing.T) {
	d := demoGraph(t).Dialect()
	a := pairFacts("m.a", "won", kgqa.In, 27)
	b := pairFacts("m.a", "lost", kgqa.Out, 3)
	c := pairFacts("m.b", "won", kgqa.In, 5)
	all := append(append(append([]kgqa.Fact{}, a...), b...), c...)
	got := promptFacts(d, "", all, 20, 60)
	assert.Len(t, got, 28, "20 of the 27, and all of the small pairs")
	assert.Equal(t, a[:20], got[:20], "the first of each pair, in order")
	assert.Len(t, promptFacts(d, "", all, 20, 10), 10, "then the total budget")
	assert.Len(t, promptFacts(d, "", all, 0, 60), 35, "no pair budget")
}

func TestExpand(t *testing.T) {
	won := pairFacts("m.y", "won", kgqa.In, 27)
	lost := pairFacts("m.y", "lost", kgqa.In, 25)
	terms := func(fs []kgqa.Fact) []kgqa.Term {
		out := []kgqa.Term{}
		for _, f := range fs {
			out = append(out, f.Tail)
		}
		return out
	}
	all := append(append([]kgqa.Fact{}, won...), lost...)
	shown := append(append([]kgqa.Fact{}, won[:20]...), lost[:20]...)
	cases := []struct {
		name  string
		named []kgqa.Term
		want  int // result size
		added int
		rels  []string
	}{
		{"every shown neighbour of a relation: the whole relation", terms(won[:20]), 27, 7, []string{"x.won (in)"}},
		{"some of them: a choice, kept as is", terms(won[:19]), 19, 0, nil},
		{"both relations", append(terms(won[:20]), terms(lost[:20])...), 52, 12, []string{"x.won (in)", "x.lost (in)"}},
		{"nothing named", []kgqa.Term{}, 0, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, x := expand(kgqa.Result{Entities: c.named, Source: "evidence"}, all, shown)
			assert.Len(t, res.Entities, c.want)
			if c.added == 0 {
				assert.Nil(t, x)
				return
			}
			require.NotNil(t, x)
			assert.Equal(t, c.added, x.Added)
			assert.Equal(t, c.rels, x.Relations)
			assert.Equal(t, names(res.Entities), res.Text)
		})
	}
	res, x := expand(kgqa.Result{Entities: terms(won[:20])}, won[:20], won[:20])
	assert.Nil(t, x, "everything was shown")
	assert.Len(t, res.Entities, 20)
}

func TestCappedFrom(t *testing.T) {
	won := pairFacts("m.y", "won", kgqa.In, 10)
	lost := pairFacts("m.y", "lost", kgqa.In, 3)
	rd := &kgqa.Round{Facts: append(append([]kgqa.Fact{}, won...), lost...),
		Capped: []kgqa.CappedPair{{Entity: "m.y", Relation: kgqa.Relation{ID: "x.won", Dir: kgqa.In}, Limit: 10}}}
	assert.True(t, cappedFrom([]*kgqa.Round{rd}, []kgqa.Term{won[3].Tail}))
	assert.False(t, cappedFrom([]*kgqa.Round{rd}, []kgqa.Term{lost[0].Tail}), "reached by a query below its limit")
	assert.False(t, cappedFrom([]*kgqa.Round{nil, {Facts: won}}, []kgqa.Term{won[3].Tail}))
}

// A reference value is read in the kind of the values it is compared
// with: "4600" is a number against elevations and a year against dates.
func TestExactConstraintReadsReferenceInTheValuesKind(t *testing.T) {
	m := func(id string) kgqa.Term { return kgqa.Term{ID: id, Name: id} }
	lit := func(v, dt string) kgqa.Term { return kgqa.Term{Name: v, Datatype: xsd + dt} }
	fact := func(h kgqa.Term, v kgqa.Term) kgqa.Fact {
		return kgqa.Fact{Head: h, Path: []string{"x.v"}, Dir: kgqa.Out, Tail: v}
	}
	a, b := m("m.a"), m("m.b")
	cases := []struct {
		name  string
		facts []kgqa.Fact
		value string
		want  []kgqa.Term
		ok    bool
	}{
		{"elevations against 4600", []kgqa.Fact{fact(a, lit("4634", "integer")), fact(b, lit("4545", "integer"))}, "4600", []kgqa.Term{a}, true},
		{"elevations against 4,600", []kgqa.Fact{fact(a, lit("4634", "float")), fact(b, lit("4545", "float"))}, "4,600", []kgqa.Term{a}, true},
		{"dates against the year 1995", []kgqa.Fact{fact(a, lit("1991-04-17", "date")), fact(b, lit("2001-04-25", "date"))}, "1995", []kgqa.Term{b}, true},
		{"nothing of the reference's kind: the model decides", []kgqa.Fact{fact(a, lit("1991-04-17", "date"))}, "4.5", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := exactConstraint([]kgqa.Term{a, b}, c.facts, kgqa.Args{Cmp: ">", Value: c.value}, &kgqa.SetOpRecord{})
			assert.Equal(t, c.ok, ok)
			if ok {
				assert.Equal(t, c.want, got)
			}
		})
	}
}

// The ablation keeps behaving as it did: each neighbour query keeps at
// most MaxEntitiesPerRelation facts, the find result is only what the
// model named from them, nothing is added, and top-k pruning cuts it to
// Width.
func TestResultTruncationKeepsThePerRelationCap(t *testing.T) {
	q := demoQuestion(t, "demo-20")
	// The retrieval plan never cuts a counted set (count_needs_full_set):
	// the rule is overridden to measure PoG's cut.
	cfg := config.Default().Engine
	cfg.RetrievalRules = []string{"count.truncate_neighbors=true"}
	h := newHarness(t, kgqatest.NewDemoModel(), cfg)
	h.engine = mustNew(t, h.g, h.client, cfg, WithResultTruncation())
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	s1 := record(t, ans, "s1")
	require.Len(t, s1.Rounds, 1)
	assert.Len(t, s1.Rounds[0].Facts, 20)
	assert.Equal(t, []kgqa.CappedPair{{Entity: "m.0wmd1c", Relation: kgqa.Relation{ID: "sports.sports_championship_event.champion", Dir: kgqa.In}, Limit: 20}}, s1.Rounds[0].Capped)
	assert.Nil(t, s1.Expansion)
	require.NotNil(t, s1.Truncation)
	assert.Equal(t, 20, s1.Truncation.Candidates)
	assert.Len(t, s1.Result.Entities, 3)
	assert.Equal(t, []string{"3"}, termNames(ans.Entities))
}

// Mediator facts are ranked before the per-pair cap: the mediator the
// subgoal's words and year point at survives, however late the KG listed
// it, and the cap counts facts, not mediators.
func TestCapPairsRanksMediatorFactsBeforeCutting(t *testing.T) {
	d := demoGraph(t).Dialect()
	carter := kgqa.Term{ID: "m.carter", Name: "Jimmy Carter"}
	held := "government.politician.government_positions_held"
	var facts []kgqa.Fact
	add := func(med, rel string, tail kgqa.Term) {
		facts = append(facts, kgqa.Fact{Head: carter, Path: []string{held, rel}, Dir: kgqa.Out, Dir2: kgqa.Out, Mediator: med, Tail: tail})
	}
	lit := func(s string) kgqa.Term { return kgqa.Term{Name: s, Datatype: "date"} }
	// Six mediators of six edges each; the governor's term of 1971 comes
	// first, the presidency (1977-1981) last.
	for i, p := range []struct{ med, title, from, to string }{
		{"m.g1", "Governor of Georgia", "1971-01-12", "1975-01-14"},
		{"m.g2", "Georgia State Senator", "1963-01-14", "1967-01-09"},
		{"m.g3", "Board member", "1955-01-01", "1962-01-01"},
		{"m.g4", "Chairman", "1972-01-01", "1974-01-01"},
		{"m.g5", "Delegate", "1968-01-01", "1969-01-01"},
		{"m.g9", "President of the United States", "1977-01-20", "1981-01-20"},
	} {
		add(p.med, "government.government_position_held.office_position_or_title", kgqa.Term{ID: fmt.Sprintf("m.t%d", i), Name: p.title})
		add(p.med, "government.government_position_held.from", lit(p.from))
		add(p.med, "government.government_position_held.to", lit(p.to))
		add(p.med, "government.government_position_held.jurisdiction_of_office", kgqa.Term{ID: "m.us", Name: "United States"})
		add(p.med, "government.government_position_held.office_holder", carter)
		add(p.med, "government.government_position_held.basic_title", kgqa.Term{ID: fmt.Sprintf("m.b%d", i), Name: p.title})
	}
	for _, perPair := range []int{6, 9} {
		kept := promptFacts(d, "Which position did Jimmy Carter hold as president in 1981?", facts, perPair, 100)
		require.Len(t, kept, perPair, "the cap counts facts")
		var president int
		for _, f := range kept {
			if f.Mediator == "m.g9" {
				president++
			}
		}
		assert.Equal(t, 6, president, "every edge of the deciding mediator is shown (cap %d)", perPair)
		// The same facts in another order give the same choice.
		rev := slices.Clone(facts)
		slices.Reverse(rev)
		again := promptFacts(d, "Which position did Jimmy Carter hold as president in 1981?", rev, perPair, 100)
		assert.ElementsMatch(t, kept, again)
	}
}
