// Package sparql2plan turns <question, SPARQL> pairs from WebQSP, CWQ and
// GrailQA into subgoal plans (kgqa.Plan) and planner fine-tuning records.
// It takes the pairs already loaded (Pair): it reads no benchmark file and
// links neither the loaders nor the KG access.
//
// The pipeline is Normalize (Virtuoso dialect to SPARQL 1.1), Parse
// (internal/sparqlsyntax), Extract (the parsed query to a query graph of atomic
// operations), Build (the graph to a Plan with explicit dependencies) and
// rendering of each subgoal as text (templates offline, or a teacher LLM).
package sparql2plan

import (
	"regexp"
	"strings"
)

// Rule names one dialect rewrite that Normalize can apply. Convert reports
// which rules fired for each query, so their use can be counted.
type Rule string

// The rewrites Normalize applies, in order.
const (
	// RuleBoolWords rewrites the keywords OR and AND between FILTER
	// operands, which Virtuoso accepts, to || and &&.
	RuleBoolWords Rule = "or-and-keywords"
	// RuleCastCase rewrites xsd:datetime(...) to xsd:dateTime(...):
	// Virtuoso matches cast names case-insensitively, SPARQL does not.
	RuleCastCase Rule = "xsd-cast-case"
	// RulePrefixes declares the well-known prefixes (xsd:, ns:, rdf:,
	// rdfs:) that a query uses without a PREFIX line, as Virtuoso
	// predeclares them.
	RulePrefixes Rule = "undeclared-prefixes"
	// RuleComments removes # comments (outside IRIs and strings) such as
	// CWQ's "#MANUAL SPARQL" header, so no comment can swallow code that a
	// later rewrite joins onto its line.
	RuleComments Rule = "comments"
	// RuleExprNames writes a dotted prefixed name that appears as an
	// expression operand (FILTER (?x != ns:m.0abc)) as a full IRI. internal/sparqlsyntax
	// reads such names whole; the rewrite stays because the normalised
	// text is also what the evaluator and the answerability check send to
	// endpoints, and the rules that fired are part of each record.
	RuleExprNames Rule = "expression-prefixed-names"
)

var wellKnownPrefixes = []struct{ name, iri string }{
	{"xsd", "http://www.w3.org/2001/XMLSchema#"},
	{"ns", "http://rdf.freebase.com/ns/"},
	{"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"},
	{"rdfs", "http://www.w3.org/2000/01/rdf-schema#"},
}

// xsdCasts maps a lower-cased cast name to its SPARQL spelling.
var xsdCasts = map[string]string{
	"datetime": "dateTime", "date": "date", "integer": "integer", "float": "float",
	"double": "double", "decimal": "decimal", "string": "string", "boolean": "boolean",
	"gyear": "gYear", "gyearmonth": "gYearMonth",
}

var declared = regexp.MustCompile(`(?i)PREFIX\s+([A-Za-z][\w-]*)?\s*:`)

// Normalize rewrites the Virtuoso habits of CWQ and WebQSP queries into
// standard SPARQL 1.1 and reports which rules fired. It works on the
// query's code only: string literals, IRIs and comments are left alone, so
// a name such as "Oregon OR Washington" inside a literal is never touched.
// Standard queries (all of GrailQA) come back unchanged.
func Normalize(query string) (string, []Rule) {
	segs := segment(query)
	prefixes := declaredPrefixes(query)
	var fired []Rule
	mark := func(r Rule) {
		for _, f := range fired {
			if f == r {
				return
			}
		}
		fired = append(fired, r)
	}
	var b strings.Builder
	b.Grow(len(query) + 128)
	used := map[string]bool{}
	for _, s := range segs {
		switch s.kind {
		case segComment:
			mark(RuleComments)
			b.WriteByte(' ')
			continue
		case segCode:
			code := rewriteBoolWords(s.text, mark)
			code = rewriteCasts(code, mark)
			code = rewriteExprNames(code, prefixes, mark)
			for _, p := range wellKnownPrefixes {
				if usesPrefix(code, p.name) {
					used[p.name] = true
				}
			}
			b.WriteString(code)
		default:
			b.WriteString(s.text)
		}
	}
	out := b.String()
	have := map[string]bool{}
	for _, m := range declared.FindAllStringSubmatch(out, -1) {
		have[m[1]] = true
	}
	var head strings.Builder
	for _, p := range wellKnownPrefixes {
		if used[p.name] && !have[p.name] {
			head.WriteString("PREFIX " + p.name + ": <" + p.iri + ">\n")
		}
	}
	if head.Len() > 0 {
		mark(RulePrefixes)
		out = head.String() + out
	}
	return out, fired
}

var boolWord = regexp.MustCompile(`\b(OR|AND|or|and)\b`)

// rewriteBoolWords replaces OR/AND keywords, but not the same letters
// inside a prefixed name or a variable (ns:x.and, ?or).
func rewriteBoolWords(code string, mark func(Rule)) string {
	locs := boolWord.FindAllStringIndex(code, -1)
	if locs == nil {
		return code
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if l[0] > 0 && isNameChar(code[l[0]-1]) || l[1] < len(code) && (code[l[1]] == ':' || code[l[1]] == '.') {
			continue
		}
		b.WriteString(code[last:l[0]])
		if strings.EqualFold(code[l[0]:l[1]], "or") {
			b.WriteString("||")
		} else {
			b.WriteString("&&")
		}
		mark(RuleBoolWords)
		last = l[1]
	}
	b.WriteString(code[last:])
	return b.String()
}

var castCall = regexp.MustCompile(`\bxsd:([A-Za-z]+)\s*\(`)

func rewriteCasts(code string, mark func(Rule)) string {
	return castCall.ReplaceAllStringFunc(code, func(m string) string {
		sub := castCall.FindStringSubmatch(m)
		want, ok := xsdCasts[strings.ToLower(sub[1])]
		if !ok || want == sub[1] {
			return m
		}
		mark(RuleCastCase)
		return "xsd:" + want + "("
	})
}

func usesPrefix(code, name string) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], name+":")
		if j < 0 {
			return false
		}
		k := i + j
		if k == 0 || !isNameChar(code[k-1]) {
			return true
		}
		i = k + len(name) + 1
	}
}

func isNameChar(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == ':' || c == '?' || c == '$' ||
		(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

type segKind int

const (
	segCode segKind = iota
	segString
	segIRI
	segComment
)

type seg struct {
	kind segKind
	text string
}

// segment splits a query into code, string literals, IRIs and comments.
// "<" starts an IRI only when a ">" closes it before any whitespace, which
// is what tells an IRI from the less-than operator.
func segment(q string) []seg {
	var out []seg
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, seg{segCode, q[start:end]})
		}
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '"' || c == '\'':
			j := stringEnd(q, i)
			flush(i)
			out = append(out, seg{segString, q[i:j]})
			i, start = j, j
		case c == '<':
			j := iriEnd(q, i)
			if j < 0 {
				i++
				continue
			}
			flush(i)
			out = append(out, seg{segIRI, q[i:j]})
			i, start = j, j
		case c == '#':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			flush(i)
			out = append(out, seg{segComment, q[i : i+j]})
			i, start = i+j, i+j
		default:
			i++
		}
	}
	flush(len(q))
	return out
}

// stringEnd returns the index just past the literal starting at i,
// handling long ("""...""") and short quotes with backslash escapes.
func stringEnd(q string, i int) int {
	quote := q[i]
	long := strings.Repeat(string(quote), 3)
	if strings.HasPrefix(q[i:], long) {
		if j := strings.Index(q[i+3:], long); j >= 0 {
			return i + 3 + j + 3
		}
		return len(q)
	}
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			j++
		case quote, '\n':
			return j + 1
		}
	}
	return len(q)
}

func iriEnd(q string, i int) int {
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '>':
			if j == i+1 {
				return -1
			}
			return j + 1
		case ' ', '\t', '\n', '\r', '<', '"', '{', '}', '|', '^', '`', '\\', '=', '&':
			return -1
		}
	}
	return -1
}

var prefixDecl = regexp.MustCompile(`(?i)PREFIX\s+([A-Za-z][\w-]*)?\s*:\s*<([^>\s]*)>`)

// declaredPrefixes maps the query's own prefix declarations, completed by
// the well-known ones it does not declare.
func declaredPrefixes(q string) map[string]string {
	m := map[string]string{}
	for _, p := range wellKnownPrefixes {
		m[p.name] = p.iri
	}
	for _, d := range prefixDecl.FindAllStringSubmatch(q, -1) {
		m[d[1]] = d[2]
	}
	return m
}

var exprName = regexp.MustCompile(`([=(,<>!]\s*)([A-Za-z][\w-]*)?:([A-Za-z0-9_][\w-]*(?:\.[\w-]+)+)`)

func rewriteExprNames(code string, prefixes map[string]string, mark func(Rule)) string {
	return exprName.ReplaceAllStringFunc(code, func(m string) string {
		sub := exprName.FindStringSubmatch(m)
		iri, ok := prefixes[sub[2]]
		if !ok {
			return m
		}
		mark(RuleExprNames)
		return sub[1] + "<" + iri + sub[3] + ">"
	})
}
