package sparql2plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
)

// filter classifies one FILTER expression. Boilerplate is noted and
// dropped: the distinctness filters (?x != ?c, GrailQA's chains of !=), the
// language filter (!isLiteral(?x) OR lang(?x) = ” OR langMatches(...)).
// Time-validity filters (NOT EXISTS {?y from ?d} || EXISTS {... ?d <=
// date}) become qualifiers of their mediator, not comparisons. What is
// left is a comparison of a value with a constant (comparative), an
// equality with a constant (a fixed value), or of two date values (a time
// overlap, again a qualifier).
func (x *extractor) filter(e sparqlsyntax.Expr) error {
	switch f := e.(type) {
	case *sparqlsyntax.InExpr:
		return x.filter(inAsBinary(f))
	case *sparqlsyntax.BinaryExpr:
		switch f.Op {
		case "&&":
			if err := x.filter(f.Left); err != nil {
				return err
			}
			return x.filter(f.Right)
		case "||":
			if isLangFilter(f) {
				x.g.notes = append(x.g.notes, "language-filter")
				return nil
			}
			if ok := x.timeValidity(f); ok {
				x.g.notes = append(x.g.notes, "time-validity")
				return nil
			}
			return unsupported("disjunctive FILTER")
		case "!=":
			x.g.notes = append(x.g.notes, "distinct-filter")
			return nil
		case "=", "<", "<=", ">", ">=":
			return x.comparison(f)
		}
		return unsupported("FILTER operator %s", f.Op)
	case *sparqlsyntax.UnaryExpr, *sparqlsyntax.CallExpr:
		if f, ok := e.(*sparqlsyntax.CallExpr); ok && strings.EqualFold(f.Name, "REGEX") && len(f.Args) >= 2 {
			if _, isVar := unwrapVar(f.Args[0]); isVar {
				// The certificate compiler's guard that a compared value
				// is a date: what the comparison itself requires.
				x.g.notes = append(x.g.notes, "value-guard")
				return nil
			}
		}
		if isLangFilter(e) {
			x.g.notes = append(x.g.notes, "language-filter")
			return nil
		}
	}
	return unsupported("FILTER %s", exprKind(e))
}

// exprKind names an expression's kind for a refusal.
func exprKind(e sparqlsyntax.Expr) string {
	switch e := e.(type) {
	case *sparqlsyntax.ExistsExpr:
		if e.Not {
			return "NOT EXISTS"
		}
		return "EXISTS"
	case *sparqlsyntax.VarExpr:
		return "variable"
	case *sparqlsyntax.IRIExpr, *sparqlsyntax.LiteralExpr:
		return "constant"
	case *sparqlsyntax.UnaryExpr:
		return "operator " + e.Op
	case *sparqlsyntax.CallExpr:
		return "call " + e.Name
	}
	return fmt.Sprintf("%T", e)
}

// inAsBinary writes x IN (a, b) as x = a || x = b, and x NOT IN (a, b)
// as x != a && x != b: the forms the filters are read in.
func inAsBinary(in *sparqlsyntax.InExpr) sparqlsyntax.Expr {
	op, join := "=", "||"
	if in.Not {
		op, join = "!=", "&&"
	}
	if len(in.List) == 0 {
		return &sparqlsyntax.LiteralExpr{Value: sparqlsyntax.Term{Kind: sparqlsyntax.KindLiteral, Value: strconv.FormatBool(in.Not), Datatype: sparqlsyntax.XSDBoolean}}
	}
	var out sparqlsyntax.Expr
	for _, item := range in.List {
		var cmp sparqlsyntax.Expr = &sparqlsyntax.BinaryExpr{Op: op, Left: in.Expr, Right: item}
		if out != nil {
			cmp = &sparqlsyntax.BinaryExpr{Op: join, Left: out, Right: cmp}
		}
		out = cmp
	}
	return out
}

var langFuncs = map[string]bool{"isliteral": true, "lang": true, "langmatches": true, "isiri": true, "isuri": true, "isblank": true}

// isLangFilter reports whether every function called in e is a term-kind
// or language test, and there is at least one.
func isLangFilter(e sparqlsyntax.Expr) bool {
	found, other := false, false
	var walk func(e sparqlsyntax.Expr)
	walk = func(e sparqlsyntax.Expr) {
		switch f := e.(type) {
		case *sparqlsyntax.InExpr:
			walk(inAsBinary(f))
		case *sparqlsyntax.BinaryExpr:
			walk(f.Left)
			walk(f.Right)
		case *sparqlsyntax.UnaryExpr:
			walk(f.Arg)
		case *sparqlsyntax.CallExpr:
			if langFuncs[strings.ToLower(f.Name)] {
				found = true
			} else {
				other = true
			}
			for _, a := range f.Args {
				walk(a)
			}
		case *sparqlsyntax.ExistsExpr:
			other = true
		}
	}
	walk(e)
	return found && !other
}

// timeValidity recognises NOT EXISTS {?y r ?a} || EXISTS {?y r ?b .
// FILTER(?b cmp "date")} and records it on ?y.
func (x *extractor) timeValidity(f *sparqlsyntax.BinaryExpr) bool {
	tv, ok := parseTimeValidity(f)
	if !ok {
		return false
	}
	k := tv.subject.key()
	x.g.cons[k] = append(x.g.cons[k], constraint{kind: consTime, attr: []string{tv.relation}, cmp: tv.cmp, value: tv.value.value, datatype: tv.value.datatype, open: true})
	return true
}

// openTime is a time-validity filter with an open end: the subject has
// no value along relation, or one that compares with value as cmp says.
type openTime struct {
	subject  term
	relation string
	cmp      string
	value    term
}

// parseTimeValidity reads NOT EXISTS {?y r ?a} || EXISTS {?y r ?b .
// FILTER(?b cmp "date")}, the form WebQSP and CWQ write "valid at a
// time" in (either operand first); the two patterns must name the same
// subject and relation.
func parseTimeValidity(f *sparqlsyntax.BinaryExpr) (openTime, bool) {
	not, ok1 := f.Left.(*sparqlsyntax.ExistsExpr)
	ex, ok2 := f.Right.(*sparqlsyntax.ExistsExpr)
	if ok1 && ok2 && !not.Not && ex.Not {
		not, ex = ex, not
	}
	if !ok1 || !ok2 || !not.Not || ex.Not {
		return openTime{}, false
	}
	nb, ok := not.Pattern.(*sparqlsyntax.BGP)
	if !ok || len(nb.Triples) != 1 || nb.Triples[0].Path != nil || nb.Triples[0].Object.Kind != sparqlsyntax.KindVar {
		return openTime{}, false
	}
	fp, ok := ex.Pattern.(*sparqlsyntax.Filter)
	if !ok {
		return openTime{}, false
	}
	bgp, ok := fp.Pattern.(*sparqlsyntax.BGP)
	if !ok || len(bgp.Triples) != 1 || bgp.Triples[0].Path != nil {
		return openTime{}, false
	}
	cmp, ok := fp.Expr.(*sparqlsyntax.BinaryExpr)
	if !ok {
		return openTime{}, false
	}
	op := cmp.Op
	v, ok := unwrapVar(cmp.Left)
	c, ok2 := exprConst(cmp.Right)
	if !ok {
		v, ok = unwrapVar(cmp.Right)
		c, ok2 = exprConst(cmp.Left)
		op = flipCmp[op]
	}
	if obj := bgp.Triples[0].Object; !ok || !ok2 || obj.Kind != sparqlsyntax.KindVar || obj.Value != v || flipCmp[op] == "" {
		return openTime{}, false
	}
	s, p := resolve(bgp.Triples[0].Subject), resolve(bgp.Triples[0].Predicate)
	if ns, np := resolve(nb.Triples[0].Subject), resolve(nb.Triples[0].Predicate); ns.key() != s.key() || np.value != p.value {
		return openTime{}, false
	}
	return openTime{subject: s, relation: p.value, cmp: op, value: c}, true
}

var flipCmp = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}

// difference rewrites "a - b cmp 0" as "a cmp b" when one side is a
// constant: WebQSP compares dates so (FILTER(xsd:dateTime(?d) -
// xsd:dateTime("2014-01-01") >= 0)). Between two variables it stays an
// arithmetic comparison, which is refused: the plan has no way to say
// "before" or "after" another variable's date.
func difference(f *sparqlsyntax.BinaryExpr) *sparqlsyntax.BinaryExpr {
	d, ok := f.Left.(*sparqlsyntax.BinaryExpr)
	if !ok || d.Op != "-" {
		return f
	}
	_, lconst := exprConst(d.Left)
	_, rconst := exprConst(d.Right)
	if lconst == rconst {
		return f
	}
	if z, ok := exprConst(f.Right); !ok || z.kind != kindLiteral || z.value != "0" {
		return f
	}
	return &sparqlsyntax.BinaryExpr{Op: f.Op, Left: d.Left, Right: d.Right}
}

func (x *extractor) comparison(f *sparqlsyntax.BinaryExpr) error {
	f = difference(f)
	lv, lok := unwrapVar(f.Left)
	rv, rok := unwrapVar(f.Right)
	op := f.Op
	switch {
	case lok && rok:
		if op == "=" {
			// A value equal to a sub-select's best value (the certificate
			// compiler's superlative) is the ordered value itself.
			for _, pair := range [][2]string{{lv, rv}, {rv, lv}} {
				if a := x.g.attrs[pair[1]]; a != nil && a.order != "" && len(a.cmp) == 0 && len(a.timeCmp) == 0 {
					x.g.attr(pair[0]).order = a.order
					delete(x.g.attrs, pair[1])
					return nil
				}
			}
			return unsupported("FILTER equating two variables")
		}
		// Recorded on both sides: whichever side's owner is a given
		// entity, the other side's owner is constrained by it.
		a := x.g.attr(lv)
		a.timeCmp = append(a.timeCmp, timeCmp{cmp: op, other: rv})
		b := x.g.attr(rv)
		b.timeCmp = append(b.timeCmp, timeCmp{cmp: flipCmp[op], other: lv})
		return nil
	case rok:
		lv, op, f = rv, flipCmp[op], &sparqlsyntax.BinaryExpr{Op: flipCmp[op], Left: f.Right, Right: f.Left}
	case !lok:
		return unsupported("FILTER comparison without a variable")
	}
	c, ok := exprConst(f.Right)
	if !ok {
		return unsupported("FILTER comparison with an expression")
	}
	if op == "=" {
		// A fixed value: the variable is that constant; compared through
		// str() it is its text.
		c.text = c.kind == kindLiteral && isStr(f.Left)
		x.subst[lv] = c
		return nil
	}
	a := x.g.attr(lv)
	a.cmp = append(a.cmp, constraint{kind: consCompare, cmp: op, value: c.value, datatype: c.datatype})
	return nil
}

// isStr reports whether e is str(...) of something.
func isStr(e sparqlsyntax.Expr) bool {
	f, ok := e.(*sparqlsyntax.CallExpr)
	return ok && strings.EqualFold(f.Name, "str") && len(f.Args) == 1
}
