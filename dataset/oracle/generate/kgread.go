package generate

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/sparql2plan"
)

// Selector runs a raw SELECT on a KG (kg.Graph is one).
type Selector interface {
	Select(ctx context.Context, query string) (*kg.Results, error)
}

// Ids read back from the KG are checked before they are written into a
// query: an IRI outside the Freebase namespace, or one with characters a
// prefixed name cannot hold, is passed over.
var (
	entityID   = regexp.MustCompile(`^[mg]\.[0-9a-z_]+$`)
	relationID = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+){2}$`)
)

const prefix = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"

// langFilter keeps the English (or untagged) name of a node, as the
// benchmarks' gold queries do.
const langFilter = "FILTER (!isLiteral(?n) OR lang(?n) = '' OR langMatches(lang(?n), 'en'))"

// relCount is one relation of an entity and the number of its values.
type relCount struct {
	rel string
	n   int
}

// value is one object of a fact: a named entity, a nameless (mediator)
// node or a literal (with its datatype or language).
type value struct {
	id, name      string
	lex, dt, lang string
}

func (v value) named() bool    { return v.id != "" && v.name != "" }
func (v value) mediator() bool { return v.id != "" && v.name == "" }
func (v value) literal() bool  { return v.id == "" }

// reader reads the KG through raw SELECTs and remembers what it read.
type reader struct {
	g     Selector
	noise []string
	rels  map[string][]relCount
	vals  map[string][]value
	// name holds the names of the entities read so far.
	name map[string]string
	// queries counts the SELECTs sent.
	queries int
}

func newReader(g Selector) *reader {
	return &reader{g: g, noise: kg.DefaultFreebaseNoise, rels: map[string][]relCount{}, vals: map[string][]value{}, name: map[string]string{}}
}

// run sends one query, in the standard SPARQL every backend reads.
func (r *reader) run(ctx context.Context, q string) (*kg.Results, error) {
	r.queries++
	norm, _ := sparql2plan.Normalize(q)
	res, err := r.g.Select(ctx, norm)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	return res, nil
}

func (r *reader) isNoise(rel string) bool {
	if !relationID.MatchString(rel) {
		return true
	}
	for _, p := range r.noise {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// relations lists the outgoing relations of entity id with their value
// counts, noise left out, sorted by relation.
func (r *reader) relations(ctx context.Context, id string) ([]relCount, error) {
	if out, ok := r.rels[id]; ok {
		return out, nil
	}
	if !entityID.MatchString(id) {
		return nil, nil
	}
	res, err := r.run(ctx, prefix+"SELECT ?r (COUNT(?o) AS ?c) WHERE { ns:"+id+" ?r ?o . } GROUP BY ?r")
	if err != nil {
		return nil, err
	}
	var out []relCount
	for _, row := range res.Rows {
		rel := row["r"].ID
		n, err := strconv.Atoi(row["c"].Name)
		if err != nil || r.isNoise(rel) {
			continue
		}
		out = append(out, relCount{rel: rel, n: n})
	}
	slices.SortFunc(out, func(a, b relCount) int { return strings.Compare(a.rel, b.rel) })
	r.rels[id] = out
	return out, nil
}

// values lists the objects of (id, rel, ?), sorted, with the names of
// named entities.
func (r *reader) values(ctx context.Context, id, rel string) ([]value, error) {
	key := id + " " + rel
	if out, ok := r.vals[key]; ok {
		return out, nil
	}
	if !entityID.MatchString(id) || !relationID.MatchString(rel) {
		return nil, nil
	}
	// The language of a name is checked here, not in the query: a FILTER
	// inside the OPTIONAL makes the embedded store scan every name.
	q := prefix + "SELECT ?o ?n WHERE { ns:" + id + " ns:" + rel + " ?o . OPTIONAL { ?o ns:type.object.name ?n . } } LIMIT 1000"
	res, err := r.run(ctx, q)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []value
	for _, row := range res.Rows {
		o := row["o"]
		v := value{id: o.ID}
		if n := row["n"]; n.Lang == "" || n.Lang == "en" {
			v.name = n.Name
		}
		if o.ID == "" {
			v.lex, v.dt, v.lang = o.Name, o.Datatype, o.Lang
		} else if !entityID.MatchString(o.ID) {
			continue
		}
		k := v.id + "\x00" + v.lex
		if seen[k] {
			// A node with two English names: keep the smaller, so the
			// choice does not depend on the row order.
			for i := range out {
				if out[i].id == v.id && v.id != "" && v.name < out[i].name {
					out[i].name = v.name
				}
			}
			continue
		}
		seen[k] = true
		if v.named() {
			r.name[v.id] = v.name
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b value) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return strings.Compare(a.lex, b.lex)
	})
	r.vals[key] = out
	return out, nil
}

// poolMax bounds the pool: Virtuoso sorts at most 10,000 rows for a
// page, so topics are drawn from the first 10,000 named entities in id
// order (on a densified world, the real ones sort first) and, half the
// time, from their neighbours.
const poolMax = 10_000

// pool reads the named entities topics are drawn from, in id order, in
// one query (each sorted page costs a sort of every name).
func (r *reader) pool(ctx context.Context) ([]kgqa.Entity, error) {
	q := fmt.Sprintf("%sSELECT ?e ?n WHERE { ?e ns:type.object.name ?n . } ORDER BY ?e ?n LIMIT %d", prefix, poolMax)
	res, err := r.run(ctx, q)
	if err != nil {
		return nil, err
	}
	var es []kgqa.Entity
	seen := map[string]bool{}
	for _, row := range res.Rows {
		id, name := row["e"].ID, row["n"].Name
		if !entityID.MatchString(id) || seen[id] || name == "" || (row["n"].Lang != "" && row["n"].Lang != "en") {
			continue
		}
		seen[id] = true
		r.name[id] = name
		es = append(es, kgqa.Entity{ID: id, Name: name})
	}
	if len(es) == 0 {
		return nil, fmt.Errorf("generate: the KG has no named entity (type.object.name)")
	}
	return es, nil
}

// answers runs a gold query and returns its first column's values.
func (r *reader) answers(ctx context.Context, query string) ([]kgqa.Term, error) {
	res, err := r.run(ctx, query)
	if err != nil {
		return nil, err
	}
	var out []kgqa.Term
	seen := map[string]bool{}
	if len(res.Vars) == 0 {
		return nil, nil
	}
	for _, row := range res.Rows {
		t, ok := row[res.Vars[0]]
		if !ok || seen[t.Key()] {
			continue
		}
		seen[t.Key()] = true
		out = append(out, t)
	}
	return out, nil
}

// names returns the names of ids, reading those not yet seen; an entity
// without a name is left out.
func (r *reader) names(ctx context.Context, ids []string) (map[string]string, error) {
	var missing []string
	for _, id := range ids {
		if _, ok := r.name[id]; !ok && entityID.MatchString(id) {
			missing = append(missing, "ns:"+id)
		}
	}
	if len(missing) > 0 {
		q := prefix + "SELECT ?e ?n WHERE { VALUES ?e { " + strings.Join(missing, " ") + " } ?e ns:type.object.name ?n . " + langFilter + " }"
		res, err := r.run(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, row := range res.Rows {
			id, n := row["e"].ID, row["n"].Name
			if old, ok := r.name[id]; !ok || n < old {
				r.name[id] = n
			}
		}
	}
	out := map[string]string{}
	for _, id := range ids {
		if n, ok := r.name[id]; ok && n != "" {
			out[id] = n
		}
	}
	return out, nil
}

// rows runs a query and returns its rows.
func (r *reader) rows(ctx context.Context, q string) ([]map[string]kgqa.Term, error) {
	res, err := r.run(ctx, q)
	if err != nil {
		return nil, err
	}
	return res.Rows, nil
}
