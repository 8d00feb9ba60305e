package engine

import (
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
// the KG's search finds, its candidates ranked by popularity (the number
// of relations an entity has, in and out), most popular first, at most
// maxHomonyms. None when no form is found.
func (e *Engine) ground(ctx context.Context, name string) ([]kgqa.Entity, error) {
	for _, form := range nameForms(name) {
		cands, err := e.g.Search(ctx, form, groundLimit)
		if err != nil {
			return nil, err
		}
		if len(cands) == 0 {
			continue
		}
		return e.rankByPopularity(ctx, form, cands, maxHomonyms)
	}
	return nil, nil
}

// rankByPopularity keeps the candidates named exactly form (ignoring case
// and accents) when there are any, orders them by their number of
// relations, most first (the search's order breaks ties), and keeps at
// most keep.
func (e *Engine) rankByPopularity(ctx context.Context, form string, cands []kgqa.Entity, keep int) ([]kgqa.Entity, error) {
	want := naming.Fold(form)
	exact := slices.DeleteFunc(slices.Clone(cands), func(c kgqa.Entity) bool { return naming.Fold(c.Name) != want })
	if len(exact) > 0 {
		cands = exact
	}
	if len(cands) == 1 {
		return cands, nil
	}
	degree := make(map[string]int, len(cands))
	for _, c := range cands {
		rels, err := e.g.Relations(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		degree[c.ID] = len(rels)
	}
	slices.SortStableFunc(cands, func(a, b kgqa.Entity) int { return degree[b.ID] - degree[a.ID] })
	return cands[:min(len(cands), keep)], nil
}
