package kg

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parog/parog-go/kgqa"
)

// This file and the query bank (bank.go, queries.sparql) are the one place
// that builds SPARQL text. Every IRI placed in a query comes from an id
// that fit the dialect's grammar (so it holds no '>', space or quote),
// every literal goes through literal, and the language tag was checked when
// the dialect was made.

// Row caps the templates apply; callers ask for less.
const (
	maxRelationRows = 5000
	maxSearchName   = 256
)

// literal renders s as a SPARQL string literal. Control characters and
// invalid UTF-8 are refused rather than escaped: names never contain them,
// and refusing keeps every engine's lexer on the same reading.
func literal(s string) (stringLit, error) {
	if err := CheckText(s); err != nil {
		return "", err
	}
	if len(s) > maxSearchName {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrInvalidText, maxSearchName)
	}
	// The quote is one the text does not hold, where it can be: the
	// embedded store (goRDFlib v0.1.5) ends a literal's value at its first
	// quote character, escaped or not, so "say \"hi\"" would be looked up
	// as `say \`. Text with both quotes is escaped and is not found there.
	quote := '"'
	if strings.ContainsRune(s, '"') && !strings.ContainsRune(s, '\'') {
		quote = '\''
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == quote:
			b.WriteRune('\\')
			b.WriteRune(r)
		case controlChar(r):
			return "", fmt.Errorf("%w: control character %U", ErrInvalidText, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteRune(quote)
	return stringLit(b.String()), nil
}

// CheckText refuses, as ErrInvalidText, text that no query may hold as a
// literal however it is spaced: invalid UTF-8, a \uXXXX or \UXXXXXXXX
// escape, a control character other than tab, line feed and carriage
// return (which a caller folds to spaces before a lookup; literal refuses
// them too). A question passes it before any model reads it, so text the
// model copies from the question into a lookup cannot be refused after
// model calls were spent on it.
func CheckText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: invalid UTF-8", ErrInvalidText)
	}
	if codepointEscape(s) {
		// SPARQL engines may decode \uXXXX escapes before lexing, even
		// after an escaped backslash, which could turn the text into a
		// quote. A backslash before anything else (C:\users) is escaped.
		return fmt.Errorf("%w: \\u and \\U escape sequences are not accepted", ErrInvalidText)
	}
	for _, r := range s {
		if controlChar(r) && r != '\t' && r != '\n' && r != '\r' {
			return fmt.Errorf("%w: control character %U", ErrInvalidText, r)
		}
	}
	return nil
}

// controlChar reports the characters a literal never holds: C0 and C1
// controls, DEL, and the line and paragraph separators.
func controlChar(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029
}

// codepointEscape reports whether s holds \uXXXX or \UXXXXXXXX (hex
// digits), which an engine may decode before it lexes the query.
func codepointEscape(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' || (s[i+1] != 'u' && s[i+1] != 'U') {
			continue
		}
		n := 4
		if s[i+1] == 'U' {
			n = 8
		}
		if i+2+n <= len(s) && isHex(s[i+2:i+2+n]) {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func clampLimit(limit, max int) int {
	if limit <= 0 || limit > max {
		return max
	}
	return limit
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
func textExpr(words []string) textExprLit {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `"`
	}
	return textExprLit(strings.Join(quoted, " AND "))
}

// The builders below render the bank's templates (bank.go). Each validates
// the ids it is given again, whatever its caller checked, and returns an
// *IDError for one that does not fit the dialect.

// relationsQuery lists the distinct predicates around id with their
// direction (?r, ?dir), with the properties id has only through
// statements. Wikidata only: Freebase lists each direction by itself
// (relationsDirQuery).
func (d *dialect) relationsQuery(id string) (string, error) {
	if d.v.expansion != expandQualifier {
		return "", fmt.Errorf("kg: query %s: not in the %s dialect", tagWikidataRelations, d.v.name)
	}
	a := d.args(maxRelationRows)
	var err error
	if a.Entity, err = d.entityRef(id); err != nil {
		return "", err
	}
	return render(tagWikidataRelations, a)
}

// relationsDirQuery lists the distinct predicates (?r) of id's edges in
// direction dir.
func (d *dialect) relationsDirQuery(id string, dir kgqa.Direction) (string, error) {
	a := d.args(maxRelationRows)
	var err error
	if a.Entity, err = d.entityRef(id); err != nil {
		return "", err
	}
	if dir == kgqa.In {
		return render(tagRelationsIn, a)
	}
	return render(tagRelationsOut, a)
}

// relationsBatchQuery lists the distinct predicates around each of ids
// with their direction, ?e binding the entity, in up to batchLimit rows
// (rowCap for the whole batch). Freebase only: Wikidata's listing has
// statement branches of its own.
func (d *dialect) relationsBatchQuery(ids []string, rowCap int) (string, error) {
	if d.v.expansion != expandMediator {
		return "", fmt.Errorf("kg: query %s: not in the %s dialect", tagRelationsBatch, d.v.name)
	}
	a := d.args(batchLimit(len(ids), rowCap))
	var err error
	if a.Subjects, err = d.entityRefs(ids); err != nil {
		return "", err
	}
	return render(tagRelationsBatch, a)
}

// neighborsQuery lists the first limit terms one hop from id along rel, in
// term order so that every backend keeps the same ones.
func (d *dialect) neighborsQuery(id string, rel kgqa.Relation, limit int) (string, error) {
	a, err := d.hopArgs(limit, id, rel)
	if err != nil {
		return "", err
	}
	return render(byDir(rel, tagNeighborsOut, tagNeighborsIn), a)
}

// neighborsBatchQuery lists the terms one hop from each of ids along rel,
// ?h binding the head, in head and term order, in up to limit rows.
func (d *dialect) neighborsBatchQuery(ids []string, rel kgqa.Relation, limit int) (string, error) {
	a := d.args(limit)
	var err error
	if a.Relation, err = d.relationRef(d.v.relNS, rel); err != nil {
		return "", err
	}
	if a.Subjects, err = d.entityRefs(ids); err != nil {
		return "", err
	}
	return render(byDir(rel, tagNeighborsBatchOut, tagNeighborsBatchIn), a)
}

// hopArgs are the bank's arguments for one hop from id along rel: the
// entity and the relation, each validated for the dialect.
func (d *dialect) hopArgs(limit int, id string, rel kgqa.Relation) (queryArgs, error) {
	a := d.args(limit)
	var err error
	if a.Entity, err = d.entityRef(id); err != nil {
		return a, err
	}
	if a.Relation, err = d.relationRef(d.v.relNS, rel); err != nil {
		return a, err
	}
	return a, nil
}

// byDir is out's tag for an outgoing relation and in's for an incoming
// one.
func byDir(rel kgqa.Relation, out, in string) string {
	if rel.Dir == kgqa.In {
		return in
	}
	return out
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
func (d *dialect) qualifierQuery(id string, rel kgqa.Relation, limit int) (string, error) {
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
	if rel.Dir == kgqa.In {
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
	var err error
	if a.Name, err = literal(name); err != nil {
		return "", err
	}
	return render(tagSearchExact, a)
}

// searchFoldQuery finds entities whose name equals name ignoring case. It
// scans names, so it runs only when the exact lookup found nothing.
func (d *dialect) searchFoldQuery(name string, limit int) (string, error) {
	a := d.args(limit)
	var err error
	if a.Name, err = literal(strings.ToLower(name)); err != nil {
		return "", err
	}
	return render(tagSearchFold, a)
}

// searchTextQuery finds entities whose name holds every word of name, with
// Virtuoso's free-text index (bif:contains), so it reads only the index
// entries of those words. Names equal to name ignoring case come first,
// then the shortest. It returns errNoTextWords when name has no word to
// search for.
func (d *dialect) searchTextQuery(name string, limit int) (string, error) {
	a := d.args(limit)
	var err error
	if a.Name, err = literal(strings.ToLower(name)); err != nil {
		return "", err
	}
	words := textWords(name)
	if len(words) == 0 {
		return "", errNoTextWords
	}
	a.Text = textExpr(words)
	return render(tagSearchText, a)
}
