package sparql2plan

import "github.com/parog/parog-go/kgqa"

// PaperKinds are the question types of the paper's SFT distribution, in
// report order; every plan has exactly one of them as its primary type.
var PaperKinds = []kgqa.Kind{kgqa.KindComposition, kgqa.KindConjunction, kgqa.KindSuperlative, kgqa.KindComparative, kgqa.KindLinear}

// PrimaryKind gives a plan the one question type the paper counts, so a
// distribution over plans compares like with like with PaperShares (five
// types, each question once, shares summing to 100%).
//
// The type is read from the operation that produces the answer, the last
// thing the question asks for:
//   - a count is typed by the set it counts (the paper has no count type;
//     "how many films did X direct" is a linear question that counts);
//   - a superlative is superlative, a compare comparative;
//   - an intersect, or a filter by a stated value, is conjunction;
//   - a find (or a union of finds) is linear when it ends a single relation
//     chain: every subgoal before it is a find needing only the one before,
//     back to a find from the topic entity (one entity, or one set of them),
//     whatever the number of hops; a hop through a mediator node, with its
//     qualifiers, is one fact of that chain;
//   - a find is composition when the chain starts from the answer of a
//     sub-question that is not itself a chain: an intersection, a filtered
//     set, a comparison or a superlative whose result is followed further
//     ("the capital of the country with the largest population in Europe").
//
// So a multi-hop chain ("the championships of the team whose mascot is Lou
// Seal") is linear here although Plan.Kinds lists composition for it (a find
// that starts from an earlier find), and ComplexWebQuestions labels it
// composition (its question was built by replacing a topic entity with a
// description). The report cross-tabulates dataset labels against this
// type so the difference stays visible.
func PrimaryKind(p *kgqa.Plan) kgqa.Kind {
	byID := make(map[string]kgqa.Subgoal, len(p.Subgoals))
	for _, s := range p.Subgoals {
		byID[s.ID] = s
	}
	s, ok := byID[p.AnswerID()]
	for ok && s.Op == kgqa.OpCount && len(s.Needs) == 1 {
		s, ok = byID[s.Needs[0]]
	}
	if !ok {
		return kgqa.KindLinear
	}
	switch s.Op {
	case kgqa.OpSuperlative:
		return kgqa.KindSuperlative
	case kgqa.OpCompare:
		return kgqa.KindComparative
	case kgqa.OpIntersect, kgqa.OpFilter:
		return kgqa.KindConjunction
	}
	if isChain(byID, s, len(p.Subgoals)) {
		return kgqa.KindLinear
	}
	return kgqa.KindComposition
}

// isChain reports whether s is a find (or a union of finds) reached from
// the topic entity by finds alone, each needing only the one before. depth
// bounds the walk (plans are acyclic once validated; this guards the rest).
func isChain(byID map[string]kgqa.Subgoal, s kgqa.Subgoal, depth int) bool {
	if depth < 0 {
		return false
	}
	switch s.Op {
	case kgqa.OpFind:
		switch len(s.Needs) {
		case 0:
			return true
		case 1:
			n, ok := byID[s.Needs[0]]
			return ok && isChain(byID, n, depth-1)
		}
	case kgqa.OpUnion:
		for _, id := range s.Needs {
			n, ok := byID[id]
			if !ok || !isChain(byID, n, depth-1) {
				return false
			}
		}
		return len(s.Needs) > 0
	}
	return false
}
