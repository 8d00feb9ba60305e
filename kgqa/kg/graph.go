package kg

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
	"github.com/parog/parog-go/kgqa/kg/sparqlgate"
)

const xsdNS = "http://www.w3.org/2001/XMLSchema#"

// Maximum mediator nodes expanded per Neighbors call, and per query.
const (
	maxMediators     = 200
	mediatorsPerCall = 50
	// maxExpansionRows caps the rows of one mediator or statement query.
	// It is no fact limit (rows include noise relations and the way back
	// to the head, and Neighbors cuts facts to its limit itself), only a
	// bound on what a node with unexpectedly many edges can cost.
	maxExpansionRows = 10_000
	maxSearchLimit   = 100
)

// store implements Graph on an executor: it validates ids, builds the
// queries, and maps results through the dialect.
type store struct {
	d             *dialect
	exec          backend.Backend
	neighborLimit int
	// fullText sends searches that miss the exact name to Virtuoso's
	// free-text index (bif:contains) instead of scanning every name.
	fullText bool
	// scanBudget is the number of triples a raw query may read on a
	// backend.Evaluator.
	scanBudget int
	// rowBudget bounds the intermediate rows of a raw query on a
	// backend.Evaluator.
	rowBudget int
	// relIndex is whether the backend holds a relation index
	// (relIndexUnknown until a listing looks; see relindex.go).
	relIndex atomic.Int32
	// batchRows caps the rows of one batched query (maxBatchRows; tests
	// lower it to reach the cap).
	batchRows int
}

var _ Graph = (*store)(nil)

// Options tune a Graph built by New.
type Options struct {
	// NeighborLimit is the default and maximum number of facts per
	// Neighbors call (200 when <= 0).
	NeighborLimit int
	// FullText sends searches that miss the exact name to Virtuoso's
	// free-text index (bif:contains); only a Virtuoso backend has one.
	FullText bool
	// ScanBudget is the number of triples a raw query (Select) may read on
	// an in-process backend (DefaultScanBudget when <= 0).
	ScanBudget int
	// RowBudget is the number of intermediate rows a raw query (Select)
	// may build on an in-process backend (DefaultRowBudget when <= 0).
	RowBudget int
	// NoRelationIndex lists relations from the facts even where the
	// backend holds a relation index (kg.relation_index: off).
	NoRelationIndex bool
}

// New builds a Graph on b: it validates ids, builds every query with
// dialect d, and maps the results through it. d must come from Freebase,
// Wikidata or NewDialect. The Graph owns b and closes it on Close.
func New(d Dialect, b backend.Backend, o Options) (Graph, error) {
	dd, ok := d.(*dialect)
	if !ok {
		return nil, fmt.Errorf("kg: new: dialect %T was not made by Freebase or Wikidata", d)
	}
	if o.NeighborLimit <= 0 {
		o.NeighborLimit = 200
	}
	if o.ScanBudget <= 0 {
		o.ScanBudget = DefaultScanBudget
	}
	if o.RowBudget <= 0 {
		o.RowBudget = DefaultRowBudget
	}
	s := &store{d: dd, exec: b, neighborLimit: o.NeighborLimit, fullText: o.FullText, scanBudget: o.ScanBudget,
		rowBudget: o.RowBudget, batchRows: maxBatchRows}
	if o.NoRelationIndex {
		s.relIndex.Store(relIndexAbsent)
	}
	return s, nil
}

// The kinds of query the store sends, as Stats logs them.
const (
	kindRelations      = "relations"
	kindRelationsBatch = "relations-batch"
	kindNeighbors      = "neighbors"
	kindNeighborsBatch = "neighbors-batch"
	kindNames          = "names"
	kindMediators      = "mediators"
	kindStatements     = "statements"
	kindName           = "name"
	kindSearch         = "search-" // + exact, fold or text
	kindCount          = "count"
	kindLinked         = "linked"
	kindSelect         = "select"
)

// run sends q, a query of kind anchored at entity ("" for none), and logs
// it in the context's Stats.
func (s *store) run(ctx context.Context, kind, entity, q string) (*backend.Table, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kgqa.RecorderFrom(ctx).AddQuery(ctx, q)
	start := time.Now()
	t, err := s.exec.Query(ctx, q)
	rows := 0
	if t != nil {
		rows = len(t.Rows)
	}
	StatsFrom(ctx).addQuery(kind, entity, rows, time.Since(start), err != nil)
	return t, err
}

// Dialect implements Graph.
func (s *store) Dialect() Dialect { return s.d }

// Close implements Graph.
func (s *store) Close() error { return s.exec.Close() }

// Relations implements Graph.
func (s *store) Relations(ctx context.Context, id string) ([]kgqa.Relation, error) {
	if err := s.d.checkEntity(id); err != nil {
		return nil, err
	}
	if s.d.v.expansion == expandMediator {
		rows, err := s.relationRows(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("kg: relations of %s: %w", id, err)
		}
		return s.relationList(rows), nil
	}
	q, err := s.d.relationsQuery(id)
	if err != nil {
		return nil, err
	}
	t, err := s.run(ctx, kindRelations, id, q)
	if err != nil {
		return nil, fmt.Errorf("kg: relations of %s: %w", id, err)
	}
	return s.relationList(t.Rows), nil
}

// relationList reads the rows of a relations query (?r, ?dir): the
// dialect's relations, noise dropped, once each, outgoing first, by id.
func (s *store) relationList(rows []map[string]backend.Node) []kgqa.Relation {
	seen := make(map[kgqa.Relation]bool)
	var out []kgqa.Relation
	for _, row := range rows {
		rel, ok := s.d.relationRow(row["r"].Value, row["dir"].Value)
		if !ok || s.d.Noise(rel.ID) || seen[rel] {
			continue
		}
		seen[rel] = true
		out = append(out, rel)
	}
	slices.SortFunc(out, func(a, b kgqa.Relation) int {
		return cmp.Or(cmp.Compare(dirRank(a.Dir), dirRank(b.Dir)), strings.Compare(a.ID, b.ID))
	})
	return out
}

func dirRank(d kgqa.Direction) int {
	if d == kgqa.Out {
		return 0
	}
	return 1
}

// Neighbors implements Graph. The limit counts facts as returned, after
// mediator and statement expansion. A mediator tail is no fact but leads to
// several (or to none, when its only other edge leads back to the head), so
// the tails along rel are read in a window that starts at limit and doubles,
// up to the store's neighbor limit, until the window's tails give limit
// facts or there are no more tails.
func (s *store) Neighbors(ctx context.Context, id string, rel kgqa.Relation, limit int) ([]kgqa.Fact, error) {
	if err := s.d.checkEntity(id); err != nil {
		return nil, err
	}
	if err := s.d.checkRelation(rel); err != nil {
		return nil, err
	}
	limit = clampLimit(limit, s.neighborLimit)
	for window := limit; ; window = min(2*window, s.neighborLimit) {
		facts, tails, err := s.neighborWindow(ctx, id, rel, window)
		if err != nil {
			return nil, err
		}
		if len(facts) >= limit || tails < window || window >= s.neighborLimit {
			sortFacts(facts)
			return facts[:min(limit, len(facts))], nil
		}
	}
}

// neighborWindow reads the first window tails along rel (in term order, so
// every backend reads the same ones) and returns their facts, mediators and
// statements expanded, and the number of tails read.
func (s *store) neighborWindow(ctx context.Context, id string, rel kgqa.Relation, window int) ([]kgqa.Fact, int, error) {
	q, err := s.d.neighborsQuery(id, rel, window)
	if err != nil {
		return nil, 0, err
	}
	t, err := s.run(ctx, kindNeighbors, id, q)
	if err != nil {
		return nil, 0, fmt.Errorf("kg: neighbors of %s via %s: %w", id, rel.ID, err)
	}
	facts := s.oneHop(id, rel, t.Rows)
	if err := s.fillNames(ctx, facts); err != nil {
		return nil, 0, fmt.Errorf("kg: neighbors of %s via %s: %w", id, rel.ID, err)
	}
	if facts, err = s.expandTails(ctx, id, rel, facts); err != nil {
		return nil, 0, err
	}
	return facts, len(t.Rows), nil
}

// oneHop reads the tails of rows (?t) as facts from id along rel, once
// each, in the rows' order, without names.
func (s *store) oneHop(id string, rel kgqa.Relation, rows []map[string]backend.Node) []kgqa.Fact {
	head := kgqa.Term{ID: id}
	var facts []kgqa.Fact
	seen := make(map[string]bool)
	for _, row := range rows {
		tail, ok := s.term(row["t"])
		if !ok || seen[tail.Key()] {
			continue
		}
		seen[tail.Key()] = true
		facts = append(facts, kgqa.Fact{Head: head, Path: []string{rel.ID}, Dir: rel.Dir, Tail: tail})
	}
	return facts
}

// expandTails replaces the nameless mediator tails of facts (named by
// fillNames) by the two-hop facts through them, or adds the statements'
// facts on Wikidata. It may reuse facts' array.
func (s *store) expandTails(ctx context.Context, id string, rel kgqa.Relation, facts []kgqa.Fact) ([]kgqa.Fact, error) {
	var more []kgqa.Fact
	var err error
	switch s.d.v.expansion {
	case expandMediator:
		var mediators []string
		kept := facts[:0]
		for _, f := range facts {
			if f.Tail.Name == "" && s.d.ValidEntity(f.Tail.ID) {
				mediators = append(mediators, f.Tail.ID)
				continue
			}
			kept = append(kept, f)
		}
		facts = kept
		more, err = s.expand(ctx, id, rel, mediators)
	case expandQualifier:
		more, err = s.statements(ctx, id, rel, facts)
	}
	if err != nil {
		return nil, err
	}
	return append(facts, more...), nil
}

// fillNames sets the names of the entity tails of facts, in chunks of
// mediatorsPerCall subjects per query.
func (s *store) fillNames(ctx context.Context, facts []kgqa.Fact) error {
	var ids []string
	seen := make(map[string]bool)
	for _, f := range facts {
		if s.d.ValidEntity(f.Tail.ID) && !seen[f.Tail.ID] {
			seen[f.Tail.ID] = true
			ids = append(ids, f.Tail.ID)
		}
	}
	names := make(map[string]string, len(ids))
	for chunk := range slices.Chunk(ids, mediatorsPerCall) {
		q, err := s.d.namesQuery(chunk)
		if err != nil {
			return fmt.Errorf("names: %w", err)
		}
		t, err := s.run(ctx, kindNames, "", q)
		if err != nil {
			return fmt.Errorf("names: %w", err)
		}
		for _, row := range t.Rows {
			id := s.d.localID(row["t"].Value)
			if n := row["n"].Value; names[id] == "" || n < names[id] {
				names[id] = n // the least name, so every backend picks the same
			}
		}
	}
	for i := range facts {
		if n, ok := names[facts[i].Tail.ID]; ok {
			facts[i].Tail.Name = n
		}
	}
	return nil
}

// expand reads two-hop facts through Freebase mediators.
func (s *store) expand(ctx context.Context, id string, rel kgqa.Relation, mediators []string) ([]kgqa.Fact, error) {
	if len(mediators) > maxMediators {
		mediators = mediators[:maxMediators]
	}
	var facts []kgqa.Fact
	for chunk := range slices.Chunk(mediators, mediatorsPerCall) {
		q, err := s.d.mediatorQuery(id, chunk)
		if err != nil {
			return nil, fmt.Errorf("kg: neighbors of %s via %s: expand: %w", id, rel.ID, err)
		}
		t, err := s.run(ctx, kindMediators, id, q)
		if err != nil {
			return nil, fmt.Errorf("kg: neighbors of %s via %s: expand: %w", id, rel.ID, err)
		}
		for _, row := range t.Rows {
			if f, ok := s.twoHop(id, rel, row); ok {
				facts = append(facts, f)
			}
		}
	}
	facts = dedupeTwoHop(facts)
	if err := s.fillNames(ctx, facts); err != nil {
		return nil, fmt.Errorf("kg: neighbors of %s via %s: expand: %w", id, rel.ID, err)
	}
	return facts, nil
}

func (s *store) twoHop(id string, rel kgqa.Relation, row map[string]backend.Node) (kgqa.Fact, bool) {
	var r2 string
	if s.d.v.expansion == expandQualifier {
		r, ok := strings.CutPrefix(row["r"].Value, WikidataQualifierNS)
		if !ok {
			r, ok = strings.CutPrefix(row["r"].Value, WikidataStatementNS)
		}
		if !ok {
			r, ok = strings.CutPrefix(row["r"].Value, WikidataClaimNS)
		}
		if !ok || !s.d.ValidRelation(r) {
			return kgqa.Fact{}, false
		}
		r2 = r
	} else {
		r, ok := s.d.relationID(row["r"].Value)
		if !ok {
			return kgqa.Fact{}, false
		}
		r2 = r
	}
	if s.d.Noise(r2) {
		return kgqa.Fact{}, false
	}
	tail, ok := s.term(row["t"])
	if !ok || tail.ID == id {
		// The way back to the head (the query filters it too, but not
		// every engine honours a FILTER next to a UNION).
		return kgqa.Fact{}, false
	}
	m := row["m"].Value
	if s.d.v.expansion == expandQualifier {
		m = strings.TrimPrefix(m, WikidataEntityNS+"statement/")
	} else {
		m = s.d.localID(m)
	}
	dir2 := kgqa.Out
	if row["d"].Value == string(kgqa.In) {
		dir2 = kgqa.In
	}
	return kgqa.Fact{Head: kgqa.Term{ID: id}, Path: []string{rel.ID, r2}, Dir: rel.Dir, Dir2: dir2, Mediator: m, Tail: tail}, true
}

// dedupeTwoHop keeps one fact per mediator, relation, direction and tail,
// and drops a fact along an incoming edge when an outgoing edge of the same
// mediator reaches the same tail. Freebase stores most mediator roles
// twice, as the CVT's property and as its reverse on the participant
// (film.performance.film and film.film.starring); the CVT's own property
// is the schema's reading, and the reverse adds only noise.
func dedupeTwoHop(facts []kgqa.Fact) []kgqa.Fact {
	byOut := make(map[string]bool)
	for _, f := range facts {
		if f.Dir2 != kgqa.In {
			byOut[f.Mediator+"|"+f.Tail.Key()] = true
		}
	}
	seen := make(map[string]bool)
	out := facts[:0]
	for _, f := range facts {
		if f.Dir2 == kgqa.In && byOut[f.Mediator+"|"+f.Tail.Key()] {
			continue
		}
		k := f.Mediator + "|" + string(f.Dir2) + "|" + f.Path[1] + "|" + f.Tail.Key()
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// term maps a result term to a Term without its name; blank nodes are
// dropped (they have no stable id to ask about later).
func (s *store) term(t backend.Node) (kgqa.Term, bool) {
	switch t.Kind {
	case backend.NodeIRI:
		return kgqa.Term{ID: s.d.localID(t.Value)}, true
	case backend.NodeLiteral:
		return literalTerm(t), true
	}
	return kgqa.Term{}, false
}

func sortFacts(facts []kgqa.Fact) {
	slices.SortStableFunc(facts, func(a, b kgqa.Fact) int {
		// Facts through one mediator stay together, in relation order.
		return cmp.Or(
			cmp.Compare(len(a.Path), len(b.Path)),
			strings.Compare(a.Path[0], b.Path[0]),
			strings.Compare(a.Mediator, b.Mediator),
			strings.Compare(strings.Join(a.Path, " "), strings.Join(b.Path, " ")),
			strings.Compare(string(a.Dir2), string(b.Dir2)),
			strings.Compare(a.Tail.Key(), b.Tail.Key()),
		)
	})
}

// Name implements Graph.
func (s *store) Name(ctx context.Context, id string) (string, error) {
	if err := s.d.checkEntity(id); err != nil {
		return "", err
	}
	q, err := s.d.nameQuery(id)
	if err != nil {
		return "", err
	}
	t, err := s.run(ctx, kindName, id, q)
	if err != nil {
		return "", fmt.Errorf("kg: name of %s: %w", id, err)
	}
	best := ""
	for _, row := range t.Rows {
		n := row["n"]
		if strings.EqualFold(n.Lang, s.d.v.lang) {
			return n.Value, nil
		}
		if best == "" {
			best = n.Value
		}
	}
	return best, nil
}

// Search implements Graph. It looks the name up exactly, then, when that
// finds nothing, by full text (Virtuoso's text index, when the store was
// opened with it) or else by a case-insensitive scan of every name, which
// is too slow on a full Freebase and so never follows a full-text search.
func (s *store) Search(ctx context.Context, name string, limit int) ([]kgqa.Entity, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, fmt.Errorf("kg: search: empty name")
	}
	limit = clampLimit(limit, maxSearchLimit)
	second := s.d.searchFoldQuery
	secondKind := kindSearch + "fold"
	if s.fullText {
		second, secondKind = s.d.searchTextQuery, kindSearch+"text"
	}
	var t *backend.Table
	for i, build := range []func(string, int) (string, error){s.d.searchExactQuery, second} {
		q, err := build(name, limit)
		if errors.Is(err, errNoTextWords) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("kg: search: %w", err)
		}
		kind := kindSearch + "exact"
		if i > 0 {
			kind = secondKind
		}
		if t, err = s.run(ctx, kind, "", q); err != nil {
			return nil, fmt.Errorf("kg: search %q: %w", name, err)
		}
		if len(t.Rows) > 0 {
			break
		}
	}
	seen := make(map[string]bool)
	var out []kgqa.Entity
	for _, row := range t.Rows {
		e := row["e"]
		id := s.d.localID(e.Value)
		if e.Kind != backend.NodeIRI || !s.d.ValidEntity(id) || seen[id] {
			continue
		}
		seen[id] = true
		n := name
		if v, ok := row["n"]; ok {
			n = v.Value
		}
		out = append(out, kgqa.Entity{ID: id, Name: n})
	}
	slices.SortStableFunc(out, func(a, b kgqa.Entity) int {
		return cmp.Or(
			cmp.Compare(searchRank(a.Name, name), searchRank(b.Name, name)),
			cmp.Compare(utf8.RuneCountInString(a.Name), utf8.RuneCountInString(b.Name)),
			strings.Compare(a.ID, b.ID),
		)
	})
	return out, nil
}

// searchRank orders search results: the name as given, then the name in
// another case, then the rest (full-text matches holding the words).
func searchRank(got, want string) int {
	switch {
	case got == want:
		return 0
	case strings.EqualFold(got, want):
		return 1
	}
	return 2
}

// Select implements Graph. The query passes the read-only gate
// (sparqlgate), and only the gate's rewriting of it is sent. A backend
// that cannot cancel an evaluation (backend.Evaluator) gets only queries
// the gate finds bounded, with a scan budget.
func (s *store) Select(ctx context.Context, query string) (*Results, error) {
	q, err := sparqlgate.Parse(query)
	if err == nil && q.Form != "SELECT" {
		err = errors.New("only SELECT queries are accepted here")
	}
	_, inProcess := s.exec.(backend.Evaluator)
	if err == nil && inProcess {
		err = q.Bounded()
	}
	if err != nil {
		return nil, fmt.Errorf("kg: select: %w: %w", ErrQuery, err)
	}
	if inProcess {
		ctx = backend.WithScanBudget(ctx, s.scanBudget)
		ctx = backend.WithRowBudget(ctx, s.rowBudget)
	}
	t, err := s.run(ctx, kindSelect, "", q.String())
	if err != nil {
		return nil, fmt.Errorf("kg: select: %w", err)
	}
	res := &Results{Vars: t.Vars, Rows: make([]map[string]kgqa.Term, 0, len(t.Rows))}
	for _, row := range t.Rows {
		m := make(map[string]kgqa.Term, len(row))
		for k, v := range row {
			switch v.Kind {
			case backend.NodeIRI:
				m[k] = kgqa.Term{ID: s.d.localID(v.Value)}
			case backend.NodeBlank:
				m[k] = kgqa.Term{ID: "_:" + v.Value}
			default:
				m[k] = literalTerm(v)
			}
		}
		res.Rows = append(res.Rows, m)
	}
	return res, nil
}

// literalTerm maps a literal, writing floating-point numbers in one
// canonical form: engines differ (Virtuoso answers "2850.0" for a stored
// "2850"^^xsd:float), and the same fact must read the same from every
// backend.
func literalTerm(t backend.Node) kgqa.Term {
	v := t.Value
	switch t.Datatype {
	case xsdNS + "float", xsdNS + "double":
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			bits := 64
			if t.Datatype == xsdNS+"float" {
				bits = 32
			}
			v = strconv.FormatFloat(f, 'g', -1, bits)
		}
	}
	return kgqa.Term{Name: v, Datatype: t.Datatype, Lang: t.Lang}
}
