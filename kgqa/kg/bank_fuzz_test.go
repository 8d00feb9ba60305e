package kg

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parog/parog-go/kgqa"
)

// The bank's part of FuzzQueryBuilders: every builder is called with the
// fuzzed input directly (the store refuses bad ids before a builder sees
// them), and a query it renders must differ from the query built from
// benign input only inside IRI and string tokens, each an IRI of the
// dialect's namespaces with an id that fits its grammar or a literal that
// reads back as the name, or the free-text expression of the grammar.

// sparqlToken is one lexical token of a rendered query.
type sparqlToken struct {
	kind byte // '<' IRI, '"' or '\'' string, 'w' anything else
	text string
}

// iriChar reports whether c may appear in an IRIREF (SPARQL 1.1 [139]).
func iriChar(c byte) bool {
	return c > 0x20 && !strings.ContainsRune("<>\"{}|^`\\", rune(c))
}

// lexQuery splits q into tokens, reading IRIs and string literals as
// SPARQL does: a string ends at the first unescaped quote. It reports
// false for text no SPARQL lexer reads (an unterminated string).
func lexQuery(q string) ([]sparqlToken, bool) {
	var toks []sparqlToken
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '<':
			j := i + 1
			for j < len(q) && iriChar(q[j]) {
				j++
			}
			if j < len(q) && q[j] == '>' {
				toks = append(toks, sparqlToken{'<', q[i : j+1]})
				i = j + 1
				continue
			}
			toks = append(toks, sparqlToken{'w', "<"})
			i++
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(q) && q[j] != c {
				if q[j] == '\n' || q[j] == '\r' {
					return nil, false
				}
				if q[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(q) {
				return nil, false
			}
			toks = append(toks, sparqlToken{c, q[i : j+1]})
			i = j + 1
		case strings.IndexByte("{}().,;=!|@", c) >= 0:
			toks = append(toks, sparqlToken{'w', q[i : i+1]})
			i++
		default:
			j := i
			for j < len(q) && !strings.ContainsRune(" \t\n\r<\"'{}().,;=!|@", rune(q[j])) {
				j++
			}
			toks = append(toks, sparqlToken{'w', q[i:j]})
			i = j
		}
	}
	return toks, true
}

// unquote reads a double-quoted SPARQL string with only \\ and \" escapes.
func unquote(s string) (string, bool) {
	if len(s) < 2 {
		return "", false
	}
	q := s[0]
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i == len(s) || (s[i] != '\\' && s[i] != q) {
				return "", false
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

// validIRI reports whether tok is an IRI of d's namespaces whose local
// part fits d's entity or relation grammar.
func validIRI(d *dialect, tok string) bool {
	iri := strings.TrimSuffix(strings.TrimPrefix(tok, "<"), ">")
	if rest, ok := strings.CutPrefix(iri, relIndexNodePrefix+d.v.entityNS); ok {
		return d.ValidEntity(rest) // a relation index node
	}
	for _, ns := range []string{d.v.entityNS, d.v.relNS, WikidataClaimNS, WikidataStatementNS} {
		if id, ok := strings.CutPrefix(iri, ns); ok && (d.ValidEntity(id) || d.ValidRelation(id)) {
			return true
		}
	}
	return false
}

func checkBank(t *testing.T, d *dialect, id, rel, name string, limit int) {
	benign := map[string][2]string{"freebase": {france, "location.location.contains"}, "wikidata": {"Q142", "P47"}}[d.Name()]
	type build func(id, rel, name string) (string, error)
	builds := map[string]build{
		"neighbors batch out": func(id, rel, _ string) (string, error) {
			return d.neighborsBatchQuery([]string{benign[0], id}, kgqa.Relation{ID: rel, Dir: kgqa.Out}, limit)
		},
		"neighbors batch in": func(id, rel, _ string) (string, error) {
			return d.neighborsBatchQuery([]string{id}, kgqa.Relation{ID: rel, Dir: kgqa.In}, limit)
		},
		"neighbors out": func(id, rel, _ string) (string, error) {
			return d.neighborsQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.Out}, limit)
		},
		"neighbors in": func(id, rel, _ string) (string, error) {
			return d.neighborsQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.In}, limit)
		},
		"names":     func(id, _, _ string) (string, error) { return d.namesQuery([]string{benign[0], id}) },
		"mediators": func(id, _, _ string) (string, error) { return d.mediatorQuery(id, []string{id, benign[0]}) },
		"name":      func(id, _, _ string) (string, error) { return d.nameQuery(id) },
		"count out": func(id, rel, _ string) (string, error) {
			return d.countQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.Out})
		},
		"count in": func(id, rel, _ string) (string, error) { return d.countQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.In}) },
		"linked out": func(id, rel, _ string) (string, error) {
			return d.linkedQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.Out}, []string{benign[0], id})
		},
		"linked in": func(id, rel, _ string) (string, error) {
			return d.linkedQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.In}, []string{id})
		},
		"search exact":   func(_, _, name string) (string, error) { return d.searchExactQuery(name, limit) },
		"search folded":  func(_, _, name string) (string, error) { return d.searchFoldQuery(name, limit) },
		"search by text": func(_, _, name string) (string, error) { return d.searchTextQuery(name, limit) },
	}
	if d.v.expansion == expandMediator {
		builds["relations out"] = func(id, _, _ string) (string, error) { return d.relationsDirQuery(id, kgqa.Out) }
		builds["relations in"] = func(id, _, _ string) (string, error) { return d.relationsDirQuery(id, kgqa.In) }
		builds["relations batch"] = func(id, _, _ string) (string, error) {
			return d.relationsBatchQuery([]string{id, benign[0]}, maxBatchRows)
		}
		builds["relations out from the index"] = func(id, _, _ string) (string, error) { return d.relationsIndexQuery(id, kgqa.Out) }
		builds["relations in from the index"] = func(id, _, _ string) (string, error) { return d.relationsIndexQuery(id, kgqa.In) }
		builds["relations batch from the index"] = func(id, _, _ string) (string, error) {
			return d.relationsIndexBatchQuery([]string{benign[0], id}, maxBatchRows)
		}
	}
	if d.v.expansion == expandQualifier {
		builds["relations"] = func(id, _, _ string) (string, error) { return d.relationsQuery(id) }
		builds["qualifiers out"] = func(id, rel, _ string) (string, error) {
			return d.qualifierQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.Out}, limit)
		}
		builds["qualifiers in"] = func(id, rel, _ string) (string, error) {
			return d.qualifierQuery(id, kgqa.Relation{ID: rel, Dir: kgqa.In}, limit)
		}
	}
	for what, b := range builds {
		q, err := b(id, rel, name)
		if err != nil {
			continue // refused: nothing reaches an engine
		}
		want, err := b(benign[0], benign[1], "Benign Name")
		if err != nil {
			t.Fatalf("%s: benign input refused: %v", what, err)
		}
		got, ok := lexQuery(q)
		wantToks, _ := lexQuery(want)
		if !ok || len(got) != len(wantToks) {
			t.Fatalf("%s: input changed the query's tokens:\nid=%q rel=%q name=%q\n%s", what, id, rel, name, q)
		}
		for i, g := range got {
			w := wantToks[i]
			if g == w {
				continue
			}
			var fits bool
			switch {
			case g.kind != w.kind && (g.kind != '\'' || w.kind != '"'):
				// A name's literal is single-quoted when the name holds
				// a double quote only.
			case g.kind == '<':
				fits = validIRI(d, g.text)
			case w.kind == '"':
				s, ok := unquote(g.text)
				fits = ok && utf8.ValidString(s) && (s == name || s == strings.ToLower(name))
			case g.kind == '\'':
				fits = textExprRE.MatchString(strings.Trim(g.text, "'"))
			}
			if !fits {
				t.Fatalf("%s: token %d is %s where benign input has %s:\nid=%q rel=%q name=%q limit=%s\n%s",
					what, i, g.text, w.text, id, rel, name, strconv.Itoa(limit), q)
			}
		}
	}
}
