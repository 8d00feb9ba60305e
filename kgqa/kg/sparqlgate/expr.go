package sparqlgate

import (
	"strings"

	"github.com/tggo/goRDFlib/sparql"
)

// builtins are the functions of SPARQL 1.1 (section 17.4), by the
// upper-case name the parser gives them. Nothing else may be called: an
// endpoint's extensions (Virtuoso's bif:, sql:) reach past the graph.
var builtins = map[string]bool{
	"STR": true, "LANG": true, "LANGMATCHES": true, "DATATYPE": true, "BOUND": true,
	"IRI": true, "URI": true, "BNODE": true, "RAND": true, "ABS": true, "CEIL": true,
	"FLOOR": true, "ROUND": true, "CONCAT": true, "SUBSTR": true, "STRLEN": true,
	"REPLACE": true, "UCASE": true, "LCASE": true, "ENCODE_FOR_URI": true,
	"CONTAINS": true, "STRSTARTS": true, "STRENDS": true, "STRBEFORE": true,
	"STRAFTER": true, "YEAR": true, "MONTH": true, "DAY": true, "HOURS": true,
	"MINUTES": true, "SECONDS": true, "TIMEZONE": true, "TZ": true, "NOW": true,
	"UUID": true, "STRUUID": true, "MD5": true, "SHA1": true, "SHA256": true,
	"SHA384": true, "SHA512": true, "COALESCE": true, "IF": true, "STRLANG": true,
	"STRDT": true, "SAMETERM": true, "ISIRI": true, "ISURI": true, "ISBLANK": true,
	"ISLITERAL": true, "ISNUMERIC": true, "REGEX": true,
}

// aggregates are SPARQL 1.1's set functions.
var aggregates = map[string]bool{
	"COUNT": true, "SUM": true, "MIN": true, "MAX": true, "AVG": true,
	"SAMPLE": true, "GROUP_CONCAT": true,
}

// casts are the XSD constructor functions SPARQL 1.1 defines; the parser
// gives them as upper-cased IRIs.
var casts = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{"string", "boolean", "integer", "decimal", "float", "double", "dateTime"} {
		m[strings.ToUpper(xsdNS+t)] = xsdNS + t
	}
	return m
}()

// binaryOps are the operators the parser produces (IN and NOT IN arrive as
// chains of = and !=).
var binaryOps = map[string]bool{
	"||": true, "&&": true, "=": true, "!=": true, "<": true, ">": true,
	"<=": true, ">=": true, "+": true, "-": true, "*": true, "/": true,
}

// expr writes an expression, fully bracketed.
func (w *writer) expr(e sparql.Expr) {
	if w.err != nil {
		return
	}
	switch e := e.(type) {
	case *sparql.VarExpr:
		w.variable(e.Name)
	case *sparql.LiteralExpr:
		if e.Value == nil {
			w.fail("an empty literal")
			return
		}
		w.rdfTerm(e.Value)
	case *sparql.IRIExpr:
		w.iri(e.Value)
	case *sparql.BinaryExpr:
		if !binaryOps[e.Op] {
			w.fail("operator %q is not allowed", e.Op)
			return
		}
		w.str("(")
		w.expr(e.Left)
		w.str(" " + e.Op + " ")
		w.expr(e.Right)
		w.str(")")
	case *sparql.UnaryExpr:
		if e.Op != "!" && e.Op != "-" && e.Op != "+" {
			w.fail("operator %q is not allowed", e.Op)
			return
		}
		w.str("(" + e.Op)
		w.expr(e.Arg)
		w.str(")")
	case *sparql.ExistsExpr:
		if e.Not {
			w.str("NOT ")
		}
		w.str("EXISTS ")
		w.group(e.Pattern)
	case *sparql.FuncExpr:
		w.call(e)
	default:
		w.fail("unsupported expression %T", e)
	}
}

func (w *writer) call(f *sparql.FuncExpr) {
	switch {
	case aggregates[f.Name]:
		w.aggregate(f)
		return
	case builtins[f.Name]:
		w.str(f.Name)
	case casts[f.Name] != "":
		// goRDFlib reads a function call only by a prefixed name, not by
		// a full IRI, so a cast is written xsd:T and render declares xsd:.
		w.str("xsd:" + strings.TrimPrefix(casts[f.Name], xsdNS))
		w.casts = true
	default:
		w.fail("function %s is not a SPARQL 1.1 built-in", clip(strings.ToLower(f.Name)))
		return
	}
	if f.Distinct || f.Star || f.Separator != "" {
		w.fail("DISTINCT, * and SEPARATOR belong to aggregates only")
		return
	}
	w.str("(")
	for i, a := range f.Args {
		if i > 0 {
			w.str(", ")
		}
		w.expr(a)
	}
	w.str(")")
}

func (w *writer) aggregate(f *sparql.FuncExpr) {
	w.str(f.Name + "(")
	if f.Distinct {
		w.str("DISTINCT ")
	}
	switch {
	case f.Star && f.Name == "COUNT" && len(f.Args) == 0:
		w.str("*")
	case !f.Star && len(f.Args) == 1:
		w.expr(f.Args[0])
	default:
		w.fail("%s takes one argument", f.Name)
		return
	}
	if f.Name == "GROUP_CONCAT" && f.Separator != " " {
		sep, err := literalText(f.Separator, "", "")
		if err != nil {
			w.fail("%v", err)
			return
		}
		w.str(" ; SEPARATOR=" + sep)
	}
	w.str(")")
}
