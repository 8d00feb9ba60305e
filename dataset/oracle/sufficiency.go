package oracle

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
)

// The ways the oracle judges whether the question can be answered before
// the plan has run to its end.
const (
	// SufficiencyStrict says "sufficient" (and answers the question from
	// evidence) only when the evidence in the prompt determines the answer:
	// a candidate set it shows for a subgoal whose result reaches the
	// answer through narrowing steps only (filter, intersect, compare,
	// superlative) equals the gold set. A gold answer among other
	// candidates is not enough: the steps left would have to remove the
	// others, and their evidence is not in the prompt.
	SufficiencyStrict = "strict"
	// SufficiencyNever never says "sufficient": every step of every plan
	// runs.
	SufficiencyNever = "never"
)

// SufficiencyModes lists the modes ParseSufficiency reads.
var SufficiencyModes = []string{SufficiencyStrict, SufficiencyNever}

// ParseSufficiency reads strict or never ("" is strict).
func ParseSufficiency(s string) (string, error) {
	switch s {
	case "", SufficiencyStrict:
		return SufficiencyStrict, nil
	case SufficiencyNever:
		return SufficiencyNever, nil
	}
	return "", fmt.Errorf("oracle: sufficiency %q: want strict or never", s)
}

// WithSufficiency sets the sufficiency mode (default strict).
func WithSufficiency(mode string) Option { return func(m *Model) { m.sufficiency = mode } }

// candidateSteps are the gold plan's steps whose result reaches the answer
// unchanged in kind, through narrowing steps only: the answer step, and
// recursively the inputs of a filter, intersect, compare or superlative
// among them (a compare's bound value excepted). A union widens and a
// count or a find changes what the set holds, so the walk stops there.
func (q *question) candidateSteps() map[string]bool {
	out := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if out[id] {
			return
		}
		out[id] = true
		s, ok := q.steps[id]
		if !ok {
			return
		}
		switch s.Op {
		case kgqa.OpFilter, kgqa.OpIntersect, kgqa.OpCompare, kgqa.OpSuperlative:
			bound, _ := s.Args.BoundRef()
			for _, n := range s.Needs {
				if n != bound {
					walk(n)
				}
			}
		}
	}
	walk(q.answer)
	return out
}

// knownSetLine is one "Answered so far" line: a subgoal id and its
// results, "; "-separated; the engine clips long lists with "...".
var knownSetLine = regexp.MustCompile(`(?m)^- ([A-Za-z][A-Za-z0-9_]*): (.*)$`)

// knownSets are the complete result sets the prompt shows, by subgoal id;
// a clipped list is left out, since it does not show every candidate.
func knownSets(user string) map[string][]term {
	_, rest, ok := strings.Cut(user, "Answered so far:")
	if !ok {
		return map[string][]term{}
	}
	rest, _, _ = strings.Cut(rest, "\nFacts:")
	out := map[string][]term{}
	for _, m := range knownSetLine.FindAllStringSubmatch(rest, -1) {
		if strings.HasSuffix(strings.TrimSpace(m[2]), "...") {
			continue
		}
		var ts []term
		for _, n := range strings.Split(m[2], "; ") {
			if n = strings.TrimSpace(n); n != "" {
				ts = append(ts, term{name: n})
			}
		}
		out[m[1]] = ts
	}
	return out
}

// factSets are the candidates the prompt's facts show for each find step
// among steps: the far ends of the facts along the step's gold path that
// start from one of its anchors (any start when it has none, as when it
// starts from an earlier result).
func (t *turn) factSets(steps map[string]bool) map[string][]term {
	facts := parseFacts(factLine, t.user)
	out := map[string][]term{}
	for id := range steps {
		s, ok := t.q.steps[id]
		if !ok || s.Op != kgqa.OpFind {
			continue
		}
		p := &picked{}
		for _, f := range facts {
			x, on := t.onPathOf(s, f)
			from := f.left
			if x == f.left {
				from = f.right
			}
			if on && (len(s.Anchors) == 0 || slices.Contains(s.Anchors, from.id)) {
				p.add(x, 0)
			}
		}
		if len(p.terms) > 0 {
			out[id] = p.terms
		}
	}
	return out
}

// equalsGold reports whether a candidate set is exactly the gold set:
// every candidate a gold answer, every gold answer a candidate (by id, or
// by name for a candidate shown by name only).
func (t *turn) equalsGold(cs []term) bool {
	if len(cs) == 0 || len(t.q.q.Answers) == 0 {
		return false
	}
	hit := make([]bool, len(t.q.q.Answers))
	for _, c := range cs {
		found := false
		for i, a := range t.q.q.Answers {
			if (c.id != "" && c.id == a.ID) || (c.id == "" && score.NamesMatch(c.name, goldName(a))) {
				hit[i], found = true, true
			}
		}
		if !found {
			return false
		}
	}
	for _, h := range hit {
		if !h {
			return false
		}
	}
	return true
}

func goldName(a dataset.Answer) string {
	if a.Name != "" {
		return a.Name
	}
	return a.ID
}

// determined reports whether the evidence in the prompt determines the
// answer: some candidate set it shows (the answered subgoals' results,
// and current, the current subgoal's candidates in a folded refine call)
// belongs to a candidate step and equals the gold set.
func (t *turn) determined(current []term) bool {
	steps := t.q.candidateSteps()
	sets := t.factSets(steps)
	for id, cs := range knownSets(t.user) {
		sets[id] = cs
	}
	if t.step.ID != "" && len(current) > 0 {
		sets[t.step.ID] = current
	}
	for id, cs := range sets {
		if steps[id] && t.equalsGold(cs) {
			return true
		}
	}
	return false
}

// judgeSufficiency is the sufficiency verdict and answer of a prompt:
// the gold answer as the prompt shows it, when the evidence determines it.
// Under SufficiencyNever the verdict is always no.
func (t *turn) judgeSufficiency(current []term) (ok bool, refs, names []string) {
	if t.m.sufficiency == SufficiencyNever || !t.determined(current) {
		return false, []string{}, nil
	}
	refs, names = t.inHand()
	if len(names) == 0 {
		for _, c := range current {
			refs, names = append(refs, c.ref()), append(names, c.label())
		}
	}
	return len(names) > 0, refs, names
}
