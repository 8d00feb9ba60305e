// Package retrieval decides, before the engine retrieves anything, how a
// question and each of its subgoals are to be retrieved: the route (the KG,
// a direct answer, or a notice that the question lies outside the KG), the
// category tags the plan gives them (count, superlative, comparative,
// temporal, conjunction, composition), and the parameter pack those tags
// select (exploration width and depth, relations kept, facts shown,
// whether neighbour lists may be truncated, whether to ask for a tentative
// answer, how to prune). Every choice carries a reason tag, so a trace says
// why a subgoal was explored the way it was, and the engine reads one pack
// instead of scattered conditionals.
//
// The rules are one table (DefaultRules), which configuration may override
// setting by setting (Parse). The package knows nothing of the engine's
// types: the engine describes a subgoal by its op names and text.
package retrieval

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Route is how a question is answered.
type Route string

// The routes.
const (
	// RouteKG is the normal path: plan, link, explore, refine.
	RouteKG Route = "kg"
	// RouteDirect needs no KG (a greeting, arithmetic, a question about the
	// service itself): it is answered without exploration, and flagged.
	RouteDirect Route = "direct"
	// RouteBoundary is a question outside the KG (nothing in it links to
	// an entity of the graph).
	RouteBoundary Route = "boundary"
)

// Category is a risk tag a subgoal gets from the plan.
type Category string

// The categories, in the order the rule table gives them priority.
const (
	Count       Category = "count"
	Superlative Category = "superlative"
	Comparative Category = "comparative"
	Temporal    Category = "temporal"
	Conjunction Category = "conjunction"
	Composition Category = "composition"
)

// Categories lists every category, highest priority first.
var Categories = []Category{Count, Superlative, Comparative, Temporal, Conjunction, Composition}

// All is the rule category every subgoal has, below its own categories:
// its rules set what no category rule sets (e.g. "all.hub_threshold=500").
// It is no tag of a subgoal.
const All Category = "all"

// Prune strategies for cutting an exploration frontier to Width.
const (
	// PruneAuto keeps the lexical top when word overlap separates it from
	// the rest, and asks the model otherwise.
	PruneAuto = "auto"
	// PruneLexical never asks the model: ties are cut in candidate order.
	PruneLexical = "lexical"
	// PruneLLM always asks the model when the frontier is too wide.
	PruneLLM = "llm"
)

// Reason tags of choices that no category rule made.
const (
	// ReasonEngineBudget: the parameter is the engine's configured budget.
	ReasonEngineBudget = "engine_budget"
	// ReasonConfigOverride: a rule of engine.retrieval_rules set it.
	ReasonConfigOverride = "config_override"
	// ReasonTopicsLinked: the question has topic entities in the KG.
	ReasonTopicsLinked = "topic_entities_linked"
	// ReasonNoTopicEntity: no entity of the question links to the KG.
	ReasonNoTopicEntity = "no_topic_entity"
	// ReasonGreeting, ReasonArithmetic and ReasonService route a question
	// direct.
	ReasonGreeting   = "greeting"
	ReasonArithmetic = "arithmetic"
	ReasonService    = "about_the_service"
	// ReasonHubEntityCap: an anchor has more neighbours along a relation
	// than the pack's HubThreshold, and its neighbour list is cut to
	// FactsPerPair.
	ReasonHubEntityCap = "hub_entity_cap"
	// ReasonHubThreshold: the table's default hub threshold.
	ReasonHubThreshold = "hub_entity_threshold"
	// ReasonPropertyNotInKG: a compare, superlative or filter subgoal asks
	// for an attribute no relation of its members carries (none is
	// offered, or the model keeps none of a complete offer), so the
	// subgoal, and the question when it is the answer subgoal, lies
	// outside the KG.
	ReasonPropertyNotInKG = "property_not_in_kg"
	// ReasonCompositionTwoRelations: a composition subgoal whose text
	// names two relations ("the airports of the capital of #1", "...,
	// then ...") bundles two hops, and gets depth 2 in place of the
	// table's one hop per subgoal.
	ReasonCompositionTwoRelations = "composition_two_relations"
	// ReasonCompositionMediatorHop: a composition subgoal's first hop
	// landed only on nameless mediator nodes (which the KG did not fold
	// into two-relation facts), so the round explores one hop further.
	ReasonCompositionMediatorHop = "composition_mediator_hop"
)

// ReasonCompositionHop is the reason tag of the table's one hop per
// composition subgoal.
const ReasonCompositionHop = "composition_hop_per_subgoal"

// Params are the parameters a pack sets, by name (the names of rules and
// of the JSON fields).
const (
	ParamWidth          = "width"
	ParamDepth          = "depth"
	ParamRelations      = "relations"
	ParamFactsPerPair   = "facts_per_pair"
	ParamFactsPerPrompt = "facts_per_prompt"
	ParamTruncate       = "truncate_neighbors"
	ParamTentative      = "tentative"
	ParamPrune          = "prune"
	ParamHubThreshold   = "hub_threshold"
)

// params lists every parameter name, in pack order.
var params = []string{ParamWidth, ParamDepth, ParamRelations, ParamFactsPerPair, ParamFactsPerPrompt, ParamTruncate, ParamTentative, ParamPrune, ParamHubThreshold}

// Pack is the parameter pack of one subgoal: the budgets its retrieval
// uses, its category tags, and a reason tag for every parameter.
type Pack struct {
	// Categories are the subgoal's tags, in priority order.
	Categories []Category `json:"categories,omitempty"`
	// Width is the number of entities an exploration frontier keeps.
	Width int `json:"width"`
	// Depth is the number of hops explored.
	Depth int `json:"depth"`
	// Relations is the number of relations the model may keep per anchor.
	Relations int `json:"relations"`
	// FactsPerPair is the number of facts of one (anchor, relation) pair
	// shown in a prompt.
	FactsPerPair int `json:"facts_per_pair"`
	// FactsPerPrompt is the number of facts shown in one prompt.
	FactsPerPrompt int `json:"facts_per_prompt"`
	// TruncateNeighbors allows a neighbour list, and the result built from
	// it, to be cut to the top-k (only under the engine's result
	// truncation; never for a set that is counted, ordered or compared).
	TruncateNeighbors bool `json:"truncate_neighbors"`
	// Tentative asks the model for a parametric answer before retrieval.
	Tentative bool `json:"tentative"`
	// Prune is the frontier strategy: PruneAuto, PruneLexical or PruneLLM.
	Prune string `json:"prune"`
	// HubThreshold is the number of neighbours along one relation above
	// which an anchor is a hub, whose neighbour list may be cut to
	// FactsPerPair (see HubCut).
	HubThreshold int `json:"hub_threshold"`
	// Reasons maps every parameter name to the tag of the rule that set it.
	Reasons map[string]string `json:"reasons"`
}

// Budgets are the engine's own values of the pack's parameters, which the
// rules start from.
type Budgets struct {
	Width, Depth, Relations, FactsPerPair, FactsPerPrompt int
	// TruncateNeighbors is true when the engine truncates results at all.
	TruncateNeighbors bool
}

// Subgoal describes one subgoal of a plan to the rule table.
type Subgoal struct {
	// Text is the subgoal's text.
	Text string
	// Op is its operation ("find", "count", ...).
	Op string
	// Needs is the number of subgoals it needs.
	Needs int
	// Feeds lists the ops of the subgoals that need it.
	Feeds []string
	// Names are the names of the entities its text may mention (the
	// question's topic entities): their words are no relation's.
	Names []string
}

// Rule sets one parameter of the pack of the subgoals tagged with a
// category.
type Rule struct {
	// Category is the tag the rule applies to.
	Category Category
	// Param is the parameter it sets (one of the Param names).
	Param string
	// Value is the parameter's value, as text.
	Value string
	// Reason is the tag recorded beside the parameter.
	Reason string
}

// DefaultRules is the rule table. A parameter is set by a rule of the
// subgoal's highest-priority category (Categories' order) that has one for
// it; parameters no rule sets keep the engine's budget.
var DefaultRules = []Rule{
	// A count, an argmax or a comparison over a cut set is wrong, however
	// good the cut.
	{Count, ParamTruncate, "false", "count_needs_full_set"},
	{Superlative, ParamTruncate, "false", "superlative_needs_full_set"},
	{Comparative, ParamTruncate, "false", "comparative_needs_full_set"},
	// A time qualifier sits on a mediator beside the value it dates, and
	// picking the right one needs every dated fact of the pair.
	{Temporal, ParamTruncate, "false", "temporal_qualifier"},
	{Temporal, ParamFactsPerPair, "40", "temporal_qualifier"},
	// An intersection of a cut set loses members the other set has.
	{Conjunction, ParamTruncate, "false", "conjunction_needs_full_set"},
	// In a composition the plan makes each hop a subgoal of its own: a
	// second hop inside one subgoal walks past the step the next subgoal
	// takes, so a round that misses tries other relations instead.
	{Composition, ParamDepth, "1", ReasonCompositionHop},
	// A hub (a country, a language, a gender) has thousands of neighbours
	// along one relation: its list is cut to the facts a prompt shows,
	// unless a category rule needs the full set (see HubCut).
	{All, ParamHubThreshold, strconv.Itoa(DefaultHubThreshold), ReasonHubThreshold},
}

// DefaultHubThreshold is the table's hub threshold: more neighbours than
// this along one relation make an anchor a hub.
const DefaultHubThreshold = 1000

// Table is a rule table, ready to choose packs.
type Table struct {
	rules []Rule
}

// Parse builds the table: DefaultRules with each override applied. An
// override is "CATEGORY.PARAM=VALUE" (e.g. "count.depth=3",
// "temporal.tentative=false"); it takes the place of the table's rule for
// that category and parameter; categories keep their priority.
func Parse(overrides []string) (*Table, error) {
	rules := slices.Clone(DefaultRules)
	var first []Rule
	for _, o := range overrides {
		r, err := parseRule(o)
		if err != nil {
			return nil, err
		}
		rules = slices.DeleteFunc(rules, func(x Rule) bool { return x.Category == r.Category && x.Param == r.Param })
		first = append(first, r)
	}
	return &Table{rules: append(first, rules...)}, nil
}

func parseRule(s string) (Rule, error) {
	kv, val, ok := strings.Cut(strings.TrimSpace(s), "=")
	cat, param, ok2 := strings.Cut(strings.TrimSpace(kv), ".")
	if !ok || !ok2 {
		return Rule{}, fmt.Errorf("retrieval rule %q: want CATEGORY.PARAM=VALUE, e.g. count.depth=3", s)
	}
	c := Category(strings.TrimSpace(cat))
	if !slices.Contains(Categories, c) && c != All {
		return Rule{}, fmt.Errorf("retrieval rule %q: unknown category %q (one of %s, %s)", s, cat, joinCategories(), All)
	}
	r := Rule{Category: c, Param: strings.TrimSpace(param), Value: strings.TrimSpace(val), Reason: ReasonConfigOverride}
	if err := (&Pack{Reasons: map[string]string{}}).set(r); err != nil {
		return Rule{}, fmt.Errorf("retrieval rule %q: %w", s, err)
	}
	return r, nil
}

func joinCategories() string {
	var names []string
	for _, c := range Categories {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}

// set applies one rule to p.
func (p *Pack) set(r Rule) error {
	num := func(dst *int) error {
		n, err := strconv.Atoi(r.Value)
		if err != nil || n <= 0 {
			return fmt.Errorf("%s: %q is not a positive integer", r.Param, r.Value)
		}
		*dst = n
		return nil
	}
	flag := func(dst *bool) error {
		b, err := strconv.ParseBool(r.Value)
		if err != nil {
			return fmt.Errorf("%s: %q is not true or false", r.Param, r.Value)
		}
		*dst = b
		return nil
	}
	var err error
	switch r.Param {
	case ParamWidth:
		err = num(&p.Width)
	case ParamDepth:
		err = num(&p.Depth)
	case ParamRelations:
		err = num(&p.Relations)
	case ParamFactsPerPair:
		err = num(&p.FactsPerPair)
	case ParamFactsPerPrompt:
		err = num(&p.FactsPerPrompt)
	case ParamTruncate:
		err = flag(&p.TruncateNeighbors)
	case ParamTentative:
		err = flag(&p.Tentative)
	case ParamHubThreshold:
		err = num(&p.HubThreshold)
	case ParamPrune:
		switch r.Value {
		case PruneAuto, PruneLexical, PruneLLM:
			p.Prune = r.Value
		default:
			err = fmt.Errorf("prune: %q is not auto, lexical or llm", r.Value)
		}
	default:
		err = fmt.Errorf("unknown parameter %q (one of %s)", r.Param, strings.Join(params, ", "))
	}
	if err == nil {
		p.Reasons[r.Param] = r.Reason
	}
	return err
}

// Pack chooses the pack of subgoal s: the engine's budgets b, then, for
// each parameter, the first rule whose category s has (All last).
// Truncation is never
// switched on by a rule when the engine does not truncate.
func (t *Table) Pack(b Budgets, s Subgoal) Pack {
	p := Pack{
		Categories: SubgoalCategories(s),
		Width:      b.Width, Depth: b.Depth, Relations: b.Relations,
		FactsPerPair: b.FactsPerPair, FactsPerPrompt: b.FactsPerPrompt,
		TruncateNeighbors: b.TruncateNeighbors, Tentative: true, Prune: PruneAuto,
		HubThreshold: DefaultHubThreshold, Reasons: map[string]string{},
	}
	for _, name := range params {
		p.Reasons[name] = ReasonEngineBudget
	}
	done := map[string]bool{}
	for _, c := range append(slices.Clone(p.Categories), All) {
		for _, r := range t.rules {
			if r.Category != c || done[r.Param] {
				continue
			}
			done[r.Param] = true
			_ = p.set(r) // every rule was checked by Parse or is the table's own
		}
	}
	if !b.TruncateNeighbors && p.TruncateNeighbors {
		p.TruncateNeighbors, p.Reasons[ParamTruncate] = false, ReasonEngineBudget
	}
	if p.Reasons[ParamDepth] == ReasonCompositionHop && p.Depth < 2 && b.Depth >= 2 && NamesTwoRelations(s.Text, s.Names...) {
		p.Depth, p.Reasons[ParamDepth] = 2, ReasonCompositionTwoRelations
	}
	return p
}

var (
	// relationLinkRE finds the words that join a relation to what it is
	// of: "the capital of", "#1's", "whose", and a merged ", then".
	relationLinkRE = regexp.MustCompile(`(?i)\bof\b|'s\b|\bwhose\b`)
	thenRE         = regexp.MustCompile(`(?i),?\s+then\s+`)
	// oneRelationOf are phrases with "of" that name one relation, not
	// a relation of a relation.
	oneRelationOf = regexp.MustCompile(`(?i)\b(?:place|date|cause|country|city|year|time) of (?:birth|death|origin|burial|cremation|interment)\b|\b(?:head|heads) of (?:state|government)\b|\bdays? of (?:the )?(?:week|month|year)\b|\b(?:number|kind|type|name|names|one|part|member|members|list|set|instance|instances) of\b`)
)

// NamesTwoRelations reports whether a subgoal's text bundles two hops: it
// is two steps joined by "then", or it links two relations ("the
// currency of the capital of #1", "the capital of #1's country"). Names
// of one relation that contain "of" ("place of birth", "number of") do
// not count, nor do the words of names, the entities the text mentions
// ("the measurement system of Tisch School of the Arts" names one).
func NamesTwoRelations(text string, names ...string) bool {
	text = withoutNames(text, names)
	if parts := thenRE.Split(text, -1); len(parts) > 1 && strings.TrimSpace(parts[0]) != "" && strings.TrimSpace(parts[1]) != "" {
		return true
	}
	return len(relationLinkRE.FindAllString(oneRelationOf.ReplaceAllString(text, " "), -1)) >= 2
}

// withoutNames is text with each of names (matched without regard to
// case) replaced by a placeholder word.
func withoutNames(text string, names []string) string {
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			text = regexp.MustCompile(`(?i)`+regexp.QuoteMeta(n)).ReplaceAllString(text, "X")
		}
	}
	return text
}

// HubCut decides whether the neighbour list of an anchor with n
// neighbours along one relation is cut to FactsPerPair, and why. It is no
// hub when n is at most HubThreshold (reason ""). A hub's list is cut
// (ReasonHubEntityCap) unless a rule keeps the subgoal's neighbour lists
// whole: a count, an ordered, compared, dated or intersected set needs the
// full set, and that rule's reason (e.g. count_needs_full_set) wins.
func (p Pack) HubCut(n int) (cut bool, reason string) {
	if p.HubThreshold <= 0 || n <= p.HubThreshold {
		return false, ""
	}
	if why := p.Reasons[ParamTruncate]; !p.TruncateNeighbors && why != ReasonEngineBudget && why != "" {
		return false, why
	}
	return true, ReasonHubEntityCap
}

// SubgoalCategories tags a subgoal from its own op, the ops of the
// subgoals that need it (a set that is later counted needs the full set as
// much as the count does) and its text (temporal), in priority order.
func SubgoalCategories(s Subgoal) []Category {
	has := map[Category]bool{}
	for i, op := range append([]string{s.Op}, s.Feeds...) {
		switch op {
		case "count":
			has[Count] = true
		case "superlative":
			has[Superlative] = true
		case "compare":
			has[Comparative] = true
		case "intersect", "filter":
			has[Conjunction] = true
		case "find":
			if i > 0 || s.Needs > 0 {
				has[Composition] = true
			}
		}
	}
	if IsTemporal(s.Text) {
		has[Temporal] = true
	}
	return inOrder(has)
}

// QuestionCategories tags a question from its plan's kinds (the kgqa.Kind
// names; "linear" is no category) and its text.
func QuestionCategories(question string, kinds []string) []Category {
	has := map[Category]bool{}
	for _, k := range kinds {
		has[Category(k)] = true
	}
	if IsTemporal(question) {
		has[Temporal] = true
	}
	return inOrder(has)
}

// inOrder lists the categories in has in the order of Categories.
func inOrder(has map[Category]bool) []Category {
	var out []Category
	for _, c := range Categories {
		if has[c] {
			out = append(out, c)
		}
	}
	return out
}

// yearRE is a year written in a text ("1990", "1990s").
var yearRE = regexp.MustCompile(`\b(1[0-9]{3}|20[0-9]{2})s?\b`)

// temporalWords mark a question or subgoal that asks for, or is qualified
// by, a time.
var temporalWords = map[string]bool{
	"when": true, "year": true, "years": true, "date": true, "dates": true,
	"before": true, "after": true, "during": true, "since": true, "until": true,
	"century": true, "decade": true, "current": true, "currently": true,
	"now": true, "today": true, "period": true,
}

// IsTemporal reports whether text asks for or is qualified by a time: it
// names a year or uses a word of time.
func IsTemporal(text string) bool {
	// A year is four digits in a row: most texts have none, and the scan
	// for them costs a fraction of the regexp's.
	if hasDigits(text, 4) && yearRE.MatchString(text) {
		return true
	}
	lower := strings.ToLower(text)
	for i := 0; i < len(lower); {
		if !isLowerASCII(lower[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(lower) && isLowerASCII(lower[j]) {
			j++
		}
		if temporalWords[lower[i:j]] {
			return true
		}
		i = j
	}
	return false
}

func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }

// hasDigits reports whether s has n ASCII digits in a row.
func hasDigits(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			if run++; run == n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// Plan is a question's retrieval plan: its route and category tags, with
// the reason for the route. The subgoals' packs are recorded beside each
// subgoal.
type Plan struct {
	// Route is how the question is answered.
	Route Route `json:"route"`
	// Categories are the question's tags, from its plan and text.
	Categories []Category `json:"categories,omitempty"`
	// Reasons maps each choice ("route", and "ordering" when branches
	// were reordered) to its reason tag.
	Reasons map[string]string `json:"reasons"`
}
