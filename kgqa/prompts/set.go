package prompts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
)

// Set is one set of prompt templates: the built-in one, or one loaded from
// a directory (prompts.dir) and validated. The replies' JSON schemas are
// the engine's contract and always the built-in ones.
type Set struct {
	tmpl *template.Template
	name string
}

// Name names the set for the trace and the eval report: "builtin", or
// "dir:" and the first 12 hex digits of the SHA-256 of the directory's
// templates (names and contents), so two runs name the same templates
// alike wherever the directory lives.
func (set *Set) Name() string { return set.name }

// Builtin is the set compiled into the binary.
var Builtin = func() *Set {
	t, err := parseFS(files)
	if err != nil {
		panic(err)
	}
	return &Set{tmpl: t, name: "builtin"}
}()

// commonFile defines the blocks the stages share (planview, facts).
const commonFile = "common.tmpl"

// templateFiles lists the files of a set: one per stage (a stage sharing
// another's template has its own file all the same) and the common blocks.
func templateFiles() []string {
	out := []string{commonFile}
	for _, n := range Names {
		out = append(out, n+".tmpl")
	}
	return out
}

func parseFS(fsys fs.FS) (*template.Template, error) {
	root := template.New("").Funcs(funcs)
	for _, f := range templateFiles() {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("prompts: template %s: %w", f, err)
		}
		if _, err := root.New(f).Parse(string(b)); err != nil {
			return nil, fmt.Errorf("prompts: template %s: %w", f, err)
		}
	}
	return root, nil
}

// Dump writes the built-in templates into dir, one file per stage and
// common.tmpl, as a starting point for prompts.dir.
func Dump(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("prompts: dump: %w", err)
	}
	return DumpTo(func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	})
}

// DumpTo gives the built-in templates to write, one file per stage and
// common.tmpl by name; the caller decides how a file is written (parog
// prompts dump checks each path).
func DumpTo(write func(name string, data []byte) error) error {
	for _, f := range templateFiles() {
		b, err := files.ReadFile(f)
		if err != nil {
			return fmt.Errorf("prompts: dump: %w", err)
		}
		if err := write(f, b); err != nil {
			return fmt.Errorf("prompts: dump: %w", err)
		}
	}
	return nil
}

// Load reads and validates the templates of dir; it returns the first
// error: a template missing, a file that is not a template of a known
// stage, a template that does not parse, a stage without its "system" or
// "user" block, or a block that names a field its stage's data lacks.
// Fields are checked by executing each block on two samples of its data,
// one with every field set and one with none, so both sides of an
// {{if}} on a single field run.
func Load(dir string) (*Set, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("prompts: load %s: %w", dir, err)
	}
	known := templateFiles()
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmpl") && !slices.Contains(known, e.Name()) {
			return nil, fmt.Errorf("prompts: load %s: %s is not the template of a stage (stages: %s)", dir, e.Name(), strings.Join(Names, ", "))
		}
	}
	t, err := parseFS(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("prompts: load %s: %w", dir, err)
	}
	set := &Set{tmpl: t}
	if err := set.validate(); err != nil {
		return nil, fmt.Errorf("prompts: load %s: %w", dir, err)
	}
	h := sha256.New()
	for _, f := range known {
		b, _ := os.ReadFile(filepath.Join(dir, f)) // parseFS read each one
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	set.name = "dir:" + hex.EncodeToString(h.Sum(nil))[:12]
	return set, nil
}

// stageData gives the data type each stage's template executes on.
var stageData = map[string]any{
	Plan: PlanData{}, PlanFewShot: PlanData{}, Mentions: MentionsData{},
	Tentative: SubgoalData{}, Relations: RelationsData{}, Prune: PruneData{},
	Refine: RefineData{}, Sufficiency: SufficiencyData{}, Final: SufficiencyData{},
	Select: SelectData{}, LQTAtoms: LQTAtomsData{}, LQTRelation: LQTRelationData{},
	LQTMerge: LQTMergeData{},
	FollowUp: FollowUpData{},
}

func (set *Set) validate() error {
	stages := slices.Clone(Names)
	sort.Strings(stages)
	for _, stage := range stages {
		typ := reflect.TypeOf(stageData[stage])
		for _, part := range []string{"system", "user"} {
			if set.tmpl.Lookup(stage+"."+part) == nil {
				return fmt.Errorf("%s.tmpl: no {{define %q}} block", stage, stage+"."+part)
			}
		}
		for _, sample := range []any{reflect.Zero(typ).Interface(), filled(typ).Interface()} {
			for _, part := range []string{"system", "user"} {
				if err := set.tryBlock(stage+"."+part, sample); err != nil {
					return fmt.Errorf("%s.tmpl: %w", stage, err)
				}
			}
		}
	}
	return nil
}

// The bounds of rendering a block while a set is validated: a template
// that expands without end (blocks that each call the one below twice)
// is refused, not expanded.
const (
	validateMaxOutput = 1 << 20
	validateMaxTime   = 2 * time.Second
)

// errBounds reports a block past the validation bounds.
var errBounds = errors.New("prompts: block past the validation limit")

// tryBlock renders the block name on data with text/template into a
// writer that refuses more than validateMaxOutput bytes or any write
// after validateMaxTime. A block that loops without writing cannot be
// stopped from outside: it is left running and refused at the time
// limit, and the process that loaded it refuses to start.
func (set *Set) tryBlock(name string, data any) error {
	t := set.tmpl.Lookup(name)
	if t == nil {
		return fmt.Errorf("no {{define %q}} block", name)
	}
	if n := expansion(set.tmpl, name, map[string]float64{}, map[string]bool{}); n > validateMaxNodes {
		return fmt.Errorf("%s: expands to more than the limit of %d nodes through its {{template}} calls (%.3g): %w", name, validateMaxNodes, n, errBounds)
	}
	w := &boundedWriter{left: validateMaxOutput, until: time.Now().Add(validateMaxTime)}
	done := make(chan error, 1)
	go func() { done <- t.Execute(w, data) }()
	timer := time.NewTimer(validateMaxTime)
	defer timer.Stop()
	select {
	case err := <-done:
		switch {
		case errors.Is(err, errBounds):
			return fmt.Errorf("%s: renders more than the limit of %d bytes or %s on sample data: %w", name, validateMaxOutput, validateMaxTime, errBounds)
		case err != nil:
			stage, _, _ := strings.Cut(name, ".")
			return fmt.Errorf("prompts: render %s: %w", stage, err)
		}
		return nil
	case <-timer.C:
		return fmt.Errorf("%s: renders for longer than the limit of %s on sample data: %w", name, validateMaxTime, errBounds)
	}
}

// validateMaxNodes bounds the nodes a block expands to through its
// {{template}} calls, counted without executing it: a block that loops
// without writing cannot be stopped once it runs.
const validateMaxNodes = 1_000_000

// expansion counts the nodes the block name expands to, each {{template}}
// call counted as the expansion of what it calls (a loop's body once). A
// block that calls itself, directly or not, is left to the bounds of
// execution.
func expansion(root *template.Template, name string, memo map[string]float64, busy map[string]bool) float64 {
	if n, ok := memo[name]; ok {
		return n
	}
	t := root.Lookup(name)
	if t == nil || t.Tree == nil || busy[name] {
		return 1
	}
	busy[name] = true
	defer delete(busy, name)
	var walk func(parse.Node) float64
	walk = func(n parse.Node) float64 {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return 0
			}
			sum := 0.0
			for _, c := range n.Nodes {
				sum += walk(c)
			}
			return sum
		case *parse.IfNode:
			return 1 + walk(n.List) + walk(n.ElseList)
		case *parse.RangeNode:
			return 1 + walk(n.List) + walk(n.ElseList)
		case *parse.WithNode:
			return 1 + walk(n.List) + walk(n.ElseList)
		case *parse.TemplateNode:
			return 1 + expansion(root, n.Name, memo, busy)
		}
		return 1
	}
	n := walk(t.Tree.Root)
	memo[name] = n
	return n
}

// boundedWriter counts and drops what a block writes, and fails once past
// its bounds, which stops text/template's execution.
type boundedWriter struct {
	left  int
	until time.Time
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	w.left -= len(p)
	if w.left < 0 || time.Now().After(w.until) {
		return 0, errBounds
	}
	return len(p), nil
}

// filled returns a value of typ with every field set: strings "x", numbers
// 2, booleans true, two elements in every slice.
func filled(typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(2)
	case reflect.Float64:
		v.SetFloat(2)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(typ, 0, 2))
		for range 2 {
			v.Set(reflect.Append(v, filled(typ.Elem())))
		}
	case reflect.Struct:
		for i := range typ.NumField() {
			if typ.Field(i).IsExported() {
				v.Field(i).Set(filled(typ.Field(i).Type))
			}
		}
	}
	return v
}
