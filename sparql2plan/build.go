package sparql2plan

import (
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// Hop is one relation step of a find, read from the known side: Reverse
// means the result is the subject of Relation and the known side its
// object.
type Hop struct {
	// Relation is the Freebase relation id (domain.type.property).
	Relation string `json:"relation"`
	// Reverse is true when the hop runs against the triple's direction.
	Reverse bool `json:"reverse,omitempty"`
}

// Qualifier is a condition folded into a find: a constant on a mediator
// node (the office of a position held) or a time validity.
type Qualifier struct {
	// Relation is the mediator's relation the condition is on.
	Relation string `json:"relation,omitempty"`
	// Entity is an entity id the relation must reach.
	Entity string `json:"entity,omitempty"`
	// Value is a literal the relation must hold, or the date of a time
	// condition.
	Value string `json:"value,omitempty"`
	// ValueType says how Value matches (see Step.LiteralType).
	ValueType string `json:"value_type,omitempty"`
	// Cmp is the comparison of a time condition.
	Cmp string `json:"cmp,omitempty"`
	// Open marks a time condition that a mediator with no value along
	// Relation satisfies too (an open end).
	Open bool `json:"open,omitempty"`
	// During names an entity whose time span the mediator overlaps.
	During string `json:"during,omitempty"`
}

// Step is one atomic operation of a converted query: the structure from
// which a subgoal's text is rendered.
type Step struct {
	// ID is the subgoal id ("s1", ...).
	ID string `json:"id"`
	// Op is the operation kind.
	Op kgqa.Op `json:"op"`
	// Needs are the ids of steps whose results this one uses.
	Needs []string `json:"needs,omitempty"`
	// Anchors are the entity ids a find starts from (empty when it starts
	// from Needs).
	Anchors []string `json:"anchors,omitempty"`
	// Literal is the constant a find starts from or a filter requires.
	Literal string `json:"literal,omitempty"`
	// LiteralType says how Literal matches, as the gold query wrote it:
	// "text" when compared through str() (its text, whatever its
	// datatype or language), "@en" for a language-tagged literal, else
	// its XSD datatype ("float", "date"; "" when untyped).
	LiteralType string `json:"literal_type,omitempty"`
	// Path is the relation path of a find or of a filter's value.
	Path []Hop `json:"path,omitempty"`
	// Qualifiers are the mediator conditions folded into a find.
	Qualifiers []Qualifier `json:"qualifiers,omitempty"`
	// Types are the types the result is constrained to (Freebase type
	// ids; "notable:m.xxx" for a notable-type MID).
	Types []string `json:"types,omitempty"`
	// Args carries compare/superlative structure.
	Args *kgqa.Args `json:"args,omitempty"`
	// ValueType is the XSD datatype of a compare's constant (dateTime,
	// integer, ...), when the query typed it.
	ValueType string `json:"value_type,omitempty"`
}

// cvtTypes are Freebase mediator (CVT) types: a variable whose relations
// belong to one of them is crossed as part of a single hop. The list is the
// mediator types seen in WebQSP-derived queries (where mediators are named
// ?y or ?k) plus the common measurement and release-date mediators.
var cvtTypes = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`award.award_honor award.award_nomination book.editorial_tenure
	book.periodical_publisher_period celebrities.romantic_relationship common.notable_for education.education
	event.speech_or_presentation film.film_crew_gig film.performance government.government_position_held
	government.national_anthem_of_a_country government.political_party_tenure law.legal_case_party_relationship
	location.adjoining_relationship location.imports_and_exports location.imports_exports_by_industry
	location.location_symbol_relationship location.mailing_address location.partial_containment_relationship
	location.religion_percentage media_common.dedication military.casualties military.military_command
	military.military_service music.group_membership music.track_contribution organization.leadership
	organization.organization_relationship people.marriage people.place_lived people.sibling_relationship
	religion.religious_organization_leadership sports.sports_league_participation sports.sports_team_roster
	symbols.armorial_grant tv.regular_tv_appearance tv.tv_producer_episode_credit
	measurement_unit.dated_integer measurement_unit.dated_money_value measurement_unit.dated_percentage
	film.film_regional_release_date film.personal_film_appearance location.geocode
	business.employment_tenure people.place_of_interment award.competitor_competition_relationship`) {
		cvtTypes[t] = true
	}
}

var cvtVarName = regexp.MustCompile(`^(y|k)\d*$`)

type builder struct {
	g     *queryGraph
	steps *[]Step
	used  map[int]bool
	done  map[string]string
	busy  map[string]bool
	// unions consumed, by index into g.unions.
	unionUsed map[int]bool
}

func (b *builder) add(s Step) string {
	s.ID = fmt.Sprintf("s%d", len(*b.steps)+1)
	*b.steps = append(*b.steps, s)
	return s.ID
}

func (b *builder) step(id string) *Step {
	for i := range *b.steps {
		if (*b.steps)[i].ID == id {
			return &(*b.steps)[i]
		}
	}
	return nil
}

// incident lists unused edges touching node key k, in query order.
func (b *builder) incident(k string) []int {
	var out []int
	for i, e := range b.g.edges {
		if !b.used[i] && (e.s.key() == k || e.o.key() == k) {
			out = append(out, i)
		}
	}
	return out
}

func other(e edge, k string) (term, Hop) {
	if e.s.key() == k {
		return e.o, Hop{Relation: e.rel, Reverse: true}
	}
	return e.s, Hop{Relation: e.rel}
}

// buildSteps turns a query graph into atomic steps.
func buildSteps(g *queryGraph) ([]Step, error) {
	var steps []Step
	b := &builder{g: g, steps: &steps, used: map[int]bool{}, done: map[string]string{}, busy: map[string]bool{}, unionUsed: map[int]bool{}}
	if err := b.resolveAttrs(); err != nil {
		return nil, err
	}
	ref, err := b.node("?" + g.answer)
	if err != nil {
		return nil, err
	}
	if g.count {
		b.add(Step{Op: kgqa.OpCount, Needs: []string{ref}})
	}
	for i, e := range g.edges {
		if !b.used[i] {
			return nil, fmt.Errorf("%w: triple not connected to the answer (%s %s %s)", ErrShape, e.s.key(), e.rel, e.o.key())
		}
	}
	for i := range g.unions {
		if !b.unionUsed[i] {
			return nil, fmt.Errorf("%w: UNION not connected to the answer", ErrShape)
		}
	}
	return steps, nil
}

// resolveAttrs turns value variables (compared, ordered, time-compared)
// into constraints on the node that owns them, consuming the attribute
// path (through at most a chain of single-use mediators).
func (b *builder) resolveAttrs() error {
	vars := make([]string, 0, len(b.g.attrs))
	for v := range b.g.attrs {
		vars = append(vars, v)
	}
	sort.Strings(vars)
	r, err := b.traceAttrs(vars)
	if err != nil {
		return err
	}
	for _, v := range vars {
		a, k := b.g.attrs[v], r.owners[v].key()
		for _, c := range a.cmp {
			c.attr = r.paths[v]
			b.g.cons[k] = append(b.g.cons[k], c)
		}
		if a.order != "" {
			b.g.cons[k] = append(b.g.cons[k], constraint{kind: consSuperlative, attr: r.paths[v], order: a.order})
		}
		for _, tc := range a.timeCmp {
			if err := b.compareValues(r, v, tc); err != nil {
				return err
			}
		}
	}
	for i := range r.spent {
		b.used[i] = true
	}
	// Only a span bounded on both sides by the entity's dates is "during"
	// it (an overlap or a containment); one bound says before or after
	// (or north of), which the plan cannot state.
	for _, s := range r.spanOrder {
		if bs := r.bounds[s]; !bs[0] || !bs[1] {
			return unsupported("FILTER bounding a value only from one side by a given entity's (%s)", s.entity)
		}
		b.g.cons[s.k] = appendTime(b.g.cons[s.k], constraint{kind: consTime, label: s.entity})
	}
	return nil
}

// span is a node's values bounded by an entity's: the key of the node and
// the entity.
type span struct{ k, entity string }

// attrResolution is what resolveAttrs learns of the value variables
// before it turns them into constraints, and what it builds on the way.
type attrResolution struct {
	// owners, paths and pathEdges are each value variable's owning node,
	// the attribute path from it, and the edges that path consumed.
	owners    map[string]term
	paths     map[string][]string
	pathEdges map[string][]int
	// answerSide holds the nodes reached from the answer through
	// variables: the side of a two-variable comparison that is filtered.
	// The other side's values are built apart, as the bound of a
	// comparison (boundValues), from the graph as it was (base) with the
	// mediator edges of the bound side free again (chain).
	answerSide map[string]bool
	base       map[int]bool
	chain      []int
	// boundRefs are the steps built for bounds, by variable; spent the
	// edges they consumed.
	boundRefs map[string]string
	spent     map[int]bool
	// bounds records, per node and entity, whether the node's values are
	// bounded from below and from above by the entity's, in first-seen
	// order (spanOrder).
	bounds    map[span][2]bool
	spanOrder []span
}

// traceAttrs traces every value variable to the node that owns it, and
// finds the answer's side and the bound side's mediator chain.
func (b *builder) traceAttrs(vars []string) (*attrResolution, error) {
	r := &attrResolution{owners: map[string]term{}, paths: map[string][]string{}, pathEdges: map[string][]int{},
		boundRefs: map[string]string{}, spent: map[int]bool{}, bounds: map[span][2]bool{}}
	for _, v := range vars {
		before := maps.Clone(b.used)
		owner, path, err := b.trace(v)
		if err != nil {
			return nil, err
		}
		r.owners[v], r.paths[v] = owner, path
		for i := range b.used {
			if !before[i] {
				r.pathEdges[v] = append(r.pathEdges[v], i)
			}
		}
	}
	r.answerSide = b.reach("?" + b.g.answer)
	r.base = maps.Clone(b.used)
	// A bound is built from its anchors through the mediators the value
	// paths of the bound side crossed (an imprisonment's start and end
	// share one): those edges are free again while it is built.
	for _, w := range vars {
		if own := r.owners[w]; own.kind == kindVar && r.answerSide[own.key()] {
			continue
		}
		for _, i := range r.pathEdges[w] {
			if b.g.edges[i].o.key() != "?"+w {
				r.chain = append(r.chain, i)
			}
		}
	}
	return r, nil
}

// compareValues turns one comparison of v's value with another variable's
// (tc) into a constraint on v's owner: a compare with a bound built apart,
// or a side of a "during" span (recorded in r.bounds).
func (b *builder) compareValues(r *attrResolution, v string, tc timeCmp) error {
	k := r.owners[v].key()
	o, own := r.owners[tc.other], r.owners[v]
	switch {
	case o.kind == kindVar && own.kind == kindVar:
		ok, reverse := r.answerSide[own.key()], r.answerSide[o.key()]
		if ok == reverse || b.inUnion(o.key()) {
			// Both values on the answer's side, or neither:
			// there is no bound to build apart.
			return unsupported("FILTER comparing two variables, neither a given entity's value (?%s, ?%s)", v, tc.other)
		}
		if reverse {
			return nil // recorded from the other side, the answer's
		}
		ref, err := b.boundValues(tc.other, r.base, append(r.chain, r.pathEdges[tc.other]...), r.boundRefs, r.spent)
		if err != nil {
			return err
		}
		b.g.cons[k] = append(b.g.cons[k], constraint{kind: consCompare, attr: r.paths[v], cmp: tc.cmp, value: "#" + strings.TrimPrefix(ref, "s"), bound: ref})
		return nil
	case o.kind != kindVar && own.kind != kindVar:
		return unsupported("FILTER comparing two given entities' values (?%s, ?%s)", v, tc.other)
	case o.kind == kindVar:
		return nil // recorded from the other side, whose owner is fixed
	}
	if len(r.paths[tc.other]) > 1 {
		// The value is a mediator's (an imprisonment's dates, a
		// geolocation's latitude): "during" the entity would
		// misname it, so it is found from the entity and
		// compared with as a bound.
		ref, ok := r.boundRefs[tc.other]
		if !ok {
			ref = b.add(Step{Op: kgqa.OpFind, Anchors: []string{o.value}, Path: forward(r.paths[tc.other])})
			r.boundRefs[tc.other] = ref
		}
		b.g.cons[k] = append(b.g.cons[k], constraint{kind: consCompare, attr: r.paths[v], cmp: tc.cmp, value: "#" + strings.TrimPrefix(ref, "s"), bound: ref})
		return nil
	}
	s := span{k, o.value}
	bs, seen := r.bounds[s]
	if !seen {
		r.spanOrder = append(r.spanOrder, s)
	}
	switch tc.cmp {
	case ">", ">=":
		bs[0] = true
	case "<", "<=":
		bs[1] = true
	}
	r.bounds[s] = bs
	return nil
}

// boundValues builds the steps that produce the values of variable u,
// which is compared with a value on the answer's side but reached apart
// from it (a presidency's start, from its holder), and returns the last
// one's id. Each bound is built from the graph as it was before any
// (base, with the edges free) so that two values of one node (its start
// and its end) are each reached from its anchors; the edges any bound
// consumed are added to spent.
func (b *builder) boundValues(u string, base map[int]bool, free []int, built map[string]string, spent map[int]bool) (string, error) {
	if ref, ok := built[u]; ok {
		return ref, nil
	}
	b.used = maps.Clone(base)
	for _, i := range free {
		b.used[i] = false
	}
	ref, err := b.node("?" + u)
	if err != nil {
		return "", err
	}
	for i, used := range b.used {
		if used && !base[i] {
			spent[i] = true
		}
	}
	b.used = maps.Clone(base)
	built[u] = ref
	return ref, nil
}

// reach returns the variable nodes connected to node k through unused
// edges between variables (an entity starts a find of its own, so it
// connects nothing).
func (b *builder) reach(k string) map[string]bool {
	seen := map[string]bool{k: true}
	queue := []string{k}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, i := range b.incident(cur) {
			w, _ := other(b.g.edges[i], cur)
			if w.kind == kindVar && !seen[w.key()] {
				seen[w.key()] = true
				queue = append(queue, w.key())
			}
		}
	}
	return seen
}

func appendTime(cs []constraint, c constraint) []constraint {
	for _, x := range cs {
		if x.kind == consTime && x.label == c.label {
			return cs
		}
	}
	return append(cs, c)
}

func (b *builder) trace(v string) (term, []string, error) {
	cur := "?" + v
	var path []string
	for {
		idx := -1
		for i, e := range b.g.edges {
			if !b.used[i] && e.o.key() == cur {
				idx = i
				break
			}
		}
		if idx < 0 {
			if len(path) == 0 {
				return term{}, nil, fmt.Errorf("%w: value not bound by a triple (?%s)", ErrShape, v)
			}
			return term{}, nil, fmt.Errorf("%w: value path without an owner (?%s)", ErrShape, v)
		}
		e := b.g.edges[idx]
		b.used[idx] = true
		path = append([]string{e.rel}, path...)
		u := e.s
		if u.kind != kindVar || u.value == b.g.answer || b.g.attrs[u.value] != nil || len(b.g.types[u.key()]) > 0 || len(b.g.cons[u.key()]) > 0 {
			return u, path, nil
		}
		rest := b.incident(u.key())
		if len(rest) != 1 || b.g.edges[rest[0]].o.key() != u.key() {
			return u, path, nil
		}
		cur = u.key()
	}
}

type literalCons struct {
	path  []Hop
	value string
	typ   string // the literal's literalType
	// entity is true when value is an entity id (an attribute's value
	// such as a gender), not a literal.
	entity bool
}

// attributeRelations lead to a value that many entities share, so that
// the set reached backwards from it is no answer to look for ("the people
// whose gender is male"): a constraint through one filters the set built
// from the node's other conditions instead.
var attributeRelations = map[string]bool{"people.person.gender": true, "fictional_universe.fictional_character.gender": true}

// node builds the steps producing the set of node k and returns the id of
// the last one.
func (b *builder) node(k string) (string, error) {
	if ref, ok := b.done[k]; ok {
		return ref, nil
	}
	if b.busy[k] {
		return "", fmt.Errorf("%w: cycle (through %s)", ErrShape, k)
	}
	if len(k) > 1 && b.g.anchorSets[k[1:]] != nil {
		return "", unsupported("VALUES set used beyond one hop")
	}
	b.busy[k] = true
	defer delete(b.busy, k)
	var contribs []string
	var lits []literalCons
	var ranked []rankedEdge
	for _, i := range b.incident(k) {
		if b.used[i] {
			continue
		}
		b.used[i] = true
		w, hop := other(b.g.edges[i], k)
		switch w.kind {
		case kindEntity:
			if attributeRelations[hop.Relation] {
				lits = append(lits, literalCons{path: []Hop{hop}, value: w.value, entity: true})
				continue
			}
			contribs = append(contribs, b.add(Step{Op: kgqa.OpFind, Anchors: []string{w.value}, Path: []Hop{hop}}))
		case kindLiteral:
			lits = append(lits, literalCons{path: []Hop{hop}, value: w.value, typ: w.literalType()})
		case kindVar:
			if ids, ok, err := b.anchorSet(w); ok || err != nil {
				if err != nil {
					return "", err
				}
				contribs = append(contribs, b.add(Step{Op: kgqa.OpFind, Anchors: ids, Path: []Hop{hop}}))
				continue
			}
			if vals := b.valuePaths(w, hop); vals != nil {
				lits = append(lits, vals...)
				continue
			}
			if b.rankedLeaf(w) {
				ranked = append(ranked, rankedEdge{w: w, hop: hop})
				continue
			}
			ref, skip, err := b.fromVar(w, hop)
			if err != nil {
				return "", err
			}
			if !skip {
				contribs = append(contribs, ref)
			}
		}
	}
	for ui, u := range b.g.unions {
		if b.unionUsed[ui] || !unionHas(u, k) {
			continue
		}
		b.unionUsed[ui] = true
		var refs []string
		for _, br := range u.branches {
			sub := &builder{g: br, steps: b.steps, used: map[int]bool{}, done: map[string]string{}, busy: map[string]bool{}, unionUsed: map[int]bool{}}
			ref, err := sub.node(k)
			if err != nil {
				return "", err
			}
			refs = append(refs, ref)
		}
		contribs = append(contribs, b.add(Step{Op: kgqa.OpUnion, Needs: refs}))
	}
	if len(contribs) == 0 && len(lits) == 0 {
		// Nothing else anchors k: the ranked neighbours are ranked over
		// their whole type, as the query says.
		for _, r := range ranked {
			ref, _, err := b.fromVar(r.w, r.hop)
			if err != nil {
				return "", err
			}
			contribs = append(contribs, ref)
		}
		ranked = nil
	}
	ref, err := b.combine(k, contribs, lits)
	if err != nil {
		return "", err
	}
	for _, r := range ranked {
		ref = b.rankFrom(k, ref, r)
	}
	b.done[k] = ref
	return ref, nil
}

// rankedEdge is an edge from the node being built to a neighbour that is
// ranked (a superlative) and leads nowhere else.
type rankedEdge struct {
	w   term
	hop Hop // from w to the node being built
}

// rankedLeaf reports whether w is a neighbour whose only role is to be
// ranked: a variable with a superlative and no other edge. GrailQA writes
// "the design, among those of this trial, whose trials enrol the most" so:
// the ranking runs over the neighbours of the anchored candidates, not
// over every node of w's type.
func (b *builder) rankedLeaf(w term) bool {
	wk := w.key()
	if w.value == b.g.answer || len(b.incident(wk)) > 0 || b.inUnion(wk) || b.g.anchorSets[w.value] != nil {
		return false
	}
	if _, known := b.done[wk]; known {
		return false
	}
	for _, c := range b.g.cons[wk] {
		if c.kind == consSuperlative {
			return true
		}
	}
	return false
}

// rankFrom anchors a ranked neighbour to the candidates of k (ref): the
// neighbours of the candidates, ranked, then the candidates they belong
// to.
func (b *builder) rankFrom(k, ref string, r rankedEdge) string {
	wk := r.w.key()
	out := Hop{Relation: r.hop.Relation, Reverse: !r.hop.Reverse}
	w := b.add(Step{Op: kgqa.OpFind, Needs: []string{ref}, Path: []Hop{out}, Types: b.g.types[wk]})
	w = b.constrain(wk, w)
	b.done[wk] = w
	back := b.add(Step{Op: kgqa.OpFind, Needs: []string{w}, Path: []Hop{r.hop}, Types: b.g.types[k]})
	return b.add(Step{Op: kgqa.OpIntersect, Needs: []string{back, ref}})
}

func unionHas(u union, k string) bool {
	for _, br := range u.branches {
		found := false
		for _, e := range br.edges {
			if e.s.key() == k || e.o.key() == k {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// combine intersects a node's contributions, then applies its literal
// filters and its compare/superlative/time constraints.
func (b *builder) combine(k string, contribs []string, lits []literalCons) (string, error) {
	types := b.g.types[k]
	var ref string
	switch {
	case len(contribs) > 1:
		ref = b.add(Step{Op: kgqa.OpIntersect, Needs: contribs, Types: types})
	case len(contribs) == 1:
		ref = contribs[0]
		if s := b.step(ref); s != nil && len(types) > 0 {
			s.Types = append(s.Types, types...)
		}
	case len(lits) > 0 && lits[0].entity:
		ref = b.add(Step{Op: kgqa.OpFind, Anchors: []string{lits[0].value}, Path: lits[0].path, Types: types})
		lits = lits[1:]
	case len(lits) > 0:
		ref = b.add(Step{Op: kgqa.OpFind, Literal: lits[0].value, LiteralType: lits[0].typ, Path: lits[0].path, Types: types})
		lits = lits[1:]
	case len(types) > 0:
		ref = b.add(Step{Op: kgqa.OpFind, Types: types})
	default:
		return "", fmt.Errorf("%w: nothing anchors a node (%s)", ErrShape, k)
	}
	for _, l := range lits {
		if l.entity {
			ref = b.add(Step{Op: kgqa.OpFilter, Needs: []string{ref}, Anchors: []string{l.value}, Path: l.path})
			continue
		}
		ref = b.add(Step{Op: kgqa.OpFilter, Needs: []string{ref}, Literal: l.value, LiteralType: l.typ, Path: l.path})
	}
	return b.constrain(k, ref), nil
}

// constrain applies node k's compare, superlative and time constraints to
// the set ref.
func (b *builder) constrain(k, ref string) string {
	for _, c := range b.g.cons[k] {
		attr := attrName(c.attr)
		switch c.kind {
		case consCompare:
			needs := []string{ref}
			if c.bound != "" {
				needs = append(needs, c.bound)
			}
			ref = b.add(Step{Op: kgqa.OpCompare, Needs: needs, Path: forward(c.attr), Args: &kgqa.Args{Attribute: attr, Cmp: c.cmp, Value: c.value},
				ValueType: strings.TrimPrefix(c.datatype, "http://www.w3.org/2001/XMLSchema#")})
		case consSuperlative:
			ref = b.add(Step{Op: kgqa.OpSuperlative, Needs: []string{ref}, Path: forward(c.attr), Args: &kgqa.Args{Attribute: attr, Order: c.order}})
		case consTime:
			ref = b.add(Step{Op: kgqa.OpFilter, Needs: []string{ref}, Qualifiers: []Qualifier{timeQualifier(c)}})
		}
	}
	return ref
}

func timeQualifier(c constraint) Qualifier {
	q := Qualifier{Cmp: c.cmp, Value: c.value, During: c.label, Open: c.open, ValueType: strings.TrimPrefix(c.datatype, xsdNS)}
	if len(c.attr) > 0 {
		q.Relation = c.attr[0]
	}
	return q
}

func forward(rels []string) []Hop {
	out := make([]Hop, len(rels))
	for i, r := range rels {
		out[i] = Hop{Relation: r}
	}
	return out
}

// attrName is the readable attribute of a value path: its last relation,
// unless that is the generic value of a measurement mediator
// (measurement_unit.dated_integer.number), where the relation into the
// mediator says what is measured ("number of postgraduates").
func attrName(rels []string) string {
	if len(rels) == 0 {
		return ""
	}
	last := rels[len(rels)-1]
	if len(rels) > 1 && strings.HasPrefix(last, "measurement_unit.") {
		return readable(rels[len(rels)-2])
	}
	return readable(last)
}

// anchorSet returns the entities of a VALUES variable with several rows.
// Such a variable may only be the start of one hop: more triples or a type
// on it would need a per-entity check the plan cannot state.
func (b *builder) anchorSet(w term) ([]string, bool, error) {
	ids := b.g.anchorSets[w.value]
	if ids == nil {
		return nil, false, nil
	}
	wk := w.key()
	if len(b.incident(wk)) > 0 || len(b.g.types[wk]) > 0 || len(b.g.cons[wk]) > 0 || w.value == b.g.answer {
		return nil, false, unsupported("VALUES set used beyond one hop")
	}
	return ids, true, nil
}

// valuePaths handles a variable that only leads to literals (a mediator
// such as a film cut holding a runtime): each literal becomes a fixed-value
// condition on the node being built, through w. It returns nil otherwise.
func (b *builder) valuePaths(w term, hop Hop) []literalCons {
	wk := w.key()
	rest := b.incident(wk)
	if len(rest) == 0 || w.value == b.g.answer || len(b.g.types[wk]) > 0 || len(b.g.cons[wk]) > 0 || b.inUnion(wk) {
		return nil
	}
	for _, i := range rest {
		if e := b.g.edges[i]; e.s.key() != wk || e.o.kind != kindLiteral {
			return nil
		}
	}
	var out []literalCons
	for _, i := range rest {
		b.used[i] = true
		e := b.g.edges[i]
		out = append(out, literalCons{path: []Hop{{Relation: e.rel, Reverse: true}, hop}, value: e.o.value, typ: e.o.literalType()})
	}
	return out
}
