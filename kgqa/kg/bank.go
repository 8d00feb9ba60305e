package kg

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/knakk/sparql"
	"github.com/parog/parog-go/kgqa"
)

// The query bank: every SPARQL template of the package, in queries.sparql,
// loaded once. Templates are filled only with the typed values below, each
// made by a function that validates or escapes what it is given, so a
// value of one of these types is safe to place in a query as it is.
type (
	// iriRef is an IRI in angle brackets, made from a namespace and an id
	// that fit the dialect's grammar (so it holds no '>', space or quote).
	iriRef string
	// stringLit is a SPARQL string literal made by literal.
	stringLit string
	// langTag is a language tag that fit BCP 47's shape (language).
	langTag string
	// textExprLit is a Virtuoso free-text expression made by textExpr from
	// the words of textWords: no quote, apostrophe or backslash but its
	// own double quotes.
	textExprLit string
	// indexedRef is an entity's IRI and the IRI of its relation index
	// node (relIndexNode), both made from an id that fit the dialect.
	indexedRef struct{ Entity, Node iriRef }
)

// queryArgs is the data of every template; each uses some of the fields.
type queryArgs struct {
	Entity    iriRef
	Relation  iriRef
	Claim     iriRef // Wikidata p:P
	Statement iriRef // Wikidata ps:P
	Subjects  []iriRef
	Indexed   []indexedRef // entities with their relation index nodes
	NamePred  iriRef
	Lang      langTag
	Name      stringLit
	Text      textExprLit
	Limit     int
}

// The tags of the bank's queries.
const (
	tagRelationsOut      = "relations-out"
	tagRelationsIn       = "relations-in"
	tagRelationsBatch    = "relations-batch"
	tagWikidataRelations = "wikidata-relations"
	tagNeighborsOut      = "neighbors-out"
	tagNeighborsIn       = "neighbors-in"
	tagNeighborsBatchOut = "neighbors-batch-out"
	tagNeighborsBatchIn  = "neighbors-batch-in"
	tagNames             = "names"
	tagMediators         = "mediators"
	tagQualifiers        = "wikidata-qualifiers"
	tagIncomingQualifier = "wikidata-incoming-qualifiers"
	tagName              = "name"
	tagSearchExact       = "search-exact"
	tagSearchFold        = "search-fold"
	tagSearchText        = "search-text"
	tagCountOut          = "count-out"
	tagCountIn           = "count-in"
	tagLinkedOut         = "linked-out"
	tagLinkedIn          = "linked-in"
	tagRelIndexMarker    = "relation-index-marker"
	tagRelIndexOut       = "relations-index-out"
	tagRelIndexIn        = "relations-index-in"
	tagRelIndexBatch     = "relations-index-batch"
)

// Markers of the statement branches of the wikidata-relations query's
// ?dir, beside "out" and "in".
const (
	statementOut = "statement-out"
	statementIn  = "statement-in"
)

var bankTags = []string{
	tagRelationsOut, tagRelationsIn, tagRelationsBatch, tagWikidataRelations, tagNeighborsOut, tagNeighborsIn, tagNeighborsBatchOut, tagNeighborsBatchIn, tagNames, tagMediators,
	tagQualifiers, tagIncomingQualifier, tagName, tagSearchExact, tagSearchFold, tagSearchText,
	tagCountOut, tagCountIn, tagLinkedOut, tagLinkedIn, tagRelIndexMarker, tagRelIndexOut, tagRelIndexIn, tagRelIndexBatch,
}

//go:embed queries.sparql
var bankText string

// bank holds the templates, parsed once; bankErr says what is wrong with
// the file, if anything, and fails every query (TestBankLoads catches it
// first).
var bank, bankErr = loadBank(bankText)

// loadBank reads the bank and checks that it holds exactly the tags the
// package renders, each a valid template, and parses them. sparql.LoadBank
// reports nothing itself: a missing tag line merges two queries.
func loadBank(text string) (map[string]*template.Template, error) {
	b := sparql.LoadBank(strings.NewReader(text))
	parsed := make(map[string]*template.Template, len(bankTags))
	var errs []error
	for _, tag := range bankTags {
		q, ok := b[tag]
		if !ok {
			errs = append(errs, fmt.Errorf("no query tagged %q", tag))
			continue
		}
		t, err := template.New(tag).Option("missingkey=error").Parse(strings.TrimSpace(q))
		if err != nil {
			errs = append(errs, fmt.Errorf("query %q: %w", tag, err))
			continue
		}
		parsed[tag] = t
	}
	if len(b) != len(bankTags) {
		errs = append(errs, fmt.Errorf("%d tagged queries, want %d", len(b), len(bankTags)))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("kg: query bank: %w", err)
	}
	return parsed, nil
}

// render fills the query tagged tag with a.
func render(tag string, a queryArgs) (string, error) {
	if bankErr != nil {
		return "", bankErr
	}
	var buf strings.Builder
	if err := bank[tag].Execute(&buf, a); err != nil {
		return "", fmt.Errorf("kg: query %s: %w", tag, err)
	}
	return buf.String(), nil
}

// entityRef is the IRI of entity id, which must fit the dialect.
func (d *dialect) entityRef(id string) (iriRef, error) {
	if err := d.checkEntity(id); err != nil {
		return "", err
	}
	return iriRef("<" + d.v.entityNS + id + ">"), nil
}

// entityRefs is entityRef of every id; there must be at least one.
func (d *dialect) entityRefs(ids []string) ([]iriRef, error) {
	if len(ids) == 0 {
		return nil, errors.New("kg: query: no subjects")
	}
	refs := make([]iriRef, len(ids))
	for i, id := range ids {
		ref, err := d.entityRef(id)
		if err != nil {
			return nil, err
		}
		refs[i] = ref
	}
	return refs, nil
}

// relationRef is the IRI of rel.ID in namespace ns; rel must fit the
// dialect.
func (d *dialect) relationRef(ns string, rel kgqa.Relation) (iriRef, error) {
	if err := d.checkRelation(rel); err != nil {
		return "", err
	}
	return iriRef("<" + ns + rel.ID + ">"), nil
}

// args starts the data of a query with the dialect's name predicate and
// language.
func (d *dialect) args(limit int) queryArgs {
	return queryArgs{NamePred: iriRef("<" + d.v.namePred + ">"), Lang: langTag(d.v.lang), Limit: limit}
}
