package engine

import (
	"regexp"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
)

// WithSchema types relations by a Freebase schema (kg.schema): the range
// of a relation followed to a subgoal's answer is the type a tentative
// answer's homonyms are ranked by, and a candidate's incoming relations
// type it too. Without a schema, types come from relation ids alone (a
// Freebase property is named inside its domain type) and from the
// relations a candidate holds.
func WithSchema(s *kg.Schema) Option { return func(e *Engine) { e.schema = s } }

// answerType is what a subgoal's answer is expected to be.
type answerType struct {
	types map[string]bool
	rels  map[kgqa.Relation]bool
	from  string
}

func (w answerType) known() bool { return len(w.types)+len(w.rels) > 0 }

// record renders w for the trace, nil when nothing is expected.
func (w answerType) record() *kgqa.ExpectedType {
	if !w.known() {
		return nil
	}
	x := &kgqa.ExpectedType{From: w.from}
	for t := range w.types {
		x.Types = append(x.Types, t)
	}
	slices.Sort(x.Types)
	for r := range w.rels {
		x.Relations = append(x.Relations, r)
	}
	slices.SortFunc(x.Relations, func(a, b kgqa.Relation) int {
		return strings.Compare(string(a.Dir)+a.ID, string(b.Dir)+b.ID)
	})
	return x
}

// genericType reports whether t says nothing about what an entity is:
// every topic is a common.topic, and the type_ontology classes span whole
// domains.
func genericType(t string) bool {
	return t == "" || t == "common.topic" || strings.HasPrefix(t, "type.") || strings.HasPrefix(t, "base.type_ontology.")
}

// flip is the other direction.
func flip(d kgqa.Direction) kgqa.Direction {
	if d == kgqa.Out {
		return kgqa.In
	}
	return kgqa.Out
}

// add records that the answer is reached over rel, whose direction seen
// from the answer is dir (Out: the answer is rel's subject, so of its
// domain; In: its object, so of its range).
func (w *answerType) add(s *kg.Schema, rel string, dir kgqa.Direction) {
	w.rels[kgqa.Relation{ID: rel, Dir: dir}] = true
	t := s.Domain(rel)
	if dir == kgqa.In {
		t = s.Range(rel)
	}
	if !genericType(t) {
		w.types[t] = true
	}
}

// expectedType derives the type of the subgoal's answer from what its
// exploration traversed: for a find, the answer is the far end of each
// fact (the last relation of a path through a mediator); for a
// constraint, the answer is one of the members the facts start from. A
// round without facts contributes the relations it chose. When
// exploration traversed nothing, the subgoal's wh-word is a weak
// fallback.
func expectedType(sg *subgoalRun) answerType {
	w := answerType{types: map[string]bool{}, rels: map[kgqa.Relation]bool{}, from: "relations"}
	tail := sg.s.Op == kgqa.OpFind
	for _, rd := range sg.rec.Rounds {
		if rd == nil {
			continue
		}
		for _, f := range rd.Facts {
			switch {
			case !tail:
				w.add(sg.e.schema, f.Path[0], f.Dir)
			case len(f.Path) > 1:
				w.add(sg.e.schema, f.Path[len(f.Path)-1], flip(f.SecondDir()))
			default:
				w.add(sg.e.schema, f.Path[0], flip(f.Dir))
			}
		}
		if len(rd.Facts) == 0 {
			for _, r := range rd.Chosen {
				if tail {
					r.Dir = flip(r.Dir)
				}
				w.add(sg.e.schema, r.ID, r.Dir)
			}
		}
	}
	if w.known() || sg.e.g.Dialect().Name() != "freebase" {
		return w
	}
	w.from = "question_word"
	for word, t := range whTypes {
		if word.MatchString(sg.s.Text) {
			w.types[t] = true
		}
	}
	return w
}

// whTypes are the types a subgoal's opening wh-word asks for, on
// Freebase. Only an opening word asks: inside a subgoal "who" and "whose"
// are relative pronouns ("Keep those of #1 whose gender is Male" asks for
// members of #1, not for a person).
var whTypes = map[*regexp.Regexp]string{
	regexp.MustCompile(`(?i)^\s*(who|whom|whose)\b`): "people.person",
	regexp.MustCompile(`(?i)^\s*where\b`):            "location.location",
}

// typesOf returns the types a candidate's relations give it: the domain of
// each relation it is the subject of, the range of each it is the object
// of (with a schema), and their supertypes.
func (e *Engine) typesOf(rels []kgqa.Relation) map[string]bool {
	out := map[string]bool{}
	for _, r := range rels {
		t := e.schema.Domain(r.ID)
		if r.Dir == kgqa.In {
			t = e.schema.Range(r.ID)
		}
		if genericType(t) || out[t] {
			continue
		}
		for _, u := range e.schema.Supertypes(t) {
			if !genericType(u) {
				out[u] = true
			}
		}
	}
	return out
}

// compatible reports whether a candidate with relations rels meets w,
// whether it holds one of the relations the subgoal traversed itself (the
// closer fit: a type such as location.location spans many namesakes),
// and what of w it has: expected types and relations.
func (e *Engine) compatible(w answerType, rels []kgqa.Relation) (ok, holds bool, matched []string) {
	for t := range e.typesOf(rels) {
		if w.types[t] {
			matched = append(matched, t)
		}
	}
	for _, r := range rels {
		if w.rels[r] {
			holds = true
			matched = append(matched, r.ID+" ("+string(r.Dir)+")")
		}
	}
	slices.Sort(matched)
	return len(matched) > 0, holds, matched
}
