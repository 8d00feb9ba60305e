package engine

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
)

// groundLimit is how many entities a name is looked up for before the
// homonyms are ranked: more than are kept, so that the ranking, not the
// store's order, decides which stay.
const groundLimit = 20

// maxHomonyms is how many equally named candidates a name keeps.
const maxHomonyms = 3

var (
	parenRE   = regexp.MustCompile(`\s*\([^)]*\)\s*`)
	articleRE = regexp.MustCompile(`(?i)^(the|a|an)\s+`)
)

// nameForms are the forms a name the model gave is looked up by, in
// order: as given, without a parenthesis ("Swiss franc (CHF)"), without a
// leading article ("the Swiss franc"), and before its first comma
// ("Berlin, Germany").
func nameForms(name string) []string {
	name = strings.TrimSpace(name)
	forms := []string{name}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(forms, s) {
			forms = append(forms, s)
		}
	}
	noParen := parenRE.ReplaceAllString(name, " ")
	bare := articleRE.ReplaceAllString(strings.TrimSpace(noParen), "")
	add(noParen)
	add(bare)
	if head, _, ok := strings.Cut(bare, ","); ok {
		add(head)
	}
	return forms
}

// ground finds the entities a name denotes: the first of its forms that
// the KG's search finds, its candidates ranked (see rank) by the type the
// answer is expected to have (w; an unknown type ranks by popularity
// alone), at most maxHomonyms, with the scores of all of them. None when
// no form is found.
func (e *Engine) ground(ctx context.Context, name string, w answerType) ([]kgqa.Entity, []kgqa.CandidateScore, error) {
	for _, form := range nameForms(name) {
		cands, err := e.g.Search(ctx, form, groundLimit)
		if err != nil {
			return nil, nil, err
		}
		if len(cands) == 0 {
			continue
		}
		return e.rank(ctx, form, cands, maxHomonyms, w)
	}
	return nil, nil, nil
}

// rankByPopularity is rank with no expected type: the homonyms most
// popular first.
func (e *Engine) rankByPopularity(ctx context.Context, form string, cands []kgqa.Entity, keep int) ([]kgqa.Entity, error) {
	kept, _, err := e.rank(ctx, form, cands, keep, answerType{})
	return kept, err
}

// rank keeps the candidates named exactly form (ignoring case and
// accents) when there are any and scores each: 1 when its types meet the
// expected type w, 1 more when it holds a relation the subgoal traversed,
// plus its number of relations (in and out, its popularity) as a share of
// the largest number plus one. It keeps the
// best keep, best first (the search's order breaks ties), and of those
// only the compatible ones when any is. The scores of all candidates
// considered are returned, best first. A single candidate with no
// expected type is kept unscored, without a query.
func (e *Engine) rank(ctx context.Context, form string, cands []kgqa.Entity, keep int, w answerType) ([]kgqa.Entity, []kgqa.CandidateScore, error) {
	want := naming.Fold(form)
	exact := slices.DeleteFunc(slices.Clone(cands), func(c kgqa.Entity) bool { return naming.Fold(c.Name) != want })
	if len(exact) > 0 {
		cands = exact
	}
	if len(cands) == 1 && !w.known() {
		return cands, nil, nil
	}
	scores := make([]kgqa.CandidateScore, len(cands))
	holds := make([]bool, len(cands))
	top := 0
	for i, c := range cands {
		rels, err := e.g.Relations(ctx, c.ID)
		if err != nil {
			return nil, nil, err
		}
		scores[i] = kgqa.CandidateScore{ID: c.ID, Name: c.Name, Degree: len(rels)}
		if w.known() {
			var ok bool
			ok, holds[i], scores[i].Matched = e.compatible(w, rels)
			scores[i].Compatible = &ok
		}
		top = max(top, len(rels))
	}
	for i := range scores {
		s := &scores[i]
		s.Score = float64(s.Degree) / float64(top+1)
		if s.Compatible != nil && *s.Compatible {
			s.Score++
		}
		if holds[i] {
			s.Score++
		}
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b].Score, scores[a].Score) })
	var kept []kgqa.Entity
	ranked := make([]kgqa.CandidateScore, len(order))
	for k, i := range order {
		ranked[k] = scores[i]
		fit := scores[i].Compatible == nil || *scores[i].Compatible || scores[order[0]].Compatible == nil || !*scores[order[0]].Compatible
		if len(kept) < keep && fit {
			kept = append(kept, cands[i])
		}
	}
	return kept, ranked, nil
}
