package kgqa

import (
	"github.com/parog/parog-go/kgqa/retrieval"
)

// StopReason says why the engine stopped working on a question.
type StopReason string

// The stop reasons.
const (
	// StopPlanComplete: every subgoal the answer depends on ran.
	StopPlanComplete StopReason = "plan_complete"
	// StopSufficient: the question was judged answerable early and the
	// remaining subgoals were skipped.
	StopSufficient StopReason = "sufficient"
	// StopDeadline: the overall deadline passed.
	StopDeadline StopReason = "deadline"
	// StopCanceled: the caller canceled.
	StopCanceled StopReason = "canceled"
	// StopError: a step failed; Answer.Error says how.
	StopError StopReason = "error"
	// StopRefused: the question was refused before planning; Rewrite
	// holds the reason tag.
	StopRefused StopReason = "refused"
)

// Answer is the engine's result for one question: the answer and the trace
// of how it was reached. It serialises to JSON with stable snake_case keys.
type Answer struct {
	// Question as asked, or as rewritten from a conversation (Rewrite).
	Question string `json:"question"`
	// Rewrite records the classification of a conversation's last message
	// and its rewrite into a standalone question; nil for a single
	// question.
	Rewrite *Rewrite `json:"rewrite,omitempty"`
	// Text is the answer in words ("" when none was reached).
	Text string `json:"answer"`
	// Entities are the answer's terms: entities (id and name) or typed
	// literals (name holds the value, datatype its type).
	Entities []Term `json:"entities"`
	// Plan that was executed (nil when planning failed).
	Plan *Plan `json:"plan,omitempty"`
	// PlanInfo says how the plan was obtained.
	PlanInfo PlanInfo `json:"plan_info"`
	// Topics are the topic entities used, with how they were obtained.
	Topics []Topic `json:"topic_entities"`
	// Mentions reports entity linking when topics were not given.
	Mentions []Mention `json:"mentions,omitempty"`
	// Subgoals holds one record per plan subgoal, in plan order.
	Subgoals []*SubgoalRecord `json:"subgoals"`
	// RetrievalPlan is the question's route (kg, direct, boundary), its
	// category tags and the reason for the route; each subgoal's parameter
	// pack is in its record (SubgoalRecord.Retrieval).
	RetrievalPlan *retrieval.Plan `json:"retrieval_plan,omitempty"`
	// Final is set when the answer came from a final-answer or
	// sufficiency call rather than the answer subgoal's result.
	Final *FinalRecord `json:"final,omitempty"`
	// AnsweredWithoutKG is true when the answer comes from the model's own
	// knowledge alone: no topic entity was linked, or exploration found no
	// fact (as PoG answers then). Evaluations count these apart.
	AnsweredWithoutKG bool `json:"answered_without_kg,omitempty"`
	// TentativeAnswer is the question's parametric answer composed from
	// the subgoals' tentative answers (see TentativeAnswer); nil when
	// there is no plan.
	TentativeAnswer *TentativeAnswer `json:"tentative_answer,omitempty"`
	// Stop says why the engine stopped.
	Stop StopReason `json:"stop_reason"`
	// Error is the error text when Stop is StopError, StopDeadline or
	// StopCanceled.
	Error string `json:"error,omitempty"`
	// Usage is the cost of the question.
	Usage Usage `json:"usage"`
	// Certificate is the SPARQL query that reproduces the answer from
	// the KG, and whether it does (nil only on answers written before
	// certificates existed).
	Certificate *Certificate `json:"certificate,omitempty"`
	// Transcript holds every model call's messages and reply and every
	// SPARQL query; nil unless prompts are traced (engine.trace_prompts).
	Transcript *Transcript `json:"transcript,omitempty"`
	// Prompts names the prompt template set that answered: "builtin", or
	// "dir:" and a digest of the templates loaded with prompts.dir.
	Prompts string `json:"prompts,omitempty"`
	// Recoveries are the judgements the engine did not take as final, in
	// the order it revisited them (empty when every judgement held).
	Recoveries []Recovery `json:"recoveries,omitempty"`
}

// RecoveryKind names what the engine revisited.
type RecoveryKind string

// The kinds of recovery.
const (
	// RecoveryBacktrack: a subgoal whose result left a later step with
	// nothing (no relation fits, no fact aligned, an empty intersect) was
	// reopened with its next-best relation or entities.
	RecoveryBacktrack RecoveryKind = "backtrack"
	// RecoveryAlignedRecheck: an "aligned" verdict was asked again because
	// its facts do not have the type the subgoal expects, or its answer is
	// the anchor itself.
	RecoveryAlignedRecheck RecoveryKind = "aligned_recheck"
	// RecoveryMisalignedRecheck: a "misaligned" verdict was asked again
	// because it rejected facts of the clear best relation for the subgoal.
	RecoveryMisalignedRecheck RecoveryKind = "misaligned_recheck"
	// RecoveryNextRelation: a relation choice yielded no fact of the
	// expected type, and the next-best offered relation was followed; or
	// a subgoal whose tentative answer named only its own starting entity
	// explored the relations it had not tried.
	RecoveryNextRelation RecoveryKind = "next_relation"
	// RecoveryPlanCheck: the plan contradicted the question's words (a
	// hop the wrong way round, a comparison's direction, a dropped
	// constraint) and was sent back to the planner, or, when the repair
	// did too, mended from the plan's own words.
	RecoveryPlanCheck RecoveryKind = "plan_check"
)

// Recovery is one revisited judgement: what was revisited, in which
// subgoal, what the engine had (From) and what it took instead (To), each
// in words (a relation, a verdict, an answer).
type Recovery struct {
	// Kind says what was revisited.
	Kind RecoveryKind `json:"kind"`
	// Subgoal is the ID of the subgoal revisited.
	Subgoal string `json:"subgoal"`
	// From is what the engine had before.
	From string `json:"from"`
	// To is what it took instead ("" when the recovery found nothing
	// better and the first judgement stood).
	To string `json:"to"`
}

// Coverage says how much of an answer came from the KG.
type Coverage string

// The coverages of a certificate.
const (
	// CoversAll: every answer came from the KG.
	CoversAll Coverage = "all"
	// CoversPartial: some of the sets the answer rests on are the
	// model's tentative answers, kept for want of evidence; the query
	// states them as given entities (a VALUES clause).
	CoversPartial Coverage = "partial"
	// CoversNone: the answer came from the model alone.
	CoversNone Coverage = "none"
)

// Certificate is the answer as a query: one SPARQL SELECT compiled from the
// executed plan (the relations followed with their directions, the
// mediators crossed, the set and constraint logic applied), which anyone
// with the KG can run. A failed verification is reported here and never
// changes the answer.
type Certificate struct {
	// SPARQL is the query, in the KG's dialect; empty when the answer
	// could not be compiled (Error says why).
	SPARQL string `json:"sparql"`
	// Verified is true when the engine ran SPARQL against the KG and its
	// result equals the answer's entities (for a count, its number).
	Verified bool `json:"verified"`
	// Covers says how much of the answer came from the KG.
	Covers Coverage `json:"covers"`
	// Rows is the number of distinct results the query returned when it
	// was run.
	Rows int `json:"rows"`
	// Error says why the query is missing, or why it was not verified
	// (it failed to run, or its result differs from the answer).
	Error string `json:"error,omitempty"`
}

// PlanInfo says how the plan was obtained.
type PlanInfo struct {
	// Source is "planner" (the planner role), "reasoner_few_shot" (no
	// planner configured: the reasoner planned from examples) or "given".
	Source string `json:"source"`
	// Note explains a fallback.
	Note string `json:"note,omitempty"`
	// Kinds are the plan's operation kinds.
	Kinds []Kind `json:"kinds,omitempty"`
	// Tree describes the logical query tree the plan came from (source
	// "lqt").
	Tree *TreeInfo `json:"tree,omitempty"`
}

// TreeInfo is how the logical-query-tree planner (planner.mode lqt) built
// a plan: its atomic queries, the pair relations it asked for or found
// cached, and the tree it chose.
type TreeInfo struct {
	// Atoms is the number of atomic queries the model listed.
	Atoms int `json:"atoms"`
	// Pairs is the number of pairs of atomic queries, n(n-1)/2.
	Pairs int `json:"pairs"`
	// PairCalls is the number of pairs asked of the model.
	PairCalls int `json:"pair_calls"`
	// CachedUnrelated is the number of pairs known unrelated from the
	// cache shared across questions, and so not asked.
	CachedUnrelated int `json:"cached_unrelated"`
	// FailedPairs is the number of pairs whose reply stayed unreadable
	// after the repair turn; they count as unrelated.
	FailedPairs int `json:"failed_pairs,omitempty"`
	// RefNeeds is the number of needs added because a query names "#k"
	// while the tree did not put k below it.
	RefNeeds int `json:"ref_needs,omitempty"`
	// Labels counts the pair relations by label (unrelated, sibling,
	// parent_child), cached ones included.
	Labels map[string]int `json:"labels"`
	// Method is "dp" (the dynamic programme over subsets), "dp+greedy"
	// (the greedy merge's tree beat the programme's) or "greedy" (more
	// atomic queries than planner.lqt.max_exact).
	Method string `json:"method"`
	// Note explains a fallback: to the greedy merge, or to lexical
	// similarity when the embeddings endpoint failed.
	Note string `json:"note,omitempty"`
	// Similarity is "lexical" or "embeddings": where Sim came from.
	Similarity string `json:"similarity"`
	// Cost is the chosen tree's cost, -(|V| + |E| - Depth - Balance +
	// alpha*Sim), with its parts.
	Cost float64 `json:"cost"`
	// Depth, Balance and Sim are the parts of Cost.
	Depth   int     `json:"depth"`
	Balance int     `json:"balance"`
	Sim     float64 `json:"sim"`
	// Roots is the number of trees: 1 unless some atomic queries relate
	// to no other; the answer is the root of the largest tree.
	Roots int `json:"roots"`
	// MergeCalls is the number of merges judged by the model with the
	// partial tree as context (planner.lqt.context_merge), and
	// MergeRejected how many it rejected.
	MergeCalls    int `json:"merge_calls,omitempty"`
	MergeRejected int `json:"merge_rejected,omitempty"`
	// PlanMS is the wall time of building the tree (model calls excluded).
	PlanMS float64 `json:"plan_ms"`
}

// Topic is a topic entity the plan starts from.
type Topic struct {
	// ID is the entity id.
	ID string `json:"id"`
	// Name is the entity's name in the KG.
	Name string `json:"name"`
	// Source is "request" or "linked".
	Source string `json:"source"`
	// Mention is the question text it was linked from.
	Mention string `json:"mention,omitempty"`
}

// Mention is the linking outcome of one entity mention.
type Mention struct {
	// Text is the mention as extracted from the question.
	Text string `json:"text"`
	// Status is "resolved", "ambiguous" (several candidates, all kept as
	// topics) or "unresolved" (no entity has that name).
	Status string `json:"status"`
	// Candidates are the entities found by name.
	Candidates []Entity `json:"candidates,omitempty"`
	// Expected, on a grounding, is the type the subgoal's answer is
	// expected to have, which ranked the candidates.
	Expected *ExpectedType `json:"expected,omitempty"`
	// Scores, on a grounding, score every homonym considered, best first:
	// the kept Candidates lead.
	Scores []CandidateScore `json:"scores,omitempty"`
}

// ExpectedType is what a subgoal's answer is expected to be, derived from
// the relations its exploration traversed.
type ExpectedType struct {
	// Types are the KG types expected (the range of a relation followed
	// to the answer, the domain of one followed back from it), sorted.
	Types []string `json:"types,omitempty"`
	// Relations are relations an answer holds, seen from the answer: a
	// candidate that has one of them is of the relation's kind whatever
	// the schema says.
	Relations []Relation `json:"relations,omitempty"`
	// From is "relations" (the subgoal's facts and chosen relations) or
	// "question_word" (the subgoal's wh-word, a weak fallback when
	// exploration found nothing).
	From string `json:"from"`
}

// CandidateScore is how one homonym of a grounded name was ranked:
// type-compatible first, then by popularity.
type CandidateScore struct {
	// ID and Name are the candidate's.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Degree is the number of distinct relations (in and out) it has.
	Degree int `json:"degree"`
	// Compatible is whether its types meet the expected type; nil when
	// none was expected.
	Compatible *bool `json:"compatible,omitempty"`
	// Matched are the expected types, or relations, it has.
	Matched []string `json:"matched,omitempty"`
	// Score is the ranking key: 1 for a compatible candidate, 1 more when
	// it holds a relation the subgoal traversed, plus its degree's share
	// of the largest degree plus one (so in [0, 3)).
	Score float64 `json:"score"`
}

// SubgoalRecord is the trace of one subgoal.
type SubgoalRecord struct {
	// ID, Text, Op and Needs repeat the plan's subgoal.
	ID    string   `json:"id"`
	Text  string   `json:"text"`
	Op    Op       `json:"op"`
	Needs []string `json:"needs,omitempty"`
	// Status is "done", "failed", "skipped" (early stop or a failed
	// dependency) or "pending".
	Status string `json:"status"`
	// Retrieval is the subgoal's parameter pack: its category tags, the
	// budgets its retrieval used, and a reason tag for each.
	Retrieval *retrieval.Pack `json:"retrieval,omitempty"`
	// Boundary is the reason tag when the subgoal asks for what the KG
	// does not hold (property_not_in_kg: no relation of its members
	// carries the attribute it compares, orders or filters by).
	Boundary string `json:"boundary,omitempty"`
	// Anchors are the entities exploration started from.
	Anchors []Term `json:"anchors,omitempty"`
	// Tentative is the parametric answer given before retrieval.
	Tentative *Tentative `json:"tentative,omitempty"`
	// Grounding lists, when the tentative answer was kept, the entities
	// each name it gives was grounded to, most popular first.
	Grounding []Mention `json:"grounding,omitempty"`
	// Rounds are the exploration rounds, in order.
	Rounds []*Round `json:"rounds,omitempty"`
	// Verdict is the last refinement verdict.
	Verdict *Verdict `json:"verdict,omitempty"`
	// SetOp records exact set logic (intersect, union, count, compare,
	// superlative, filter).
	SetOp *SetOpRecord `json:"set_op,omitempty"`
	// Ordering records, on an intersect, the order its branches ran in,
	// with estimated and actual cardinalities (engine.ordering cost).
	Ordering *Ordering `json:"ordering,omitempty"`
	// Verification records a branch run as a check of the candidates of
	// the branch that ran first, instead of a full exploration.
	Verification *Verification `json:"verification,omitempty"`
	// Sufficiency is the (unfused) sufficiency judgement after the subgoal.
	Sufficiency *Sufficiency `json:"sufficiency,omitempty"`
	// Truncation records the top-k cut of the result (only with
	// kgqa.WithResultTruncation).
	Truncation *Pruning `json:"truncation,omitempty"`
	// Expansion records the members a find result gained from facts the
	// prompt had no room for (see Expansion).
	Expansion *Expansion `json:"expansion,omitempty"`
	// Valid records how the subgoal's time conditions (Args.Valid) were
	// checked: the relation each was read along, and what it kept.
	Valid []TimeCheck `json:"valid,omitempty"`
	// Result is the subgoal's answer.
	Result Result `json:"result"`
	// Corrected is true when refinement changed the tentative answer.
	Corrected bool `json:"corrected"`
	// Error is the failure, if any.
	Error string `json:"error,omitempty"`
	// ElapsedMS is the subgoal's wall time in milliseconds.
	ElapsedMS int64 `json:"elapsed_ms"`
}

// Tentative is a parametric answer.
type Tentative struct {
	// Answer in words.
	Answer string `json:"answer"`
	// Names of the entities it names.
	Names []string `json:"names,omitempty"`
}

// Result is what a subgoal produced.
type Result struct {
	// Text is the answer in words.
	Text string `json:"text"`
	// Entities is the answer set.
	Entities []Term `json:"entities"`
	// Source is "evidence" (refined against facts), "tentative" (kept or
	// resolved from the parametric answer), "exact" (set logic), "llm"
	// (set logic fell back to the model) or "verified" (the candidates of
	// another branch that this branch's relations reach).
	Source string `json:"source"`
	// Capped is true when the set may be incomplete: a neighbour query it
	// was computed from returned as many facts as the KG's neighbour
	// limit (see Round.Capped), or a set it was computed from is capped.
	// A count is then a lower bound.
	Capped bool `json:"capped,omitempty"`
}

// Round is one exploration round of a subgoal.
type Round struct {
	// Depth is the hop distance of the anchors from the subgoal's start.
	Depth int `json:"depth"`
	// Anchors are the entities explored from.
	Anchors []Term `json:"anchors"`
	// Offered is the number of distinct relations offered to the model.
	Offered int `json:"offered"`
	// OfferedRelations lists them, in the KG's order or, after a cut, most
	// relevant first.
	OfferedRelations []Relation `json:"offered_relations,omitempty"`
	// Cut is set when the anchors had more relations than
	// max_offered_relations and only the most relevant were offered.
	Cut *RelationCut `json:"cut,omitempty"`
	// Pages are the relations prompts the offer took, most relevant
	// relations first: the offer is split so that no prompt passes the
	// engine's token budget; the model keeps relations from each page and
	// then, if they are too many, chooses among them (the Final page).
	Pages []OfferPage `json:"pages,omitempty"`
	// PageRanking is how an offer of more than one page was ranked
	// ("embeddings" or "lexical"), when no cut had ranked it.
	PageRanking string `json:"page_ranking,omitempty"`
	// Chosen are the relations kept, in the model's order.
	Chosen []Relation `json:"chosen"`
	// ChosenBy is "llm", "lexical" (an attribute's relation matched by
	// name), "only_offered", "clear_top" (the clear top of the offer's
	// ranking, fetched without a choice; see ChoiceSkipped),
	// "lexical_fallback" (the model named no
	// offered relation; see Fallback), "plan_attribute" (the attribute
	// a constraint's plan names, matched by name, over the model's
	// choice; see Fallback) or "link" (a branch of an intersect that came
	// back empty, reopened along the relation that meets the other
	// branches' candidates; see Retry).
	ChosenBy string `json:"chosen_by,omitempty"`
	// Fallback says why the relations were not the model's choice.
	Fallback string `json:"fallback,omitempty"`
	// Rejected are relations the model named that were not offered
	// (hallucinated), named ambiguously by a short name, or over the
	// budget.
	Rejected []RejectedRelation `json:"rejected,omitempty"`
	// Facts retrieved by the chosen relations: every fact up to the KG's
	// neighbour limit per (anchor, relation) pair, whatever the prompts
	// had room for (with kgqa.WithResultTruncation, at most
	// engine.max_entities_per_relation per pair).
	Facts []Fact `json:"facts"`
	// Capped lists the (anchor, relation) pairs whose neighbour query
	// returned as many facts as the limit: the KG may hold more.
	Capped []CappedPair `json:"capped,omitempty"`
	// Hubs lists the (anchor, relation) pairs with more neighbours than
	// the pack's hub threshold: whether the list was cut and why
	// (hub_entity_cap, or the rule that needs the full set, e.g.
	// count_needs_full_set).
	Hubs []HubPair `json:"hubs,omitempty"`
	// Pruning says how the next round's frontier was chosen.
	Pruning *Pruning `json:"pruning,omitempty"`
	// DepthReason says why a round explores one hop past its subgoal's
	// pack: the subgoal names two relations and the round starts from
	// the first hop's answer (composition_two_relations), or the first
	// hop landed only on mediators (composition_mediator_hop).
	DepthReason string `json:"depth_reason,omitempty"`
	// Ranking is how the offer was ranked before it was paged or cut:
	// "lexical" or "embeddings", with "+prior" when the relation prior
	// (engine.relation_prior) was added in.
	Ranking string `json:"ranking,omitempty"`
	// Prior ranks the chosen relations by the relation prior, when one
	// is loaded.
	Prior []PriorRank `json:"prior,omitempty"`
	// AnchorOffers are the per-anchor offers of a round whose anchors
	// do not all have the same untried relations (engine.relation_choice
	// anchor; with set, only a subgoal's topic entities): each anchor, or
	// each set of anchors with the same relations, is offered its own
	// relations and chooses its own.
	// Offered, OfferedRelations, Pages and Chosen then sum them up.
	AnchorOffers []AnchorOffer `json:"anchor_offers,omitempty"`
	// ChoiceSkipped says the round made no relation-choice call
	// (engine.clear_top_facts): its offer's ranking had a clear top of
	// one relation, whose facts went straight to refinement.
	ChoiceSkipped bool `json:"choice_skipped,omitempty"`
	// Retry says why a round went back to anchors already explored to
	// choose among their relations: retry_untried (every round before it
	// ended without aligned evidence; the relations not yet tried) or
	// clear_top_misaligned (the round before skipped the choice and its
	// facts did not answer; the whole offer, as the choice would have
	// had), or backtrack (the find was reopened because a later step came
	// back with nothing).
	Retry string `json:"retry,omitempty"`
}

// AnchorOffer is the relation offer made to one anchor of a round (or to
// anchors with the same untried relations) and the model's choice.
type AnchorOffer struct {
	// Anchors are the anchors offered these relations.
	Anchors []Term `json:"anchors"`
	// Offered is the number of relations offered.
	Offered int `json:"offered"`
	// OfferedRelations lists them.
	OfferedRelations []Relation `json:"offered_relations,omitempty"`
	// Cut is set when only the most relevant were offered.
	Cut *RelationCut `json:"cut,omitempty"`
	// Pages are the relations prompts the offer took.
	Pages []OfferPage `json:"pages,omitempty"`
	// Ranking is how the offer was ranked (see Round.Ranking).
	Ranking string `json:"ranking,omitempty"`
	// Prior ranks the chosen relations by the relation prior.
	Prior []PriorRank `json:"prior,omitempty"`
	// Chosen are the relations kept for these anchors.
	Chosen []Relation `json:"chosen"`
	// ChosenBy is as in Round.
	ChosenBy string `json:"chosen_by,omitempty"`
	// Fallback says why the relations were not the model's choice.
	Fallback string `json:"fallback,omitempty"`
}

// PriorRank is where the relation prior put a chosen relation.
type PriorRank struct {
	// Relation is the chosen relation.
	Relation Relation `json:"relation"`
	// Rank is its place in the ranked offer (prior and lexical or
	// embeddings together), 0 first.
	Rank int `json:"rank"`
	// PriorRank is its place by the prior alone among the relations
	// available, 0 first.
	PriorRank int `json:"prior_rank"`
	// Score is its prior score.
	Score float64 `json:"score"`
}

// OfferPage is one relations prompt of a round.
type OfferPage struct {
	// Relations is the number of relations the page offered.
	Relations int `json:"relations"`
	// PromptTokens is the prompt's size in tokens, counted as about four
	// bytes each.
	PromptTokens int `json:"prompt_tokens"`
	// Chosen is the number of relations the model kept from it.
	Chosen int `json:"chosen"`
	// Final marks the last prompt of a paged offer, which chose among
	// the relations the pages kept.
	Final bool `json:"final,omitempty"`
	// Short marks the short first page of an adaptive offer
	// (engine.relation_offer): the best-ranked relations alone, shown
	// because the ranking's top was clear.
	Short bool `json:"short,omitempty"`
	// AfterNone marks a page of the other relations, offered because the
	// model kept none of the short page.
	AfterNone bool `json:"after_none,omitempty"`
}

// CappedPair is a neighbour query that returned as many facts as its
// limit.
type CappedPair struct {
	// Entity is the anchor's id.
	Entity string `json:"entity"`
	// Relation is the relation followed.
	Relation Relation `json:"relation"`
	// Limit is the limit the query hit.
	Limit int `json:"limit"`
}

// HubPair is an (anchor, relation) pair with more neighbours than the
// pack's hub threshold.
type HubPair struct {
	// Entity is the anchor's id.
	Entity string `json:"entity"`
	// Relation is the relation followed.
	Relation Relation `json:"relation"`
	// Count is the KG's count of the anchor's neighbours along it.
	Count int `json:"count"`
	// Cut is true when the list was cut to the pack's facts per pair.
	Cut bool `json:"cut"`
	// Reason is the reason tag of the choice.
	Reason string `json:"reason"`
}

// Expansion records how a find result was completed beyond the facts the
// model was shown. A prompt shows at most engine.max_entities_per_relation facts
// per (anchor, relation) pair and at most kgqa.WithMaxFacts in all; when the
// model's answer holds every neighbour it was shown along a relation, it
// chose that relation's neighbours as the answer, and the ones it was not
// shown join the result, so that counts, intersections and orderings see
// the whole set.
type Expansion struct {
	// Relations are the relations completed, as "path (dir)".
	Relations []string `json:"relations"`
	// Added is the number of members added.
	Added int `json:"added"`
}

// RejectedRelation is a relation a model named and the engine refused.
type RejectedRelation struct {
	// ID and Dir as the model gave them.
	ID  string `json:"id"`
	Dir string `json:"dir"`
	// Reason is "not_offered", "ambiguous" (a name several offered
	// relations share) or "over_budget".
	Reason string `json:"reason"`
}

// RelationCut records that an exploration round offered only the most
// relevant of the anchors' relations.
type RelationCut struct {
	// Method ranked the relations: "embeddings" or "lexical" (word
	// overlap with the subgoal).
	Method string `json:"method"`
	// Available is the number of untried relations the anchors have.
	Available int `json:"available"`
	// Shown is the number offered to the model.
	Shown int `json:"shown"`
	// DroppedCount is the number not offered.
	DroppedCount int `json:"dropped_count"`
	// Dropped lists the first of them, most relevant first.
	Dropped []Relation `json:"dropped"`
	// Note explains a fallback from embeddings to word overlap.
	Note string `json:"note,omitempty"`
}

// Pruning records how candidates were cut to the width budget.
type Pruning struct {
	// Method is "none" (few enough), "lexical" or "llm".
	Method string `json:"method"`
	// Candidates is the number of candidates before pruning.
	Candidates int `json:"candidates"`
	// Kept are the terms kept.
	Kept []Term `json:"kept"`
}

// SetOpRecord records a set operation.
type SetOpRecord struct {
	// Method is "exact", "llm" (values did not parse) or "tentative"
	// (the KG held no value to check the tentative answer against, which
	// stands).
	Method string `json:"method"`
	// Inputs are the sizes of the needed sets.
	Inputs []int `json:"inputs"`
	// Attribute is the relation compared or ordered by.
	Attribute *Relation `json:"attribute,omitempty"`
	// Cmp and Order are the comparison and the order applied, once
	// completed from the subgoal's text (the plan may leave them out).
	Cmp   string `json:"cmp,omitempty"`
	Order string `json:"order,omitempty"`
	// Dated is set when the values came from dated mediators (one per
	// date, such as a population by year): which dates were read.
	Dated *DatedValues `json:"dated,omitempty"`
	// Values maps member keys to their parsed attribute value.
	Values map[string]string `json:"values,omitempty"`
	// Unparsed counts members whose values did not parse.
	Unparsed int `json:"unparsed,omitempty"`
	// Note explains a choice.
	Note string `json:"note,omitempty"`
}

// DatedValues says which dated mediators a constraint read its values
// from: those of the times the subgoal states, or, with none stated, each
// member's latest.
type DatedValues struct {
	// Times are the stated times, at the precision stated ("2019",
	// "2019-06"); empty means the latest.
	Times []string `json:"times,omitempty"`
}

// Sufficiency is a judgement of whether the question can be answered.
type Sufficiency struct {
	// Sufficient is the judgement.
	Sufficient bool `json:"sufficient"`
	// Answer when sufficient.
	Answer string `json:"answer,omitempty"`
	// Entities of the answer found in the evidence.
	Entities []Term `json:"entities,omitempty"`
	// Fused is true when it came from the refine call.
	Fused bool `json:"fused"`
	// Reason from the model.
	Reason string `json:"reason,omitempty"`
	// Overruled says why the engine did not stop on a "sufficient"
	// judgement (its answer is the input of a step still to run).
	Overruled string `json:"overruled,omitempty"`
}

// FinalRecord is how the final answer was composed when it did not come
// straight from the answer subgoal.
type FinalRecord struct {
	// Source is "sufficiency" (early stop), "final" (a final-answer call
	// Source is "sufficiency" (early stop), "final" (a final-answer call
	// because the answer subgoal produced nothing), "model_knowledge"
	// (no topic entity, or exploration found no fact: the model answered
	// without the KG), "direct" (route direct: no KG needed, no model
	// call) or "outside_kg" (route boundary with engine.outside_kg notice).
	Source string `json:"source"`
	// After names the subgoal after which the question was answered.
	After string `json:"after,omitempty"`
	// Reason from the model.
	Reason string `json:"reason,omitempty"`
}

// Usage is the cost of one question.
type Usage struct {
	// LLM sums the calls per role and stage.
	LLM LLMUsage `json:"llm"`
	// SPARQLQueries is the number of queries sent to the KG.
	SPARQLQueries int64 `json:"sparql_queries"`
	// CacheHits and CacheMisses count the KG cache lookups.
	CacheHits   int64 `json:"cache_hits"`
	CacheMisses int64 `json:"cache_misses"`
	// CriticalPathCalls is the longest chain of LLM calls that had to run
	// one after another; times the per-call latency it bounds the wall time.
	CriticalPathCalls int `json:"critical_path_calls"`
	// WallMS is the question's wall time in milliseconds.
	WallMS int64 `json:"wall_ms"`
	// Calls places each LLM call on the question's timeline, in the order
	// they ended.
	Calls []CallSpan `json:"calls,omitempty"`
	// KG breaks the KG work down: each query sent, and the cache lookups
	// by primitive (nil when the engine counted none).
	KG *KGUsage `json:"kg,omitempty"`
}

// CallSpan is one LLM call on the timeline of its question.
type CallSpan struct {
	// Role and Stage of the call.
	Role  Role  `json:"role"`
	Stage Stage `json:"stage"`
	// StartMS is when the call began sending, in milliseconds since the
	// question started; MS is how long it took (retries included).
	StartMS int64 `json:"start_ms"`
	MS      int64 `json:"ms"`
	// WaitMS is how long the call waited for a concurrency slot of its
	// role before StartMS.
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Tokens is the call's prompt plus completion tokens.
	Tokens int `json:"tokens"`
	// Failed is true when the call ended in an error.
	Failed bool `json:"failed,omitempty"`
}

// TentativeAnswer is the question's parametric answer: the plan's set
// logic evaluated over the subgoals' tentative answers alone, before any
// retrieval, so that an evaluation can tell how often the model's own
// knowledge was wrong and refinement fixed it. It is computed after the
// run from the trace, with no LLM or KG call:
//
//   - find, filter, compare, superlative: the names of the subgoal's
//     tentative answer (blank and repeated names dropped; none when it
//     named no entity): every subgoal gets one before retrieval;
//   - intersect: the names of the first needed answer found in every
//     other one, union: the names of all of them, each compared by
//     naming.Fold, in first-seen order;
//   - count: the number of distinct names of the needed answers, when
//     every find it rests on named something (a model that names no
//     entity gives no count, and "0" would be a guess of ours).
//
// A subgoal that never got a tentative answer (skipped after an early
// stop, failed) makes every answer built on it not derivable.
type TentativeAnswer struct {
	// Derivable is false when the plan's answer cannot be composed from
	// tentative answers alone; Reason then says why.
	Derivable bool `json:"derivable"`
	// Names is the composed answer set (for a count, the number); empty
	// when not derivable or when the composition is empty.
	Names []string `json:"names"`
	// Reason names the subgoal that made the answer not derivable.
	Reason string `json:"reason,omitempty"`
}

// EventType names a step reported to kgqa.Request.OnEvent.
type EventType string

// The event types, in the order a question usually produces them.
const (
	// EventPlan carries the plan (Plan, PlanInfo).
	EventPlan EventType = "plan"
	// EventRewrite carries the classification of a chat's last message
	// (Rewrite); it comes before the plan.
	EventRewrite EventType = "rewrite"
	// EventSubgoalStarted names a subgoal that starts (Subgoal, Anchors).
	EventSubgoalStarted EventType = "subgoal_started"
	// EventTentative carries a parametric answer (Subgoal, Tentative).
	EventTentative EventType = "tentative_answer"
	// EventExploration carries one exploration round (Subgoal, Round).
	EventExploration EventType = "exploration"
	// EventRefinement carries a refinement verdict (Subgoal, Verdict).
	EventRefinement EventType = "refinement"
	// EventSufficiency carries a sufficiency judgement (Subgoal,
	// Sufficiency).
	EventSufficiency EventType = "sufficiency"
	// EventSubgoalDone carries a subgoal's result (Subgoal, Result,
	// SetOp).
	EventSubgoalDone EventType = "subgoal_done"
	// EventFinal carries the whole Answer; it is the last event of a
	// question that succeeded.
	EventFinal EventType = "final"
)

// Event is one step of the engine, for streaming. Only the fields of its
// type are set.
type Event struct {
	// Type of the step.
	Type EventType `json:"type"`
	// Seq numbers the events of a question from 1.
	Seq int `json:"seq"`
	// ElapsedMS is the time since the question started.
	ElapsedMS int64 `json:"elapsed_ms"`
	// Subgoal is the subgoal id of subgoal events.
	Subgoal string `json:"subgoal,omitempty"`
	// Rewrite is set on EventRewrite.
	Rewrite *Rewrite `json:"rewrite,omitempty"`
	// Plan and PlanInfo are set on EventPlan.
	Plan     *Plan     `json:"plan,omitempty"`
	PlanInfo *PlanInfo `json:"plan_info,omitempty"`
	// Anchors are set on EventSubgoalStarted.
	Anchors []Topic `json:"anchors,omitempty"`
	// Tentative is set on EventTentative.
	Tentative *Tentative `json:"tentative,omitempty"`
	// Round is set on EventExploration.
	Round *Round `json:"round,omitempty"`
	// Verdict is set on EventRefinement.
	Verdict *Verdict `json:"verdict,omitempty"`
	// Sufficiency is set on EventSufficiency.
	Sufficiency *Sufficiency `json:"sufficiency,omitempty"`
	// Result and SetOp are set on EventSubgoalDone.
	Result *Result      `json:"result,omitempty"`
	SetOp  *SetOpRecord `json:"set_op,omitempty"`
	// Answer is set on EventFinal.
	Answer *Answer `json:"answer,omitempty"`
}

// Verdict is the outcome of a refinement.
type Verdict struct {
	// Aligned reports whether the model judged the evidence to be about the
	// subgoal.
	Aligned bool `json:"aligned"`
	// Answer is the corrected answer text, or the tentative one when the
	// evidence was misaligned.
	Answer string `json:"answer"`
	// Entities are the answer's terms, each found in the evidence.
	Entities []Term `json:"entities"`
	// UsedFacts are the facts the model relied on.
	UsedFacts []Fact `json:"used_facts"`
	// Reason is the model's explanation.
	Reason string `json:"reason,omitempty"`
	// KeptTentative is true when the tentative answer was kept because the
	// evidence was misaligned or absent.
	KeptTentative bool `json:"kept_tentative"`
	// Rejected lists entities the model named that were not in the
	// evidence; they are dropped.
	Rejected []string `json:"rejected,omitempty"`
	// Sufficient is the fused sufficiency judgement (nil when not asked).
	Sufficient *bool `json:"sufficient,omitempty"`
	// FinalAnswer is the question's answer when Sufficient is true.
	FinalAnswer string `json:"final_answer,omitempty"`
	// FinalEntities are the final answer's terms found in the evidence.
	FinalEntities []Term `json:"final_entities,omitempty"`
	// FinalRefs are the model's references to the final answer's entities
	// as it wrote them, for resolving against more evidence than this
	// call saw (the final answer may name entities of earlier subgoals).
	FinalRefs []string `json:"final_refs,omitempty"`
	// FactsShown is the number of facts the model saw.
	FactsShown int `json:"facts_shown"`
	// Overruled says why the engine did not take the model's "aligned"
	// verdict: the answer it gave contradicts the evidence or the
	// subgoal (see the engine's consistency checks); the verdict then
	// counts as misaligned.
	Overruled string `json:"overruled,omitempty"`
}

// TimeCheck is one time condition as the engine checked it: on a find,
// on the mediators of its facts; on a filter, on the members.
type TimeCheck struct {
	// Cond is the plan's condition.
	Cond TimeCond `json:"cond"`
	// Relation is the relation the condition's date was read along
	// (from the mediator or member, Out); empty when none matched its
	// attribute, and then only Open lets a node pass.
	Relation string `json:"relation,omitempty"`
	// Checked counts the mediators (or members) examined, Kept those
	// that satisfy the condition.
	Checked int `json:"checked"`
	Kept    int `json:"kept"`
}
