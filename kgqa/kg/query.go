package kg

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the one place that builds SPARQL text. Every IRI placed in a
// query comes from an id that fit the dialect's grammar (so it holds no '>',
// space or quote), every literal goes through literal, and the language tag
// was checked when the dialect was made.

// Row caps the templates apply; callers ask for less.
const (
	maxRelationRows = 5000
	maxSearchName   = 256
)

func iri(s string) string { return "<" + s + ">" }

// literal renders s as a SPARQL string literal. Control characters and
// invalid UTF-8 are refused rather than escaped: names never contain them,
// and refusing keeps every engine's lexer on the same reading.
func literal(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("kg: literal: invalid UTF-8")
	}
	if len(s) > maxSearchName {
		return "", fmt.Errorf("kg: literal: longer than %d bytes", maxSearchName)
	}
	if strings.Contains(s, `\u`) || strings.Contains(s, `\U`) {
		// SPARQL engines may decode \u escapes before lexing, even after an
		// escaped backslash, which would turn the text into a quote.
		return "", fmt.Errorf("kg: literal: \\u escape sequences are not accepted")
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			return "", fmt.Errorf("kg: literal: control character %U", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

func clampLimit(limit, max int) int {
	if limit <= 0 || limit > max {
		return max
	}
	return limit
}

func (v vocab) entity(id string) string { return iri(v.entityNS + id) }

func (v vocab) relation(id string) string { return iri(v.relNS + id) }

func (v vocab) langFilter(varName string) string {
	return `FILTER(LANG(?` + varName + `) = "` + v.lang + `")`
}

// Templates never put an OPTIONAL around a name lookup: goRDFlib evaluates a
// filtered OPTIONAL body over the whole graph, and an OPTIONAL triple whose
// subject is bound to a literal matches every name. Names are fetched by a
// separate query with constant subjects instead.

// relationsQuery lists the distinct predicates around id with their
// direction.
func relationsQuery(v vocab, id string) string {
	e := v.entity(id)
	return "SELECT DISTINCT ?r ?dir WHERE {\n" +
		"  { " + e + " ?r ?o . BIND(\"out\" AS ?dir) }\n" +
		"  UNION\n" +
		"  { ?s ?r " + e + " . BIND(\"in\" AS ?dir) }\n" +
		"} LIMIT " + strconv.Itoa(maxRelationRows)
}

// neighborsQuery lists the first limit terms one hop from id along rel, in
// term order so that every backend keeps the same ones.
func neighborsQuery(v vocab, id string, rel Relation, limit int) string {
	pattern := v.entity(id) + " " + v.relation(rel.ID) + " ?t ."
	if rel.Dir == In {
		pattern = "?t " + v.relation(rel.ID) + " " + v.entity(id) + " ."
	}
	return "SELECT DISTINCT ?t WHERE {\n" +
		"  " + pattern + "\n" +
		"} ORDER BY ?t LIMIT " + strconv.Itoa(limit)
}

// bySubject renders one UNION branch per subject, binding ?s to it, so that
// every engine answers from its subject index (a VALUES join made goRDFlib
// scan the whole graph).
func bySubject(v vocab, ids []string, pattern, as string) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString("\n  UNION\n")
		}
		e := v.entity(id)
		b.WriteString("  { " + e + " " + pattern + " . BIND(" + e + " AS ?" + as + ") }")
	}
	return "  {\n" + b.String() + "\n  }\n"
}

// namesQuery returns the names of ids in the dialect's language.
func namesQuery(v vocab, ids []string) string {
	return "SELECT DISTINCT ?t ?n WHERE {\n" +
		bySubject(v, ids, iri(v.namePred)+" ?n", "t") +
		"  " + v.langFilter("n") + "\n" +
		"}"
}

// mediatorQuery lists the edges of nameless mediator nodes in both
// directions (?d is "out" when the mediator is the subject), except those
// leading back to the head: the edge the head reached the mediator by is
// one of them, and any other would make a fact from the head to itself.
func mediatorQuery(v vocab, head string, mediators []string) string {
	var b strings.Builder
	for i, id := range mediators {
		if i > 0 {
			b.WriteString("\n  UNION\n")
		}
		e := v.entity(id)
		b.WriteString("  { " + e + " ?r ?t . BIND(" + e + " AS ?m) BIND(\"out\" AS ?d) }\n  UNION\n")
		b.WriteString("  { ?t ?r " + e + " . BIND(" + e + " AS ?m) BIND(\"in\" AS ?d) }")
	}
	return "SELECT DISTINCT ?m ?r ?t ?d WHERE {\n  {\n" + b.String() + "\n  }\n" +
		"  FILTER(?t != " + v.entity(head) + ")\n" +
		"} LIMIT " + strconv.Itoa(maxExpansionRows)
}

// Wikidata statement ranks (wikibase:rank); see notDeprecated.
const (
	wikibaseRank       = "http://wikiba.se/ontology#rank"
	wikibaseDeprecated = "http://wikiba.se/ontology#DeprecatedRank"
)

// Markers of the statement branches of wikidataRelationsQuery's ?dir.
const (
	statementOut = "statement-out"
	statementIn  = "statement-in"
)

// notDeprecated keeps the statement ?m unless it has rank
// wikibase:DeprecatedRank: a deprecated value is one Wikidata holds to be
// wrong (a refuted birth place, a superseded figure), so it is never a
// fact. A statement with no rank triple (a partial dump) counts.
func notDeprecated() string {
	return "FILTER NOT EXISTS { ?m " + iri(wikibaseRank) + " " + iri(wikibaseDeprecated) + " }"
}

// wikidataRelationsQuery is relationsQuery with two more branches for the
// properties id has only through statements: its own claims (id p:P ?m,
// ?dir statementOut) and the statements whose main value it is (?m ps:P id,
// ?dir statementIn), deprecated statements left out. The first two
// branches also return p: and ps: predicates, unfiltered; only their wdt:
// rows are read.
func wikidataRelationsQuery(v vocab, id string) string {
	e := v.entity(id)
	return "SELECT DISTINCT ?r ?dir WHERE {\n" +
		"  { " + e + " ?r ?o . BIND(\"out\" AS ?dir) }\n" +
		"  UNION\n" +
		"  { ?s ?r " + e + " . BIND(\"in\" AS ?dir) }\n" +
		"  UNION\n" +
		"  { " + e + " ?r ?m . FILTER(STRSTARTS(STR(?r), \"" + WikidataClaimNS + "P\")) " + notDeprecated() +
		" BIND(\"" + statementOut + "\" AS ?dir) }\n" +
		"  UNION\n" +
		"  { ?m ?r " + e + " . FILTER(STRSTARTS(STR(?r), \"" + WikidataStatementNS + "\")) " + notDeprecated() +
		" BIND(\"" + statementIn + "\" AS ?dir) }\n" +
		"} LIMIT " + strconv.Itoa(maxRelationRows)
}

// qualifierQuery lists the main value and the qualifiers of id's
// statements about rel (Wikidata p:/ps:/pq:), deprecated ones left out,
// each read as a fact through the statement node, so a value and its
// qualifiers share a mediator.
//
// Statement queries are ordered so that a limit keeps the same statements
// on every backend: one entity's statements about one property are few, so
// the sort is cheap (unlike neighbour queries on hub entities).
func qualifierQuery(v vocab, id string, rel Relation, limit int) string {
	return "SELECT DISTINCT ?m ?r ?t WHERE {\n" +
		"  " + v.entity(id) + " " + iri(WikidataClaimNS+rel.ID) + " ?m .\n" +
		"  ?m ?r ?t .\n" +
		"  FILTER(STRSTARTS(STR(?r), \"" + WikidataQualifierNS + "\") || ?r = " + iri(WikidataStatementNS+rel.ID) + ")\n" +
		"  " + notDeprecated() + "\n" +
		"} ORDER BY ?m ?r ?t LIMIT " + strconv.Itoa(limit)
}

// incomingQualifierQuery lists the statements about rel whose main value
// is id (Wikidata ?s p:P ?m . ?m ps:P id), deprecated ones left out, with
// their subject ?s and each qualifier ?r of the statement with its value
// ?t, so that a statement pointing at id reads as facts through the
// statement node, as an outgoing one does. The main value's own row
// (?r ps:P, ?t id) is returned too, so a statement with no qualifier still
// gives its subject.
func incomingQualifierQuery(v vocab, id string, rel Relation, limit int) string {
	return "SELECT DISTINCT ?m ?s ?r ?t WHERE {\n" +
		"  ?m " + iri(WikidataStatementNS+rel.ID) + " " + v.entity(id) + " .\n" +
		"  ?s " + iri(WikidataClaimNS+rel.ID) + " ?m .\n" +
		"  ?m ?r ?t .\n" +
		"  FILTER(STRSTARTS(STR(?r), \"" + WikidataQualifierNS + "\") || ?r = " + iri(WikidataStatementNS+rel.ID) + ")\n" +
		"  " + notDeprecated() + "\n" +
		"} ORDER BY ?m ?r ?t LIMIT " + strconv.Itoa(limit)
}

// nameQuery returns the names of id in the dialect's language (or with no
// tag).
func nameQuery(v vocab, id string) string {
	return "SELECT ?n WHERE {\n" +
		"  " + v.entity(id) + " " + iri(v.namePred) + " ?n .\n" +
		"  FILTER(LANG(?n) = \"" + v.lang + "\" || LANG(?n) = \"\")\n" +
		"} LIMIT 10"
}

// searchExactQuery finds entities named exactly name (an index lookup on
// every engine).
func searchExactQuery(v vocab, name string, limit int) (string, error) {
	lit, err := literal(name)
	if err != nil {
		return "", err
	}
	return "SELECT DISTINCT ?e WHERE {\n" +
		"  ?e " + iri(v.namePred) + " " + lit + "@" + v.lang + " .\n" +
		"} LIMIT " + strconv.Itoa(limit), nil
}

// searchFoldQuery finds entities whose name equals name ignoring case. It
// scans names, so it runs only when the exact lookup found nothing.
func searchFoldQuery(v vocab, name string, limit int) (string, error) {
	lit, err := literal(strings.ToLower(name))
	if err != nil {
		return "", err
	}
	return "SELECT DISTINCT ?e ?n WHERE {\n" +
		"  ?e " + iri(v.namePred) + " ?n .\n" +
		"  " + v.langFilter("n") + "\n" +
		"  FILTER(LCASE(STR(?n)) = " + lit + ")\n" +
		"} LIMIT " + strconv.Itoa(limit), nil
}

// Limits of Virtuoso's free-text expressions (bif:contains), measured on
// Virtuoso 7.2: a word longer than 64 characters is a noise word and a
// phrase of noise words alone is an error (XM028); a wildcard needs at
// least 4 characters before the '*' (FT370).
const (
	maxTextWords    = 8
	minTextWord     = 2
	maxTextWord     = 64
	minWildcardStem = 4
)

// errNoTextWords means a name holds no word a free-text search can use
// ("a", "?!"): nothing can match it.
var errNoTextWords = errors.New("kg: search: no searchable word")

// textWords splits name into the words of a free-text search. A word is a
// run of Unicode letters and decimal digits (with the combining marks that
// follow them); every other rune separates words, so quotes, apostrophes,
// backslashes and operators never reach the expression. A '*' right after
// a word of at least minWildcardStem runes keeps it as a prefix wildcard
// ("Fran*"); after a shorter word it is a separator. Words shorter than
// minTextWord or longer than maxTextWord runes are dropped, repeats too
// (ignoring case), and at most maxTextWords are kept.
func textWords(name string) []string {
	var words []string
	seen := make(map[string]bool)
	add := func(w []rune, wildcard bool) {
		if len(w) < minTextWord || len(w) > maxTextWord || len(words) == maxTextWords {
			return
		}
		s := string(w)
		if wildcard && len(w) >= minWildcardStem {
			s += "*"
		}
		if k := strings.ToLower(s); !seen[k] {
			seen[k] = true
			words = append(words, s)
		}
	}
	var word []rune
	for _, r := range name {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, r)
		case len(word) > 0 && unicode.In(r, unicode.Mn, unicode.Mc):
			word = append(word, r)
		default:
			add(word, r == '*')
			word = word[:0]
		}
	}
	add(word, false)
	return words
}

// textExpr renders words as a Virtuoso free-text expression that requires
// all of them: "word1" AND "word2". Each word is quoted, as Virtuoso wants
// for wildcards and to read AND, OR, NEAR as words; textWords left no
// quote, backslash or apostrophe to escape.
func textExpr(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `"`
	}
	return strings.Join(quoted, " AND ")
}

// searchTextQuery finds entities whose name holds every word of name, with
// Virtuoso's free-text index (bif:contains), so it reads only the index
// entries of those words. Names equal to name ignoring case come first,
// then the shortest. It returns errNoTextWords when name has no word to
// search for.
func searchTextQuery(v vocab, name string, limit int) (string, error) {
	lit, err := literal(strings.ToLower(name))
	if err != nil {
		return "", err
	}
	words := textWords(name)
	if len(words) == 0 {
		return "", errNoTextWords
	}
	return "SELECT DISTINCT ?e ?n WHERE {\n" +
		"  ?e " + iri(v.namePred) + " ?n .\n" +
		"  ?n <bif:contains> '" + textExpr(words) + "' .\n" +
		"  " + v.langFilter("n") + "\n" +
		"} ORDER BY (IF(LCASE(STR(?n)) = " + lit + ", 0, 1)) STRLEN(STR(?n)) ?e\n" +
		"LIMIT " + strconv.Itoa(limit), nil
}

// The builders below render the bank's templates (bank.go). Each validates
// the ids it is given again, whatever its caller checked, and returns an
// *IDError for one that does not fit the dialect.

// relationsQuery lists the distinct predicates around id with their
// direction; on Wikidata also the properties id has only through
// statements.
func (d *dialect) relationsQuery(id string) (string, error) {
	a := d.args(maxRelationRows)
	var err error
	if a.Entity, err = d.entityRef(id); err != nil {
		return "", err
	}
	if d.v.expansion == expandQualifier {
		return render(tagWikidataRelations, a)
	}
	return render(tagRelations, a)
}

// neighborsQuery lists the first limit terms one hop from id along rel, in
// term order so that every backend keeps the same ones.
func (d *dialect) neighborsQuery(id string, rel Relation, limit int) (string, error) {
	a := d.args(limit)
	var err error
	if a.Entity, err = d.entityRef(id); err != nil {
		return "", err
	}
	if a.Relation, err = d.relationRef(d.v.relNS, rel); err != nil {
		return "", err
	}
	if rel.Dir == In {
		return render(tagNeighborsIn, a)
	}
	return render(tagNeighborsOut, a)
}

// namesQuery returns the names of ids in the dialect's language.
func (d *dialect) namesQuery(ids []string) (string, error) {
	a := d.args(0)
	var err error
	if a.Subjects, err = d.entityRefs(ids); err != nil {
		return "", err
	}
	return render(tagNames, a)
}

// mediatorQuery lists the edges of the nameless mediator nodes in both
// directions, except those leading back to head.
func (d *dialect) mediatorQuery(head string, mediators []string) (string, error) {
	a := d.args(maxExpansionRows)
	var err error
	if a.Entity, err = d.entityRef(head); err != nil {
		return "", err
	}
	if a.Subjects, err = d.entityRefs(mediators); err != nil {
		return "", err
	}
	return render(tagMediators, a)
}

// qualifierQuery lists the main value and the qualifiers of id's Wikidata
// statements about rel; with rel.Dir In, the statements whose main value
// id is, with their subjects (statement.go reads the rows).
func (d *dialect) qualifierQuery(id string, rel Relation, limit int) (string, error) {
	a := d.args(limit)
	var err error
	if a.Entity, err = d.entityRef(id); err != nil {
		return "", err
	}
	if a.Claim, err = d.relationRef(WikidataClaimNS, rel); err != nil {
		return "", err
	}
	if a.Statement, err = d.relationRef(WikidataStatementNS, rel); err != nil {
		return "", err
	}
	if rel.Dir == In {
		return render(tagIncomingQualifier, a)
	}
	return render(tagQualifiers, a)
}

// nameQuery returns the names of id in the dialect's language (or with no
// tag).
func (d *dialect) nameQuery(id string) (string, error) {
	a := d.args(10)
	var err error
	if a.Entity, err = d.entityRef(id); err != nil {
		return "", err
	}
	return render(tagName, a)
}

// searchExactQuery finds entities named exactly name (an index lookup on
// every engine).
func (d *dialect) searchExactQuery(name string, limit int) (string, error) {
	a := d.args(limit)
	lit, err := literal(name)
	if err != nil {
		return "", err
	}
	a.Name = stringLit(lit)
	return render(tagSearchExact, a)
}

// searchFoldQuery finds entities whose name equals name ignoring case. It
// scans names, so it runs only when the exact lookup found nothing.
func (d *dialect) searchFoldQuery(name string, limit int) (string, error) {
	a := d.args(limit)
	lit, err := literal(strings.ToLower(name))
	if err != nil {
		return "", err
	}
	a.Name = stringLit(lit)
	return render(tagSearchFold, a)
}

// searchTextQuery finds entities whose name holds every word of name, with
// Virtuoso's free-text index (bif:contains), so it reads only the index
// entries of those words. Names equal to name ignoring case come first,
// then the shortest. It returns errNoTextWords when name has no word to
// search for.
func (d *dialect) searchTextQuery(name string, limit int) (string, error) {
	a := d.args(limit)
	lit, err := literal(strings.ToLower(name))
	if err != nil {
		return "", err
	}
	a.Name = stringLit(lit)
	words := textWords(name)
	if len(words) == 0 {
		return "", errNoTextWords
	}
	a.Text = textExprLit(textExpr(words))
	return render(tagSearchText, a)
}
