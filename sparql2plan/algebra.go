package sparql2plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa/compile"
	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
)

// algebra is the normal form two queries are compared in: a union of
// conjunctive queries (each a set of triple patterns, comparisons and
// VALUES sets), whether the answer is counted, and which value is ordered
// for a single best answer. It is read from the parsed query, apart from
// the converter's own query graph, so that the check does not share the
// converter's blind spots. Normalising drops what does not change the
// answer set of a DISTINCT query: variable names, pattern order and
// grouping, distinctness (!=) and language filters, the compiler's type
// guards and its casts around compared values.
type algebra struct {
	count    bool
	order    string // "max" or "min" of the variable ordVar, or ""
	branches []*conjunct
	// opaque names constructs with no normal form (OPTIONAL, a
	// disjunctive or EXISTS filter): a query holding one compares with
	// nothing.
	opaque []string
}

// conjunct is one conjunctive query.
type conjunct struct {
	triples [][3]string
	filters [][3]string       // variable, operator, variable or constant
	values  map[string]string // variable -> its sorted VALUES set
}

// The distinguished variables every normal form names alike.
const (
	ansVar = "?ANS"
	ordVar = "?ORD"
)

// normalizer reads one parsed query.
type normalizer struct {
	subst   map[string]string // variable -> constant (one-row VALUES, = constant)
	rename  map[string]string // variable -> distinguished variable
	aggs    map[string]string // alias of a MAX/MIN sub-select -> "max"/"min"
	aggUsed map[string]bool   // aliases an equality compared with
	order   map[string]string // variable -> order, from aggregate equalities
	opaque  []string
}

// normalForm parses text and returns its normal form.
func normalForm(text string) (*algebra, error) {
	pq, err := sparqlsyntax.Parse(text)
	if err != nil {
		return nil, err
	}
	n := &normalizer{subst: map[string]string{}, rename: map[string]string{}, aggs: map[string]string{}, aggUsed: map[string]bool{}, order: map[string]string{}}
	a := &algebra{}
	ans, where := "", whereOf(pq)
	switch bound := pq.Bound(); {
	case len(bound) > 0:
		switch e := bound[0].Expr.(type) {
		case *sparqlsyntax.VarExpr:
			ans = e.Name
		case *sparqlsyntax.CallExpr:
			v, ok := countOf(e)
			if !ok {
				return nil, fmt.Errorf("projection %s(...)", e.Name)
			}
			ans, a.count = v, true
		default:
			return nil, fmt.Errorf("projection %s", exprKind(e))
		}
	case len(pq.Projection) > 0:
		ans = pq.Projection[0].Var
	default:
		return nil, fmt.Errorf("no projected variable")
	}
	// A sub-select that only counts (the compiler's count) or only
	// projects the answer (GrailQA's inner SELECT DISTINCT) is the query.
	if sub, ok := where.(*sparqlsyntax.SubSelect); ok {
		inner := sub.Query
		if bound := inner.Bound(); len(bound) == 1 && bound[0].Var == ans {
			if v, ok := countOf(bound[0].Expr); ok {
				ans, a.count, where = v, true, whereOf(inner)
			}
		} else if len(bound) == 0 && slices.Contains(inner.Vars(), ans) {
			where = whereOf(inner)
			pq = inner
		}
	}
	n.rename["?"+ans] = ansVar
	branches := n.pattern(where)
	if len(pq.OrderBy) > 0 && pq.Limit > 0 {
		v, ok := unwrapKey(pq.OrderBy[0].Expr)
		if !ok || !strings.HasPrefix(v, "?") {
			n.opaque = append(n.opaque, "ORDER BY an expression")
		} else {
			a.order = map[bool]string{true: "max", false: "min"}[pq.OrderBy[0].Desc]
			n.rename[v] = ordVar
		}
	}
	for alias, o := range n.aggs {
		if !n.aggUsed[alias] {
			n.order[alias] = o // the best value joined on directly (GrailQA)
		}
	}
	for v, o := range n.order {
		if a.order != "" {
			n.opaque = append(n.opaque, "two orders")
		}
		a.order = o
		n.rename[v] = ordVar
	}
	for _, b := range branches {
		a.branches = append(a.branches, n.finish(b))
	}
	a.opaque = n.opaque
	return a, nil
}

// countOf returns the variable e counts.
func countOf(e sparqlsyntax.Expr) (string, bool) {
	f, ok := e.(*sparqlsyntax.CallExpr)
	if !ok || !strings.EqualFold(f.Name, "COUNT") || len(f.Args) != 1 {
		return "", false
	}
	v, ok := f.Args[0].(*sparqlsyntax.VarExpr)
	if !ok {
		return "", false
	}
	return v.Name, true
}

// pattern returns the conjuncts of p (a join multiplies them out, a union
// adds them up).
func (n *normalizer) pattern(p sparqlsyntax.Pattern) []*conjunct {
	switch p := p.(type) {
	case nil:
		return []*conjunct{{values: map[string]string{}}}
	case *sparqlsyntax.BGP:
		c := &conjunct{values: map[string]string{}}
		for _, t := range p.Triples {
			if t.Path != nil {
				n.opaque = append(n.opaque, "property path")
				continue
			}
			c.triples = append(c.triples, [3]string{n.term(t.Subject), n.term(t.Predicate), n.term(t.Object)})
		}
		return []*conjunct{c}
	case *sparqlsyntax.Join:
		var out []*conjunct
		for _, l := range n.pattern(p.Left) {
			for _, r := range n.pattern(p.Right) {
				out = append(out, l.join(r))
			}
		}
		return out
	case *sparqlsyntax.Union:
		return append(n.pattern(p.Left), n.pattern(p.Right)...)
	case *sparqlsyntax.Filter:
		bs := n.pattern(p.Pattern)
		fs := n.filter(p.Expr)
		for _, b := range bs {
			b.filters = append(b.filters, fs...)
		}
		return bs
	case *sparqlsyntax.Values:
		return []*conjunct{n.values(p)}
	case *sparqlsyntax.SubSelect:
		bound := p.Query.Bound()
		if len(bound) == 1 {
			if f, ok := bound[0].Expr.(*sparqlsyntax.CallExpr); ok && (strings.EqualFold(f.Name, "MAX") || strings.EqualFold(f.Name, "MIN")) {
				// The compiler's superlative: the best value over the
				// members, which the outer pattern equals.
				n.aggs["?"+bound[0].Var] = strings.ToLower(f.Name)
				return []*conjunct{{values: map[string]string{}}}
			}
		}
		if len(bound) == 0 && len(p.Query.OrderBy) == 0 {
			return n.pattern(whereOf(p.Query))
		}
		n.opaque = append(n.opaque, "sub-select")
	default:
		n.opaque = append(n.opaque, patternKind(p))
	}
	return []*conjunct{{values: map[string]string{}}}
}

func (c *conjunct) join(d *conjunct) *conjunct {
	out := &conjunct{triples: append(slices.Clone(c.triples), d.triples...), filters: append(slices.Clone(c.filters), d.filters...), values: map[string]string{}}
	for k, v := range c.values {
		out.values[k] = v
	}
	for k, v := range d.values {
		out.values[k] = v
	}
	return out
}

// values reads a VALUES block: one row binds its variable to a constant,
// several rows of one variable are a set.
func (n *normalizer) values(v *sparqlsyntax.Values) *conjunct {
	c := &conjunct{values: map[string]string{}}
	if len(v.Vars) != 1 {
		n.opaque = append(n.opaque, "VALUES of several variables")
		return c
	}
	name := "?" + v.Vars[0]
	var set []string
	for _, row := range v.Rows {
		if len(row) != 1 || row[0] == nil {
			n.opaque = append(n.opaque, "VALUES row")
			return c
		}
		t, ok := valueTerm(row[0])
		if !ok {
			n.opaque = append(n.opaque, "VALUES term")
			return c
		}
		set = append(set, constKey(t))
	}
	slices.Sort(set)
	set = slices.Compact(set)
	if len(set) == 1 {
		n.subst[name] = set[0]
		return c
	}
	c.values[name] = strings.Join(set, " ")
	return c
}

// term resolves a triple term: a variable as is, a constant by its key.
func (n *normalizer) term(s sparqlsyntax.Term) string {
	return n.termOf(resolve(s))
}

// termOf prints a resolved term as term does.
func (n *normalizer) termOf(t term) string {
	if t.kind == kindVar {
		return "?" + t.value
	}
	return constKey(t)
}

// constKey prints a constant so that equal values compare equal: an
// entity by id, a date as YYYY-MM-DD, a number by its value, text as is.
func constKey(t term) string {
	if t.kind == kindEntity {
		return "<" + t.value + ">"
	}
	v := strings.TrimSpace(t.value)
	dt := strings.TrimPrefix(t.datatype, "http://www.w3.org/2001/XMLSchema#")
	if dt == "string" || strings.HasSuffix(t.datatype, "langString") {
		dt = "" // a plain literal, as the parser types it
	}
	switch dt {
	case "date", "dateTime", "gYear", "gYearMonth":
		if d, ok := compile.ParseDate(v); ok {
			return "date:" + d
		}
	case "double", "float", "decimal", "integer", "int", "long":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return "num:" + strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	if strings.Contains(v, "-") && dt == "" {
		if d, ok := compile.ParseDate(v); ok {
			return "date:" + d
		}
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && dt == "" {
		return "num:" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "text:" + v
}

// filter reads a FILTER: the comparisons it keeps, after dropping the
// redundant ones.
func (n *normalizer) filter(e sparqlsyntax.Expr) [][3]string {
	switch f := e.(type) {
	case *sparqlsyntax.InExpr:
		return n.filter(inAsBinary(f))
	case *sparqlsyntax.BinaryExpr:
		switch f.Op {
		case "&&":
			return append(n.filter(f.Left), n.filter(f.Right)...)
		case "!=":
			return nil // distinctness: answers are never their own anchors
		case "=", "<", "<=", ">", ">=":
			return n.comparison(f)
		case "||":
			if isLangFilter(f) {
				return nil
			}
			if tv, ok := parseTimeValidity(f); ok {
				// An open-ended time condition on its subject: one
				// comparison, the relation and operator in its name.
				return [][3]string{{n.termOf(tv.subject), "open " + tv.cmp + " " + tv.relation, constKey(tv.value)}}
			}
			if containsExists(f) {
				n.opaque = append(n.opaque, "time-validity filter")
			} else {
				n.opaque = append(n.opaque, "disjunctive filter")
			}
			return nil
		}
	case *sparqlsyntax.CallExpr:
		if strings.EqualFold(f.Name, "REGEX") {
			return nil // the compiler's guard that a value is a date
		}
		if isLangFilter(f) {
			return nil
		}
	case *sparqlsyntax.UnaryExpr:
		if isLangFilter(f) {
			return nil
		}
	case *sparqlsyntax.ExistsExpr:
		n.opaque = append(n.opaque, "EXISTS filter")
		return nil
	}
	n.opaque = append(n.opaque, "filter "+exprKind(e))
	return nil
}

func containsExists(e sparqlsyntax.Expr) bool {
	switch f := e.(type) {
	case *sparqlsyntax.InExpr:
		return containsExists(inAsBinary(f))
	case *sparqlsyntax.BinaryExpr:
		return containsExists(f.Left) || containsExists(f.Right)
	case *sparqlsyntax.UnaryExpr:
		return containsExists(f.Arg)
	case *sparqlsyntax.ExistsExpr:
		return true
	}
	return false
}

// comparison normalises l op r to (variable, op, other side), an equality
// with a constant to a substitution, and an equality with a best value to
// the query's order.
func (n *normalizer) comparison(f *sparqlsyntax.BinaryExpr) [][3]string {
	f = difference(f)
	l, lok := unwrapKey(f.Left)
	r, rok := unwrapKey(f.Right)
	if !lok || !rok {
		n.opaque = append(n.opaque, "comparison of an expression")
		return nil
	}
	op := f.Op
	if !strings.HasPrefix(l, "?") {
		l, r, op = r, l, flipCmp[op]
	}
	if !strings.HasPrefix(l, "?") {
		return nil // two constants
	}
	if op == "=" {
		if o, ok := n.aggs[r]; ok {
			n.order[l], n.aggUsed[r] = o, true
			return nil
		}
		if !strings.HasPrefix(r, "?") {
			n.subst[l] = r
			return nil
		}
	}
	return [][3]string{{l, op, r}}
}

// unwrapKey reads an operand through casts, STR and the compiler's date
// key (SUBSTR(CONCAT(STR(?v), "-01-01"), 1, 10)) to a variable or a
// constant's key.
func unwrapKey(e sparqlsyntax.Expr) (string, bool) {
	for {
		switch f := e.(type) {
		case *sparqlsyntax.VarExpr:
			return "?" + f.Name, true
		case *sparqlsyntax.CallExpr:
			switch {
			case len(f.Args) == 1 && isCastOrStr(f.Name):
				e = f.Args[0]
				continue
			case strings.EqualFold(f.Name, "SUBSTR") && len(f.Args) == 3:
				if c, ok := f.Args[0].(*sparqlsyntax.CallExpr); ok && strings.EqualFold(c.Name, "CONCAT") && len(c.Args) == 2 {
					e = c.Args[0]
					continue
				}
			}
			if t, ok := exprConst(f); ok {
				return constKey(t), true
			}
			return "", false
		default:
			if t, ok := exprConst(e); ok {
				return constKey(t), true
			}
			return "", false
		}
	}
}

// finish applies the substitutions and distinguished names to a conjunct
// and sorts it.
func (n *normalizer) finish(c *conjunct) *conjunct {
	name := func(s string) string {
		if k, ok := n.subst[s]; ok {
			return k
		}
		if r, ok := n.rename[s]; ok {
			return r
		}
		return s
	}
	out := &conjunct{values: map[string]string{}}
	for _, t := range c.triples {
		out.triples = append(out.triples, [3]string{name(t[0]), name(t[1]), name(t[2])})
	}
	for _, f := range c.filters {
		f = [3]string{name(f[0]), f[1], name(f[2])}
		if strings.HasPrefix(f[0], "?") || strings.HasPrefix(f[2], "?") {
			out.filters = append(out.filters, f)
		}
	}
	for k, v := range c.values {
		out.values[name(k)] = v
	}
	for _, xs := range []*[][3]string{&out.triples, &out.filters} {
		slices.SortFunc(*xs, func(a, b [3]string) int { return strings.Compare(strings.Join(a[:], " "), strings.Join(b[:], " ")) })
		*xs = slices.Compact(*xs)
	}
	return out
}
