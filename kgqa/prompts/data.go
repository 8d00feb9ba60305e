package prompts

import (
	"regexp"
	"strconv"
	"strings"
)

// PlanView is the whole plan as a prompt shows it, so that every stage sees
// the subgoal in the context of the plan.
type PlanView struct {
	// Question is the user's question.
	Question string
	// Subgoals are the plan's steps, in plan order.
	Subgoals []SubgoalLine
	// Current is the id of the subgoal being worked on.
	Current string
	// Known lists results of subgoals already answered ("s1: Germany; Spain").
	Known []string
}

// SubgoalLine is one plan step as a prompt shows it.
type SubgoalLine struct {
	ID, Text, Op string
	// Needs is the comma-separated ids this step uses.
	Needs string
}

// PlanData is the data of the plan and plan_fewshot prompts.
type PlanData struct {
	// Question is the question to decompose.
	Question string
	// Ops lists the operation kinds a subgoal may have.
	Ops []string
	// Tentatives asks for each find subgoal's tentative answer inside the
	// plan (engine.plan_tentatives); off, the prompt is the planner's
	// fine-tuning prompt, unchanged.
	Tentatives bool
}

// MentionsData is the data of the mentions prompt.
type MentionsData struct {
	// Question is the question to read.
	Question string
}

// SubgoalData is the data of the tentative prompt.
type SubgoalData struct {
	// Plan is the plan in context.
	Plan PlanView
	// Subgoal is the text of the current subgoal, references resolved.
	Subgoal string
}

// RelationGroup is the offered relations of one type in one direction,
// shown on one line: the type once, then the relation names.
type RelationGroup struct {
	// Type is the relation ids' common prefix ("location.location"); empty
	// for ids without one (Wikidata properties), whose names are then
	// shown whole.
	Type string
	// Names are the ids without the type ("adjoin_s"), or readable names
	// that carry the id ("shares border with (P47)") when Type is empty.
	Names []string
}

// RelationsData is the data of the relations prompt.
type RelationsData struct {
	// Plan is the plan in context.
	Plan PlanView
	// Subgoal is the current subgoal's text.
	Subgoal string
	// Anchors are the entities explored from, rendered.
	Anchors []string
	// Out are the candidate relations the anchors have as subject,
	// grouped by type.
	Out []RelationGroup
	// In are the candidate relations the anchors have as object, grouped
	// by type.
	In []RelationGroup
	// Max is the most relations to keep.
	Max int
	// Attribute, when set, asks for the one relation giving that attribute
	// (comparatives and superlatives).
	Attribute string
	// More, when positive, is the number of relations not shown: the
	// offer is the short first page of the ranked relations, and the
	// model may keep none of it to be shown the others.
	More int
}

// PruneData is the data of the prune prompt.
type PruneData struct {
	// Plan is the plan in context.
	Plan PlanView
	// Subgoal is the current subgoal's text.
	Subgoal string
	// Candidates are facts whose tails compete, one line each, numbered
	// from 1 in the prompt.
	Candidates []string
	// Keep is the most candidates to keep.
	Keep int
}

// RefineData is the data of the refine prompt.
type RefineData struct {
	// Plan is the plan in context.
	Plan PlanView
	// Subgoal is the current subgoal's text.
	Subgoal string
	// Tentative is the answer given before seeing evidence.
	Tentative string
	// Facts are the evidence lines, numbered from 1 in the prompt.
	Facts []string
	// Fused asks for the sufficiency judgement in the same reply.
	Fused bool
	// Recheck, when set, says why the engine asks again about a verdict
	// it did not take as final (the reply's facts do not fit the type
	// the subgoal expects, or it rejected the relation that matches the
	// subgoal best); empty on a first judgement.
	Recheck string
}

// SufficiencyData is the data of the sufficiency and final prompts.
type SufficiencyData struct {
	// Plan is the plan in context, with Known filled in.
	Plan PlanView
	// Facts are evidence lines gathered so far, numbered from 1.
	Facts []string
}

// SelectData is the data of the select prompt.
type SelectData struct {
	// Plan is the plan in context.
	Plan PlanView
	// Subgoal is the current subgoal's text.
	Subgoal string
	// Members are the candidates to choose from, rendered with their ids.
	Members []string
	// Facts are the evidence lines about the members, numbered from 1.
	Facts []string
}

// LQTAtomsData is the data of the lqt_atoms prompt.
type LQTAtomsData struct {
	// Question is the question to break into atomic queries.
	Question string
	// Ops lists the operation kinds a query may have.
	Ops []string
}

// LQTRelationData is the data of the lqt_relation prompt.
type LQTRelationData struct {
	// Question is the question the two queries come from.
	Question string
	// A and B are the two atomic queries' texts.
	A, B string
}

// LQTMergeData is the data of the lqt_merge prompt.
type LQTMergeData struct {
	// Question is the question the queries come from.
	Question string
	// Tree is the composed text of the partial tree the parent heads.
	Tree string
	// Parent and Child are the two queries' texts, references spelled
	// out.
	Parent, Child string
	// Subtree is the composed text of the child's subtree.
	Subtree string
}

// queryRef is a "#k" reference to the result of atomic query k.
var queryRef = regexp.MustCompile(`#(\d+)`)

// ExpandRefs spells out the "#k" references of atomic query i of texts
// (k numbered from 1) as "#k [text of query k]", recursively, so that a
// pair of queries shown alone keeps its meaning ("the capital of #1" says
// little by itself). It is how the lqt_relation prompt shows a query, and
// how the planner's cache of unrelated pairs keys it. A reference out of
// range, to the query itself, or deeper than the list stays as written.
func ExpandRefs(texts []string, i int) string {
	return expandRefs(texts, i, len(texts))
}

func expandRefs(texts []string, i, budget int) string {
	return queryRef.ReplaceAllStringFunc(texts[i], func(m string) string {
		k, err := strconv.Atoi(m[1:])
		if err != nil || k < 1 || k > len(texts) || k-1 == i || budget <= 1 {
			return m
		}
		return m + " [" + strings.TrimSpace(expandRefs(texts, k-1, budget-1)) + "]"
	})
}

// Turn is one earlier message of a conversation as the followup prompt
// shows it.
type Turn struct {
	// Role is "user" or "assistant".
	Role string
	// Text is the message's text.
	Text string
}

// FollowUpData is the data of the followup prompt.
type FollowUpData struct {
	// History is the conversation before the last user message, oldest
	// first.
	History []Turn
	// Message is the last user message, the one judged.
	Message string
}
