// Package engine answers a question over a knowledge graph with PARoG's
// Plan-Answer-Refine loop and records how (kgqa.Answer and its trace).
//
// Engine.Ask runs one question through the method's steps, each in the
// file named after it:
//
//   - planning.go: the plan of subgoals (the planner, or a few-shot
//     prompt), its lint against the question, and the follow-up check of
//     a chat's last message; linking.go links the topic entities beside it.
//   - ordering.go: the cost ordering of a conjunction's branches (the
//     most selective first, the others checked against it).
//   - scheduler.go and determinism.go: the subgoals run in waves, each
//     once the subgoals it needs are done, the same way on every run;
//     backtrack.go: before the run concludes, a find whose result left a
//     later step with nothing is reopened once with its next-best
//     entities, and the steps after it run again.
//   - find.go: the loop of one find subgoal, the paper's: a tentative
//     answer (tentative.go) beside the first exploration round (package
//     explore), then refinement (refinement.go, with the engine's recheck
//     of a verdict and the retry of a subgoal's anchors), round after
//     round until the evidence is aligned or the budgets run out.
//   - sufficiency.go: whether the question is answered early, and the
//     final answer when the answer subgoal's result is empty.
//   - setops.go, constrain.go and compare.go: the operators, intersect,
//     union and count by exact set logic, compare, superlative and filter
//     on the values the KG holds.
//   - compose.go: after the run, the question's tentative answer
//     composed from its subgoals' tentative answers; certificate.go: the
//     SPARQL query that reproduces the answer.
//
// The state of one question is a run, of one subgoal a subgoalRun, of
// one subgoal's walk over the KG an explore.Explorer; each keeps its
// methods (what it records, what it lets a step read) in its own file,
// run.go, subgoal.go and explore/explorer.go. The steps are functions
// of the state they work on: find(ctx, sg), planRetrieval(r, ...).
package engine
