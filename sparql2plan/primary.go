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
//   - a find (or a union of finds) is linear when it is a single relation
//     step from the topic entities: one hop, or one hop through a mediator
//     node with its qualifiers (the WebQSP-style one-fact question);
//   - any other find is composition: it starts from the answer of an
//     earlier sub-question, be it another find ("the championships of the
//     team whose mascot is Lou Seal"), an intersection, a filtered set, a
//     comparison or a superlative whose result is followed further.
//
// This matches ComplexWebQuestions, whose composition questions replace a
// topic entity by a description that must be resolved first; the report
// cross-tabulates dataset labels against this type so any difference stays
// visible.
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
	if isSingleStep(byID, s) {
		return kgqa.KindLinear
	}
	return kgqa.KindComposition
}

// isSingleStep reports whether s is a find from the topic entities, or a
// union of such finds.
func isSingleStep(byID map[string]kgqa.Subgoal, s kgqa.Subgoal) bool {
	switch s.Op {
	case kgqa.OpFind:
		return len(s.Needs) == 0
	case kgqa.OpUnion:
		for _, id := range s.Needs {
			n, ok := byID[id]
			if !ok || n.Op != kgqa.OpFind || len(n.Needs) != 0 {
				return false
			}
		}
		return len(s.Needs) > 0
	}
	return false
}
