package prompts

// Values, fields, literals and printing of the executor (exec.go).

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"text/template/parse"
)

// kind tells where a value is held.
type kind uint8

const (
	kData kind = iota // rv: from the data, a string literal or join's result; an invalid rv is text/template's missing value
	kInt              // n, computed (a literal, a range index, add1)
	kBool             // n != 0, computed (a literal, eq, ne, not)
)

// value is what an expression yields. Computed ints and booleans are held
// unboxed, so that printing or comparing them allocates nothing; they
// stand for the int and bool values text/template would make of them.
// value is kept small: closures pass it in registers.
type value struct {
	rv reflect.Value
	n  int
	k  kind
}

var (
	stringType  = reflect.TypeFor[string]()
	intType     = reflect.TypeFor[int]()
	stringsType = reflect.TypeFor[[]string]()
)

// truth is text/template's truth of v (empty and zero values are false,
// a struct true); ok is false where text/template fails.
func (v value) truth() (t, ok bool) {
	if v.k != kData {
		return v.n != 0, true
	}
	rv := v.rv
	switch rv.Kind() {
	case reflect.Invalid:
		return false, true
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() > 0, true
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0, true
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0, true
	case reflect.Complex64, reflect.Complex128:
		return rv.Complex() != 0, true
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.Interface:
		return !rv.IsNil(), true
	case reflect.Struct:
		return true, true
	}
	return false, false
}

// deref follows non-nil pointers; ok is false at a nil one.
func deref(rv reflect.Value) (reflect.Value, bool) {
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return rv, false
		}
		rv = rv.Elem()
	}
	return rv, true
}

// field is one name of a field chain, with the index of the field in the
// struct type last seen there (a call site sees one type in practice).
type field struct {
	name string
	last atomic.Pointer[fieldIndex]
}

// fieldIndex is where field name lives in typ; index is nil when the
// executor leaves the name to text/template (a method, no such exported
// field).
type fieldIndex struct {
	typ   reflect.Type
	index []int
}

// get evaluates the field on rv. A missing value gives a missing value,
// as in text/template; a nil pointer, a non-struct or an interface field
// declines.
func (fl *field) get(rv reflect.Value) (reflect.Value, bool) {
	if !rv.IsValid() {
		return rv, true
	}
	rv, ok := deref(rv)
	if !ok || rv.Kind() != reflect.Struct {
		return rv, false
	}
	at := fl.last.Load()
	if at == nil || at.typ != rv.Type() {
		at = &fieldIndex{typ: rv.Type(), index: lookupField(rv.Type(), fl.name)}
		fl.last.Store(at)
	}
	var fv reflect.Value
	switch len(at.index) {
	case 0:
		return fv, false
	case 1:
		fv = rv.Field(at.index[0])
	default:
		var err error
		if fv, err = rv.FieldByIndexErr(at.index); err != nil {
			return fv, false
		}
	}
	return fv, fv.Kind() != reflect.Interface
}

// lookupField returns the index of the exported field name of struct type
// t, or nil when text/template would call a method of that name (of t or
// *t) or fail.
func lookupField(t reflect.Type, name string) []int {
	if _, ok := t.MethodByName(name); ok {
		return nil
	}
	if _, ok := reflect.PointerTo(t).MethodByName(name); ok {
		return nil
	}
	sf, ok := t.FieldByName(name)
	if !ok || !sf.IsExported() {
		return nil
	}
	return sf.Index
}

// chain is a field chain: .A.B, or $x.A.B after the variable.
type chain []*field

func newChain(names []string) chain {
	ch := make(chain, len(names))
	for i, n := range names {
		ch[i] = &field{name: n}
	}
	return ch
}

func (ch chain) eval(v value) (value, bool) {
	if len(ch) == 0 {
		return v, true
	}
	if v.k != kData {
		return value{}, false // a field of a computed value: text/template fails
	}
	rv := v.rv
	for _, fl := range ch {
		var ok bool
		if rv, ok = fl.get(rv); !ok {
			return value{}, false
		}
	}
	return value{rv: rv}, true
}

// param is the type of the parameter an operand is passed to, which
// decides how text/template reads a literal there.
type param uint8

const (
	anyParam     param = iota // a command, or a reflect.Value parameter (eq, ne, not)
	stringParam               // join's separator
	intParam                  // add1's argument
	stringsParam              // join's elements
)

// operand compiles dot, a field chain, a variable with its field chain,
// or a literal.
func (c *compiler) operand(n parse.Node, p param) (expr, error) {
	switch n := n.(type) {
	case *parse.DotNode:
		return func(_ *state, _ int, dot value) (value, bool) { return dot, true }, nil
	case *parse.FieldNode:
		if len(n.Ident) == 1 { // the common .Name, one call shorter
			fl := &field{name: n.Ident[0]}
			return func(_ *state, _ int, dot value) (value, bool) {
				rv, ok := fl.get(dot.rv)
				return value{rv: rv}, ok && dot.k == kData
			}, nil
		}
		ch := newChain(n.Ident)
		return func(_ *state, _ int, dot value) (value, bool) { return ch.eval(dot) }, nil
	case *parse.VariableNode:
		slot := c.lookup(n.Ident[0])
		if slot < 0 {
			return nil, unsupported(n)
		}
		ch := newChain(n.Ident[1:])
		return func(s *state, f int, _ value) (value, bool) { return ch.eval(s.vars[f+slot]) }, nil
	}
	v, ok := literal(n, p)
	if !ok {
		return nil, unsupported(n)
	}
	return func(*state, int, value) (value, bool) { return v, true }, nil
}

// lookup returns the slot of variable name, the innermost one, or -1.
func (c *compiler) lookup(name string) int {
	for i := len(c.vars) - 1; i >= 0; i-- {
		if c.vars[i] == name {
			return i
		}
	}
	return -1
}

// literal reads a string, bool or decimal integer literal as text/template
// does for a parameter p; other literals are left to it.
func literal(n parse.Node, p param) (value, bool) {
	switch n := n.(type) {
	case *parse.StringNode:
		return value{rv: reflect.ValueOf(n.Text)}, p == anyParam || p == stringParam
	case *parse.BoolNode:
		return value{k: kBool, n: b2i(n.True)}, p == anyParam
	case *parse.NumberNode:
		ok := n.IsInt && int64(int(n.Int64)) == n.Int64 &&
			(p == intParam || p == anyParam && decimal(n.Text))
		return value{k: kInt, n: int(n.Int64)}, ok
	}
	return value{}, false
}

// decimal reports whether s is a decimal integer, which text/template
// reads as an int (1e3 is a float, 'a' a rune).
func decimal(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// printer prints a value as text/template does (fmt.Sprint of it), with
// what it learned of the data type it printed last.
type printer struct {
	last atomic.Pointer[printHow]
}

type printHow struct {
	typ reflect.Type
	how printWay
}

type printWay uint8

const (
	printNo printWay = iota // text/template's printing may differ: decline
	printString
	printInt
	printUint
	printBool
	printFmt
)

func (p *printer) print(w *bytes.Buffer, v value) bool {
	switch v.k {
	case kInt:
		w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(v.n), 10))
		return true
	case kBool:
		w.WriteString(strconv.FormatBool(v.n != 0))
		return true
	}
	rv := v.rv
	if !rv.IsValid() {
		w.WriteString("<no value>")
		return true
	}
	h := p.last.Load()
	if h == nil || h.typ != rv.Type() {
		h = &printHow{typ: rv.Type(), how: howToPrint(rv.Type())}
		p.last.Store(h)
	}
	switch h.how {
	case printString:
		w.WriteString(rv.String())
	case printInt:
		w.Write(strconv.AppendInt(w.AvailableBuffer(), rv.Int(), 10))
	case printUint:
		w.Write(strconv.AppendUint(w.AvailableBuffer(), rv.Uint(), 10))
	case printBool:
		w.WriteString(strconv.FormatBool(rv.Bool()))
	case printFmt:
		fmt.Fprint(w, rv.Interface())
	default:
		return false
	}
	return true
}

// howToPrint decides how a value of type t prints. A type with methods
// (a String, Error or Format of t or *t would change fmt's output),
// pointers, interfaces, channels and functions are left to text/template;
// other composite kinds go through fmt as text/template sends them.
func howToPrint(t reflect.Type) printWay {
	if t.NumMethod() > 0 || reflect.PointerTo(t).NumMethod() > 0 {
		return printNo
	}
	switch t.Kind() {
	case reflect.String:
		return printString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return printInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return printUint
	case reflect.Bool:
		return printBool
	case reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return printNo
	}
	return printFmt
}
