package prompts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rendering is one block rendered both ways.
type rendering struct {
	got      string // the executor's output
	declined bool   // the executor declined (got is partial)
	want     string // text/template's output
	wantErr  error  // text/template's error
}

// renderBoth renders block name of set with data by the executor and by
// text/template. The block must be compiled.
func renderBoth(t *testing.T, set *Set, name string, data any) rendering {
	t.Helper()
	c := set.compiled[name]
	require.NotNil(t, c, "block %s is compiled", name)
	var got, want bytes.Buffer
	r := rendering{declined: !c.execute(&got, data)}
	r.wantErr = set.tmpl.Lookup(name).Execute(&want, data)
	r.got, r.want = got.String(), want.String()
	return r
}

// checkSame fails when the executor rendered something text/template did
// not, or rendered where text/template fails.
func checkSame(t *testing.T, r rendering, msg ...any) {
	t.Helper()
	if r.declined {
		return
	}
	require.NoError(t, r.wantErr, msg...)
	require.Equal(t, r.want, r.got, msg...)
}

// Every block of the built-in set with actions is compiled, and renders
// the bytes text/template renders for the tests' sample data, the
// validation samples (zero and filled), a pointer to the sample and no
// data at all, without declining on any.
func TestExecutorMatchesTextTemplateOnEveryStage(t *testing.T) {
	for _, tt := range Builtin.tmpl.Templates() {
		if _, static := Builtin.static[tt.Name()]; !static && tt.Tree != nil {
			assert.NotNil(t, Builtin.compiled[tt.Name()], "block %s is compiled", tt.Name())
		}
	}
	samples := sampleData()
	for _, stage := range Names {
		typ := reflect.TypeOf(stageData[stage])
		sample := samples[stage]
		ptr := reflect.New(typ)
		ptr.Elem().Set(reflect.ValueOf(sample))
		data := map[string]any{"sample": sample, "zero": reflect.Zero(typ).Interface(),
			"filled": filled(typ).Interface(), "pointer": ptr.Interface(), "nil": nil}
		for _, part := range []string{"system", "user"} {
			name := stage + "." + part
			if _, static := Builtin.static[name]; static {
				continue
			}
			for what, d := range data {
				r := renderBoth(t, Builtin, name, d)
				assert.False(t, r.declined, "%s on %s data", name, what)
				checkSame(t, r, "%s on %s data", name, what)
			}
		}
	}
}

// The executor supports more than the built-in set uses; each construct
// renders as text/template renders it, or declines where text/template
// fails.
func TestExecutorConstructs(t *testing.T) {
	data := RelationsData{Plan: samplePlan(), Subgoal: "Find it.", Anchors: []string{"a", "b"}, Max: 3,
		Out: []RelationGroup{{Type: "t", Names: []string{"x", "y"}}, {Names: nil}}}
	cases := []struct {
		name, text string
		compiled   bool
	}{
		{"range else", `{{range .In}}{{.Type}}{{else}}none{{end}}|{{range $g := .Out}}{{$g.Type}};{{end}}`, true},
		{"range var in else", `{{range $x := .In}}{{$x}}{{else}}{{$x}}{{end}}`, true},
		{"nested range vars", `{{range $i, $g := .Out}}{{range $j, $n := $g.Names}}{{$i}}.{{$j}}={{$n}}/{{$.Max}} {{end}}{{end}}`, true},
		{"with and else with", `{{with .Attribute}}A{{.}}{{else with .Subgoal}}S{{.}}{{else}}N{{end}}`, true},
		{"else if", `{{if .In}}in{{else if eq .Max 3}}three{{else}}other{{end}}`, true},
		{"ne, not, literals", `{{ne .Subgoal "x"}} {{not .Out}} {{eq 3 .Max}} {{true}} {{"s"}} {{7}} {{not 0}}`, true},
		{"join and add1", `{{join .Anchors "; "}}|{{with join .Anchors ","}}{{.}}{{end}}|{{add1 .Max}} {{add1 2}}`, true},
		{"printing composites", `{{.Anchors}} {{.Out}} {{.Plan.Subgoals}} {{.}}`, true},
		{"calls", `{{template "sub" .Plan}}{{template "sub"}}{{define "sub"}}<{{.Question}}:{{.Current}}>{{end}}`, true},
		{"comments and trim", "{{/* c */}}  a  {{- .Max -}}  b {{- /* d */ -}} c", true},
		{"recursion", `{{define "r"}}{{if .}}{{template "r" .}}{{end}}{{end}}{{template "r" .Max}}`, true},
		{"eq of two kinds", `{{eq .Subgoal 3}}`, true},
		{"field of a string", `{{.Subgoal.Len}}`, true},
		{"float literal", `{{eq .Max 3.0}}`, false},
		{"printf", `{{printf "%q" .Subgoal}}`, false},
		{"a variable declared", `{{$m := .Max}}{{$m}}`, false},
		{"a pipeline", `{{.Max | add1}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := template.New("root").Funcs(funcs).Parse(tc.text)
			require.NoError(t, err)
			set := &Set{tmpl: tmpl, compiled: compileSet(tmpl)}
			require.Equal(t, tc.compiled, set.compiled["root"] != nil)
			if !tc.compiled {
				return
			}
			for _, d := range []any{data, &data, RelationsData{}, nil} {
				checkSame(t, renderBoth(t, set, "root", d), "%T", d)
			}
		})
	}
}

// A set loaded from a directory whose tentative.user uses printf and len,
// which the executor leaves to text/template: that block is not compiled,
// the blocks it calls still are, and Render gives text/template's text.
func TestExecutorFallbackOnUserSet(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Dump(dir))
	write(dir, "tentative.tmpl", `{{define "tentative.system"}}Answer.{{end}}`+
		`{{define "tentative.user"}}{{template "planview" .Plan}}Current: {{printf "%q" .Subgoal}} of {{len .Plan.Subgoals}}{{end}}`)
	set, err := Load(dir)
	require.NoError(t, err)
	assert.Nil(t, set.compiled["tentative.user"])
	assert.NotNil(t, set.compiled["planview"])
	assert.NotNil(t, set.compiled["relations.user"])

	data := SubgoalData{Plan: PlanView{Question: "Who?", Subgoals: []SubgoalLine{{ID: "s1", Text: "Find who.", Op: "find"}}, Current: "s1"}, Subgoal: "Find who."}
	msgs, err := set.Render(Tentative, data)
	require.NoError(t, err)
	assert.Equal(t, "Question: Who?\nPlan:\n- s1 [find]: Find who.   <== current subgoal\nCurrent: \"Find who.\" of 1", msgs[1].Content)
}

// Data the executor does not handle (a map, a nil pointer) is rendered,
// or refused, by text/template.
func TestExecutorDeclinesToTextTemplate(t *testing.T) {
	msgs, err := Builtin.Render(Mentions, map[string]any{"Question": "Who?"})
	require.NoError(t, err)
	assert.Equal(t, "Question: Who?", msgs[1].Content)

	var b bytes.Buffer
	assert.False(t, Builtin.compiled["tentative.user"].execute(&b, (*SubgoalData)(nil)))
	_, err = Builtin.Render(Tentative, (*SubgoalData)(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nil pointer evaluating *prompts.SubgoalData.Plan")
}

// fuzzText are strings a prompt may carry: empty, unicode, text that
// looks like a template or like its output, ids that match each other.
var fuzzText = []string{"", "s1", "s2", "x", "Ünïcödé 日本語 🙂", "{{.Question}}", "<no value>", "{{template \"facts\" .}}",
	"line\nbreak\t", "%v %d", "\x00\xff", "  padded  ", "[m.0abc]"}

// randomFill returns a value of typ with random contents: strings from
// fuzzText or random runes, slices of 0 to 5 elements (nil or empty when
// 0), pointers nil or set.
func randomFill(r *rand.Rand, typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.String:
		if r.IntN(4) == 0 {
			runes := make([]rune, r.IntN(8))
			for i := range runes {
				runes[i] = rune(r.IntN(0x3000))
			}
			v.SetString(string(runes))
		} else {
			v.SetString(fuzzText[r.IntN(len(fuzzText))])
		}
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(r.IntN(200) - 50))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Slice:
		n := r.IntN(6)
		if n > 0 || r.IntN(2) == 0 {
			v.Set(reflect.MakeSlice(typ, 0, n))
		}
		for range n {
			v.Set(reflect.Append(v, randomFill(r, typ.Elem())))
		}
	case reflect.Pointer:
		if r.IntN(3) > 0 {
			v.Set(reflect.New(typ.Elem()))
			v.Elem().Set(randomFill(r, typ.Elem()))
		}
	case reflect.Struct:
		for i := range typ.NumField() {
			if typ.Field(i).IsExported() {
				v.Field(i).Set(randomFill(r, typ.Field(i).Type))
			}
		}
	}
	return v
}

// FuzzExecutor renders a random stage on random data, passed as a value,
// a pointer (nil at times) or nil, both ways: the outputs are identical,
// or the executor declined.
func FuzzExecutor(f *testing.F) {
	for seed := range uint64(200) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>32))
		stage := Names[r.IntN(len(Names))]
		typ := reflect.TypeOf(stageData[stage])
		var data any
		switch r.IntN(8) {
		case 0:
			data = nil
		case 1:
			data = randomFill(r, reflect.PointerTo(typ)).Interface()
		default:
			data = randomFill(r, typ).Interface()
		}
		// Only a nil pointer (text/template fails on its fields) makes the
		// executor decline on these types.
		nilPointer := data != nil && reflect.ValueOf(data).Kind() == reflect.Pointer && reflect.ValueOf(data).IsNil()
		for _, part := range []string{"system", "user"} {
			name := stage + "." + part
			if _, static := Builtin.static[name]; !static {
				r := renderBoth(t, Builtin, name, data)
				require.Equal(t, nilPointer, r.declined, "%s seed %d declined", name, seed)
				checkSame(t, r, fmt.Sprintf("%s seed %d", name, seed))
			}
		}
	})
}

// BenchmarkRender renders the stages every subgoal runs, with
// text/template alone and with the executor.
func BenchmarkRender(b *testing.B) {
	plain := &Set{tmpl: Builtin.tmpl, static: Builtin.static, name: "builtin"}
	data := sampleData()
	for _, stage := range []string{Tentative, Relations, Refine, Prune, Sufficiency} {
		for _, set := range []struct {
			name string
			set  *Set
		}{{"text-template", plain}, {"executor", Builtin}} {
			b.Run(stage+"/"+set.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := set.set.Render(stage, data[stage]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A panic in a compiled block is a decline, not a crash of the caller;
// the executor renders as before afterwards.
func TestExecutorPanicDeclines(t *testing.T) {
	var b bytes.Buffer
	boom := &block{ok: true, slots: 1, body: []step{func(*state, int, value) bool { panic("unforeseen value") }}}
	assert.False(t, boom.execute(&b, nil))
	b.Reset()
	data := sampleData()[Tentative]
	require.True(t, Builtin.compiled["tentative.user"].execute(&b, data))
	msgs, err := Builtin.Render(Tentative, data)
	require.NoError(t, err)
	assert.Equal(t, msgs[1].Content, strings.TrimSpace(b.String()))
}
