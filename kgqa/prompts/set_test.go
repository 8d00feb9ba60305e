package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
)

func TestBuiltinSetValidates(t *testing.T) {
	require.NoError(t, Builtin.validate())
	assert.Equal(t, "builtin", Builtin.Name())
}

// A dumped set loads back, renders what the built-in set renders, and is
// named by a digest of its templates that an edit changes.
func TestDumpLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Dump(dir))
	set, err := Load(dir)
	require.NoError(t, err)
	assert.Regexp(t, `^dir:[0-9a-f]{12}$`, set.Name())

	data := SubgoalData{Plan: PlanView{Question: "Who?", Subgoals: []SubgoalLine{{ID: "s1", Text: "Find who.", Op: "find"}}, Current: "s1"}, Subgoal: "Find who."}
	want, err := Builtin.Render(Tentative, data)
	require.NoError(t, err)
	got, err := set.Render(Tentative, data)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	other := t.TempDir()
	require.NoError(t, Dump(other))
	again, err := Load(other)
	require.NoError(t, err)
	assert.Equal(t, set.Name(), again.Name(), "the digest names the templates, not the directory")

	path := filepath.Join(other, "tentative.tmpl")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), "Be brief.", "Be very brief.", 1)), 0o644))
	edited, err := Load(other)
	require.NoError(t, err)
	assert.NotEqual(t, set.Name(), edited.Name())
	msgs, err := edited.Render(Tentative, data)
	require.NoError(t, err)
	assert.Contains(t, msgs[0].Content, "Be very brief.")
	req, err := edited.Request(kgqa.Reasoner, Tentative, data)
	require.NoError(t, err)
	assert.Equal(t, msgs, req.Messages)
}

// A bad directory is refused with an error naming the file and the fault.
func TestLoadRefusesBadSets(t *testing.T) {
	cases := []struct {
		name string
		edit func(dir string)
		msg  string
	}{
		{"missing template", func(dir string) { _ = os.Remove(filepath.Join(dir, "prune.tmpl")) }, "template prune.tmpl"},
		{"parse error", func(dir string) {
			write(dir, "refine.tmpl", `{{define "refine.system"}}{{if .Fused}}{{end}}{{define "refine.user"}}x{{end}}`)
		}, "refine.tmpl"},
		{"unknown field", func(dir string) {
			write(dir, "tentative.tmpl", `{{define "tentative.system"}}x{{end}}{{define "tentative.user"}}{{.Subgoal}} {{.Answer}}{{end}}`)
		}, `tentative.tmpl: prompts: render tentative: template: tentative.tmpl:1:79: executing "tentative.user" at <.Answer>: can't evaluate field Answer`},
		{"unknown field in a branch", func(dir string) {
			write(dir, "refine.tmpl", `{{define "refine.system"}}{{if .Fused}}{{.Sufficient}}{{end}}{{end}}{{define "refine.user"}}x{{end}}`)
		}, "can't evaluate field Sufficient"},
		{"missing block", func(dir string) { write(dir, "final.tmpl", `{{define "final.system"}}x{{end}}`) }, `final.tmpl: no {{define "final.user"}} block`},
		{"unknown file", func(dir string) { write(dir, "tentativ.tmpl", `x`) }, "tentativ.tmpl is not the template of a stage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, Dump(dir))
			tc.edit(dir)
			_, err := Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "none"))
	assert.ErrorContains(t, err, "no such file")
}

func write(dir, name, text string) {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		panic(err)
	}
}
