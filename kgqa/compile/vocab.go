package compile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/parog/parog-go/kgqa"
)

// vocab is a dialect's namespaces. Ids are checked twice before they are
// printed: by the dialect's grammar and by safeID, the compiler's own
// (letters, digits, '.', '_' only), so that a lax dialect cannot open a
// hole in the query.
type vocab struct {
	d        Dialect
	prefixes string
	entity   string // prefix of entities
	direct   string // prefix of one-hop relations
	typePred string // type membership predicate ("" when not supported)
	wikidata bool
	entityNS string // the IRI the entity prefix stands for
}

var (
	safeID = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$`)
	// typeID is a Freebase type id: domain.type (or base.x.y).
	typeID = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}(\.[a-z0-9_]{1,64}){1,3}$`)
)

const xsdNS = "http://www.w3.org/2001/XMLSchema#"

func newVocab(d Dialect) (*vocab, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: no dialect", ErrUnsupported)
	}
	switch d.Name() {
	case "freebase":
		return &vocab{d: d, entity: "ns:", direct: "ns:", typePred: "ns:type.object.type", entityNS: "http://rdf.freebase.com/ns/",
			prefixes: "PREFIX ns: <http://rdf.freebase.com/ns/>\nPREFIX xsd: <" + xsdNS + ">\n"}, nil
	case "wikidata":
		return &vocab{d: d, entity: "wd:", direct: "wdt:", wikidata: true, entityNS: "http://www.wikidata.org/entity/",
			prefixes: "PREFIX wd: <http://www.wikidata.org/entity/>\nPREFIX wdt: <http://www.wikidata.org/prop/direct/>\n" +
				"PREFIX p: <http://www.wikidata.org/prop/>\nPREFIX ps: <http://www.wikidata.org/prop/statement/>\n" +
				"PREFIX pq: <http://www.wikidata.org/prop/qualifier/>\nPREFIX wikibase: <http://wikiba.se/ontology#>\n" +
				"PREFIX xsd: <" + xsdNS + ">\n"}, nil
	}
	return nil, fmt.Errorf("%w: dialect %q", ErrUnsupported, d.Name())
}

// entityRef prints an entity id as a prefixed name.
func (v *vocab) entityRef(id string) (string, error) {
	if !v.d.ValidEntity(id) || !safeID.MatchString(id) {
		return "", fmt.Errorf("%w: entity id %q", ErrInvalid, clipText(id))
	}
	return v.entity + id, nil
}

// inExpr prints a term for a FILTER expression: a prefixed entity as its
// full IRI (goRDFlib's parser reads no prefixed name in an expression).
func (v *vocab) inExpr(term string) string {
	if id, ok := strings.CutPrefix(term, v.entity); ok {
		return "<" + v.entityNS + id + ">"
	}
	return term
}

// relationRef prints a relation id under prefix (v.direct, or a Wikidata
// statement prefix).
func (v *vocab) relationRef(prefix, id string) (string, error) {
	if !v.d.ValidRelation(id) || !safeID.MatchString(id) {
		return "", fmt.Errorf("%w: relation id %q", ErrInvalid, clipText(id))
	}
	return prefix + id, nil
}

// typeRef prints a type id.
func (v *vocab) typeRef(id string) (string, error) {
	if v.typePred == "" {
		return "", fmt.Errorf("%w: types in dialect %q", ErrUnsupported, v.d.Name())
	}
	if !typeID.MatchString(id) {
		return "", fmt.Errorf("%w: type id %q", ErrInvalid, clipText(id))
	}
	return "ns:" + id, nil
}

func checkDir(d kgqa.Direction) error {
	if d != kgqa.Out && d != kgqa.In {
		return fmt.Errorf("%w: direction %q", ErrInvalid, clipText(string(d)))
	}
	return nil
}

// numberLit re-prints s as an xsd:double literal from its parsed value.
func numberLit(s string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(s, ",", "")), 64)
	if err != nil {
		return "", fmt.Errorf("%w: number %q", ErrInvalid, clipText(s))
	}
	return `"` + strconv.FormatFloat(f, 'g', -1, 64) + `"^^xsd:double`, nil
}

// dateLayouts are the date forms a constant may take.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02", "2006-01", "2006"}

// ParseDate reads an ISO date (or its year or year-month) and returns it
// as "YYYY-MM-DD", the form the compiled query compares dates in.
func ParseDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Format("2006-01-02"), true
		}
	}
	return "", false
}

// dateLit re-prints s as the string a date key compares with.
func dateLit(s string) (string, error) {
	d, ok := ParseDate(s)
	if !ok {
		return "", fmt.Errorf("%w: date %q", ErrInvalid, clipText(s))
	}
	return `"` + d + `"`, nil
}

// yearLike is a constant that reads as a year rather than a number.
var yearLike = regexp.MustCompile(`^[0-9]{4}$`)

// nativeLit prints a constant for KindNative: a number as xsd:double, a
// date as xsd:date.
func nativeLit(s string) (string, error) {
	if l, err := numberLit(s); err == nil && !yearLike.MatchString(strings.TrimSpace(s)) {
		return l, nil
	}
	if d, ok := ParseDate(s); ok {
		return `"` + d + `"^^xsd:date`, nil
	}
	return "", fmt.Errorf("%w: constant %q", ErrInvalid, clipText(s))
}

// clipText shortens rejected input for an error message.
func clipText(s string) string {
	if len(s) > 48 {
		return s[:48] + "..."
	}
	return s
}
