package prompts

// The executor renders a template from its parse tree compiled once into
// closures, without text/template's per-execution reflective walk (fields
// looked up by name, functions called through reflect.Value.Call, every
// value boxed for fmt). text/template stays the language and the
// reference: a block the compiler does not support is not compiled, and
// a compiled block declines (returns false) at the first value it is not
// sure to treat as text/template would (a nil pointer, an interface, a
// method, a type with methods to print); Render then executes the block
// with text/template from scratch, so the output, and any error, are
// always text/template's.
//
// Supported: text, comments, actions printing a pipeline of one command,
// if/else if/else, with/else, range over slices and arrays (with one or
// two declared variables, with else), {{template "name" pipeline}}, field
// chains on dot and on variables, $, string/number/bool literals, and the
// functions join, add1, eq, ne and not.

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"text/template"
	"text/template/parse"
)

// maxDepth bounds nested template calls; deeper, the executor declines
// and text/template reports its own limit.
const maxDepth = 1000

// A block is one compiled template: its steps and the variable slots of
// its frame ($ first, then the range variables, by lexical depth).
type block struct {
	body  []step
	slots int
	ok    bool  // compiled; false while compiling (a recursive call) or on failure
	err   error // why it is not compiled
}

// A step renders one node; false means the executor declined.
type step func(s *state, f int, dot value) bool

// An expr evaluates a pipeline or an argument.
type expr func(s *state, f int, dot value) (value, bool)

// state is one execution: the output and the frames' variables. A frame
// starting at index f holds a block's variable slot i at vars[f+i].
type state struct {
	w     *bytes.Buffer
	vars  []value
	depth int
}

var statePool = sync.Pool{New: func() any { return new(state) }}

// errUnsupported marks a construct the compiler leaves to text/template.
var errUnsupported = errors.New("not supported by the executor")

func unsupported(n parse.Node) error {
	return fmt.Errorf("%w: %s", errUnsupported, n)
}

// compileSet compiles every block of t the executor supports, by name.
func compileSet(t *template.Template) map[string]*block {
	c := &compiler{tmpl: t, blocks: map[string]*block{}}
	for _, tt := range t.Templates() {
		_, _ = c.block(tt.Name()) // a failure leaves the block to text/template
	}
	out := map[string]*block{}
	for name, b := range c.blocks {
		if b.ok {
			out[name] = b
		}
	}
	return out
}

// execute renders block b with data into w; false means the executor
// declined and w holds partial output. A panic in the executor (a value
// no check foresaw) declines too: text/template then renders, or reports,
// what the data gives.
func (b *block) execute(w *bytes.Buffer, data any) (ok bool) {
	if _, isValue := data.(reflect.Value); isValue {
		return false // text/template executes on the value itself
	}
	s := statePool.Get().(*state)
	defer func() {
		if recover() != nil {
			ok = false
		}
		clear(s.vars)
		s.w, s.vars = nil, s.vars[:0]
		statePool.Put(s)
	}()
	s.w, s.depth = w, 0
	return s.enter(b, value{rv: reflect.ValueOf(data)})
}

// enter runs block b in a new frame whose $ is dot: a template call
// inherits no variables.
func (s *state) enter(b *block, dot value) bool {
	if !b.ok || s.depth >= maxDepth {
		return false
	}
	f := len(s.vars)
	s.vars = append(s.vars, make([]value, b.slots)...)
	s.vars[f] = dot
	s.depth++
	ok := run(s, f, dot, b.body)
	s.depth--
	clear(s.vars[f:])
	s.vars = s.vars[:f]
	return ok
}

func run(s *state, f int, dot value, steps []step) bool {
	for _, st := range steps {
		if !st(s, f, dot) {
			return false
		}
	}
	return true
}

// compiler turns parse trees into blocks. vars names the variables in
// scope in the block being compiled, by slot.
type compiler struct {
	tmpl   *template.Template
	blocks map[string]*block
	vars   []string
	slots  int
}

// block compiles the template named name once; a recursive call gets the
// block being compiled, which is ok by the time it runs.
func (c *compiler) block(name string) (*block, error) {
	if b, ok := c.blocks[name]; ok {
		return b, b.err
	}
	t := c.tmpl.Lookup(name)
	if t == nil || t.Tree == nil || t.Root == nil {
		return nil, fmt.Errorf("%w: no template %q", errUnsupported, name)
	}
	b := &block{}
	c.blocks[name] = b
	vars, slots := c.vars, c.slots
	c.vars, c.slots = []string{"$"}, 1
	body, err := c.list(t.Root)
	b.slots = c.slots
	c.vars, c.slots = vars, slots
	if err != nil {
		b.err = err
		return nil, err
	}
	b.body, b.ok = body, true
	return b, nil
}

func (c *compiler) list(l *parse.ListNode) ([]step, error) {
	if l == nil {
		return nil, nil
	}
	var steps []step
	for _, n := range l.Nodes {
		st, err := c.node(n)
		if err != nil {
			return nil, err
		}
		if st != nil {
			steps = append(steps, st)
		}
	}
	return steps, nil
}

func (c *compiler) node(n parse.Node) (step, error) {
	switch n := n.(type) {
	case *parse.TextNode:
		text := n.Text
		return func(s *state, _ int, _ value) bool { s.w.Write(text); return true }, nil
	case *parse.CommentNode:
		return nil, nil
	case *parse.ActionNode:
		return c.action(n)
	case *parse.IfNode:
		return c.branch(&n.BranchNode, false)
	case *parse.WithNode:
		return c.branch(&n.BranchNode, true)
	case *parse.RangeNode:
		return c.rangeNode(n)
	case *parse.TemplateNode:
		return c.call(n)
	}
	return nil, unsupported(n)
}

// action prints its pipeline; an action that declares a variable is left
// to text/template.
func (c *compiler) action(n *parse.ActionNode) (step, error) {
	if st := c.printJoin(n.Pipe); st != nil {
		return st, nil
	}
	e, err := c.pipe(n.Pipe)
	if err != nil {
		return nil, err
	}
	p := new(printer)
	return func(s *state, f int, dot value) bool {
		v, ok := e(s, f, dot)
		return ok && p.print(s.w, v)
	}, nil
}

// branch is if (with false) or with: the else branch, and an else if,
// run on the enclosing dot.
func (c *compiler) branch(b *parse.BranchNode, with bool) (step, error) {
	cond, err := c.pipe(b.Pipe)
	if err != nil {
		return nil, err
	}
	then, err := c.list(b.List)
	if err != nil {
		return nil, err
	}
	els, err := c.list(b.ElseList)
	if err != nil {
		return nil, err
	}
	return func(s *state, f int, dot value) bool {
		v, ok := cond(s, f, dot)
		if !ok {
			return false
		}
		t, ok := v.truth()
		if !ok {
			return false
		}
		if !t {
			return run(s, f, dot, els)
		}
		if with {
			dot = v
		}
		return run(s, f, dot, then)
	}, nil
}

// rangeNode iterates a slice or an array. As in text/template, the
// declared variables hold the ranged value until an iteration sets them
// (the else branch sees it), the element is the last declared, the index
// the first of two, and a missing value runs the else branch.
func (c *compiler) rangeNode(r *parse.RangeNode) (step, error) {
	p := r.Pipe
	if p.IsAssign || len(p.Decl) > 2 || len(p.Cmds) != 1 {
		return nil, unsupported(r)
	}
	over, err := c.command(p.Cmds[0])
	if err != nil {
		return nil, err
	}
	mark := len(c.vars)
	for _, d := range p.Decl {
		c.vars = append(c.vars, d.Ident[0])
	}
	c.slots = max(c.slots, len(c.vars))
	body, err := c.list(r.List)
	if err != nil {
		return nil, err
	}
	els, err := c.list(r.ElseList)
	if err != nil {
		return nil, err
	}
	c.vars = c.vars[:mark]
	decls := len(p.Decl)
	return func(s *state, f int, dot value) bool {
		v, ok := over(s, f, dot)
		if !ok || v.k != kData {
			return false
		}
		for i := range decls {
			s.vars[f+mark+i] = v
		}
		rv, ok := deref(v.rv)
		if !ok {
			return false
		}
		switch rv.Kind() {
		case reflect.Slice, reflect.Array:
			if rv.Len() > 0 {
				return s.iterate(f, mark, decls, rv, body)
			}
		case reflect.Invalid:
		default:
			return false
		}
		return run(s, f, dot, els)
	}, nil
}

// iterate runs body on each element of rv, setting the range variables
// at slot mark of frame f.
func (s *state) iterate(f, mark, decls int, rv reflect.Value, body []step) bool {
	for i := range rv.Len() {
		elem := rv.Index(i)
		if elem.Kind() == reflect.Interface {
			return false
		}
		ev := value{rv: elem}
		switch decls {
		case 1:
			s.vars[f+mark] = ev
		case 2:
			s.vars[f+mark] = value{k: kInt, n: i}
			s.vars[f+mark+1] = ev
		}
		if !run(s, f, ev, body) {
			return false
		}
	}
	return true
}

// call compiles {{template "name" pipeline}}; the callee is looked up
// now, as the set's templates do not change once it is made.
func (c *compiler) call(n *parse.TemplateNode) (step, error) {
	arg := func(*state, int, value) (value, bool) { return value{}, true }
	if n.Pipe != nil {
		var err error
		if arg, err = c.pipe(n.Pipe); err != nil {
			return nil, err
		}
	}
	callee, err := c.block(n.Name)
	if err != nil {
		return nil, err
	}
	return func(s *state, f int, dot value) bool {
		v, ok := arg(s, f, dot)
		return ok && s.enter(callee, v)
	}, nil
}

// pipe compiles a pipeline of one command that declares no variable.
func (c *compiler) pipe(p *parse.PipeNode) (expr, error) {
	if p.IsAssign || len(p.Decl) > 0 || len(p.Cmds) != 1 {
		return nil, unsupported(p)
	}
	return c.command(p.Cmds[0])
}

func (c *compiler) command(cmd *parse.CommandNode) (expr, error) {
	if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok {
		return c.function(id.Ident, cmd.Args[1:])
	}
	if len(cmd.Args) > 1 {
		return nil, unsupported(cmd)
	}
	return c.operand(cmd.Args[0], anyParam)
}
