// Package kgqa is PARoG's domain: the plain data and the small contracts
// that the engine, its adapters and its users share.
//
//   - The Plan of subgoals: the one contract shared by the planner (its
//     output), sparql2plan (its SFT target) and the engine (its input),
//     with its validation.
//   - The Answer: the record of one question as the engine returns it, with
//     the trace of how it was reached (plan, subgoals, exploration rounds,
//     refinement verdicts, stop reason), its cost, and the events that
//     stream it step by step.
//   - The values a knowledge graph hands out: terms (entities and literals),
//     relations with their direction, facts, entities with their names.
//   - The accounting of model calls: the record of one call and the sums of
//     many, per role and per stage.
//
// It has no dependency outside the standard library, so that the API's Go
// client, sparql2plan and finetune carry these types without linking the
// engine (package engine), the KG's query code or the model client.
package kgqa
