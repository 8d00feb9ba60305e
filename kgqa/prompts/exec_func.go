package prompts

// The functions of the executor (exec.go): funcs' join and add1, and
// text/template's eq, ne and not.

import (
	"fmt"
	"reflect"
	"strings"
	"text/template/parse"
)

// function compiles a call of join, add1, eq, ne or not, each with the
// arguments text/template would accept. join and add1 are funcs'; a
// name funcs defines shadows the builtin of that name, as in
// text/template, and is left to it.
func (c *compiler) function(name string, args []parse.Node) (expr, error) {
	_, own := funcs[name]
	var params []param
	switch {
	case own && name == "join":
		params = []param{stringsParam, stringParam}
	case own && name == "add1":
		params = []param{intParam}
	case !own && (name == "eq" || name == "ne"):
		params = []param{anyParam, anyParam}
	case !own && name == "not":
		params = []param{anyParam}
	}
	if params == nil || len(args) != len(params) {
		return nil, fmt.Errorf("%w: function %s with %d arguments", errUnsupported, name, len(args))
	}
	ev := make([]expr, len(args))
	for i, a := range args {
		var err error
		if ev[i], err = c.operand(a, params[i]); err != nil {
			return nil, err
		}
	}
	switch name {
	case "join":
		return func(s *state, f int, dot value) (value, bool) {
			var b strings.Builder
			ok := join(&b, s, f, dot, ev[0], ev[1])
			return value{rv: reflect.ValueOf(b.String())}, ok
		}, nil
	case "add1":
		return func(s *state, f int, dot value) (value, bool) {
			v, ok := ev[0](s, f, dot)
			n, ok2 := v.int()
			return value{k: kInt, n: n + 1}, ok && ok2
		}, nil
	case "not":
		return func(s *state, f int, dot value) (value, bool) {
			v, ok := ev[0](s, f, dot)
			t, _ := v.truth() // not reads a missing value and an unknown kind as false
			return value{k: kBool, n: b2i(!t)}, ok
		}, nil
	}
	ne := name == "ne"
	return func(s *state, f int, dot value) (value, bool) {
		a, ok := ev[0](s, f, dot)
		b, ok2 := ev[1](s, f, dot)
		eq, ok3 := equal(a, b)
		return value{k: kBool, n: b2i(eq != ne)}, ok && ok2 && ok3
	}, nil
}

// printJoin compiles an action that prints one join call to write the
// elements into the output, with no string made; nil if n is not one.
func (c *compiler) printJoin(p *parse.PipeNode) step {
	if len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 3 {
		return nil
	}
	if id, ok := p.Cmds[0].Args[0].(*parse.IdentifierNode); !ok || id.Ident != "join" {
		return nil
	}
	if _, own := funcs["join"]; !own {
		return nil
	}
	elems, err := c.operand(p.Cmds[0].Args[1], stringsParam)
	if err != nil {
		return nil
	}
	sep, err := c.operand(p.Cmds[0].Args[2], stringParam)
	if err != nil {
		return nil
	}
	return func(s *state, f int, dot value) bool {
		return join(s.w, s, f, dot, elems, sep)
	}
}

// join writes strings.Join of its arguments' values into w, if they are
// a []string (or a slice type assignable to it; a missing value is a nil
// one) and a string.
func join(w interface{ WriteString(string) (int, error) }, s *state, f int, dot value, elems, sep expr) bool {
	ev, ok := elems(s, f, dot)
	if !ok || ev.k != kData || ev.rv.IsValid() && !ev.rv.Type().AssignableTo(stringsType) {
		return false
	}
	sv, ok := sep(s, f, dot)
	if !ok {
		return false
	}
	sepStr, ok := sv.string()
	if !ok {
		return false
	}
	if !ev.rv.IsValid() {
		return true
	}
	for i := range ev.rv.Len() {
		if i > 0 {
			w.WriteString(sepStr)
		}
		w.WriteString(ev.rv.Index(i).String())
	}
	return true
}

// string is v as a string parameter: a string, not a named string type
// (text/template refuses one).
func (v value) string() (string, bool) {
	if v.k == kData && v.rv.IsValid() && v.rv.Type() == stringType {
		return v.rv.String(), true
	}
	return "", false
}

// int is v as an int parameter.
func (v value) int() (int, bool) {
	switch {
	case v.k == kInt:
		return v.n, true
	case v.k == kData && v.rv.IsValid() && v.rv.Type() == intType:
		return int(v.rv.Int()), true
	}
	return 0, false
}

// kString is the class of strings in a basic.
const kString = kBool + 1

// basic is a value of a basic kind as eq compares it.
type basic struct {
	class kind // kString, kInt or kBool; kData for the other kinds
	s     string
	n     int64
}

func (v value) basic() basic {
	if v.k != kData {
		return basic{class: v.k, n: int64(v.n)}
	}
	switch v.rv.Kind() {
	case reflect.String:
		return basic{class: kString, s: v.rv.String()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return basic{class: kInt, n: v.rv.Int()}
	case reflect.Bool:
		return basic{class: kBool, n: int64(b2i(v.rv.Bool()))}
	}
	return basic{class: kData}
}

// equal is text/template's eq of two strings, two signed integers or two
// booleans, of any types of those kinds, and of a missing value with a
// value (false); ok is false for anything else.
func equal(a, b value) (eq, ok bool) {
	if missing(a) != missing(b) {
		return false, true
	}
	x, y := a.basic(), b.basic()
	if x.class == kData || x.class != y.class {
		return false, false
	}
	return x == y, true
}

// missing reports whether v is text/template's missing value.
func missing(v value) bool { return v.k == kData && !v.rv.IsValid() }
