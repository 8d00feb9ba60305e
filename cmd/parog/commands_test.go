package main

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpListsTheTable checks parog --help against the command table:
// every command once, in name order, with its summary, and an unknown
// command is a usage error.
func TestHelpListsTheTable(t *testing.T) {
	var out, errOut bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
	require.Equal(t, 0, Main(context.Background(), []string{"--help"}, env))
	_, list, ok := strings.Cut(out.String(), "\nCommands:\n")
	require.True(t, ok, out.String())
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		require.GreaterOrEqual(t, len(f), 2, "help line %q", line)
		names = append(names, f[0])
		c, ok := findCommand(f[0])
		require.True(t, ok, "help lists %s, which is not in the table", f[0])
		assert.Equal(t, c.Summary, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), c.Name)))
		assert.NotNil(t, c.Run, c.Name)
	}
	assert.Len(t, names, len(commandTable()), "each command listed once")
	assert.True(t, slices.IsSorted(names), "commands listed in name order: %v", names)
	assert.Len(t, slices.Compact(slices.Clone(names)), len(names), "no name twice: %v", names)

	errOut.Reset()
	assert.Equal(t, 2, Main(context.Background(), []string{"nosuch"}, env))
	assert.Contains(t, errOut.String(), `unknown command "nosuch"`)
}

// TestNoInitRegistration checks that the commands come from the table
// only: no file of the program registers anything from init.
func TestNoInitRegistration(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, obj := range file.Decls {
			if fn, ok := obj.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s has an init function: add the command to commandTable instead", fset.Position(fn.Pos()))
			}
		}
	}
}
