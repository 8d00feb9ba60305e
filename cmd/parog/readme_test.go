package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/config"
)

// readmeLines returns, in reading order, every command line README.md
// shows, split into words: lines of sh blocks (backslash continuations
// joined, comments dropped) and inline code spans starting with parog, cat
// or mkdir.
func readmeLines(t *testing.T, readme string) [][]string {
	t.Helper()
	var texts []string
	inBlock := false
	var cont string
	for _, line := range strings.Split(readme, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock
			continue
		case !inBlock:
			for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
				texts = append(texts, m[1])
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			cont += s + " "
			continue
		}
		texts = append(texts, cont+line)
		cont = ""
	}
	var out [][]string
	for _, text := range texts {
		if args := shellWords(t, text); len(args) >= 2 {
			out = append(out, args)
		}
	}
	return out
}

// readmeCommands returns the commands of a page that need no model: parog
// kg, parog sparql2plan (without --teacher), parog finetune export, parog
// eval report of files that no model run wrote (none under out/), and the
// mkdir and cat around them.
func readmeCommands(t *testing.T, readme string) [][]string {
	t.Helper()
	var out [][]string
	for _, args := range readmeLines(t, readme) {
		noModel := args[0] == "parog" && (args[1] == "kg" || args[1] == "sparql2plan" && !slices.Contains(args, "--teacher") ||
			args[1] == "finetune" && len(args) > 2 && args[2] == "export" ||
			args[1] == "eval" && len(args) > 2 && args[2] == "report" && !slices.ContainsFunc(args, modelResults))
		if noModel || args[0] == "cat" || args[0] == "mkdir" {
			out = append(out, args)
		}
	}
	return out
}

// modelResults reports whether a command-line word is a results file a
// model run wrote (a .jsonl under out/).
func modelResults(word string) bool {
	return strings.HasPrefix(word, "out/") && strings.HasSuffix(word, ".jsonl")
}

var inlineCode = regexp.MustCompile("`((?:parog|cat|mkdir) [^`]+)`")

// shellWords splits a command line as sh would for the quoting README uses
// (single and double quotes, no escapes inside them).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	require.Zero(t, quote, "unbalanced quote in README command %q", s)
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// guides returns README.md and every guide in docs/, by path from the
// repository root.
func guides(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(docs), 9, "the guides are in docs/")
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, filepath.ToSlash(strings.TrimPrefix(d, "../../")))
	}
	return out
}

// guideData returns the data directory the guides' ../shared/data paths
// stand for: the real one when present, else the excerpts in testdata,
// which a fresh clone has.
func guideData(t *testing.T) string {
	t.Helper()
	if d, err := realdata.Dir(); err == nil {
		return d
	}
	d, err := realdata.ExcerptDir()
	require.NoError(t, err)
	return d
}

// TestREADMECommands runs every command of README.md and of each guide in
// docs/ that needs no model, exactly as written, from a copy of the
// repository root whose configs/ is the real one and whose ../shared/data
// is the real data (or, on a fresh clone, its excerpts), so a flag, path or
// input file that a page names wrongly fails here. Each page starts from
// an empty out/, which README says to create.
func TestREADMECommands(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	data := guideData(t)
	seen := map[string]bool{}
	for _, guide := range guides(t) {
		text, err := os.ReadFile(filepath.Join(repo, guide))
		require.NoError(t, err)
		cmds := readmeCommands(t, string(text))
		if len(cmds) == 0 {
			continue
		}
		t.Run(guide, func(t *testing.T) {
			root := t.TempDir()
			work := filepath.Join(root, "main")
			require.NoError(t, os.Mkdir(work, 0o755))
			require.NoError(t, os.Symlink(filepath.Join(repo, "configs"), filepath.Join(work, "configs")))
			require.NoError(t, os.Mkdir(filepath.Join(root, "shared"), 0o755))
			require.NoError(t, os.Symlink(data, filepath.Join(root, "shared", "data")))
			t.Chdir(work)
			require.NoError(t, os.Mkdir("out", 0o755))
			for _, args := range cmds {
				runGuideCommand(t, guide, args, seen)
			}
			// Everything the commands wrote is under out/, which git ignores.
			entries, err := os.ReadDir(".")
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			assert.ElementsMatch(t, []string{"configs", "out"}, names, "%s's commands wrote outside out/", guide)
		})
	}
	for _, c := range []string{"kg", "sparql2plan", "finetune", "eval"} {
		require.Truef(t, seen[c], "no page shows a parog %s command that runs without a model", c)
	}
}

// runGuideCommand runs one command of a page: cat and mkdir as the shell
// would, parog in-process; a parog command must succeed and print.
func runGuideCommand(t *testing.T, guide string, args []string, seen map[string]bool) {
	t.Helper()
	name := strings.Join(args, " ")
	switch args[0] {
	case "cat":
		catInto(t, args[1:])
		return
	case "mkdir":
		require.Equal(t, []string{"mkdir", "-p", "out"}, args)
		require.NoError(t, os.MkdirAll("out", 0o755))
		return
	}
	seen[args[1]] = true
	code, stdout, stderr := runParog(t, nil, args[1:]...)
	require.Equalf(t, 0, code, "%s: command failed: %s\nstderr: %s", guide, name, stderr)
	require.NotEmptyf(t, strings.TrimSpace(stdout), "%s: command printed nothing: %s", guide, name)
}

// TestREADMEOutputsUnderOut checks every command of README.md and the
// guides, model or not: each file or directory a flag names for writing is
// under out/, which .gitignore lists, so following them leaves the
// repository clean.
func TestREADMEOutputsUnderOut(t *testing.T) {
	ignore, err := os.ReadFile("../../.gitignore")
	require.NoError(t, err)
	require.Contains(t, strings.Fields(string(ignore)), "/out/")
	outputs := 0
	for _, guide := range guides(t) {
		text, err := os.ReadFile(filepath.Join("../..", guide))
		require.NoError(t, err)
		for _, args := range readmeLines(t, string(text)) {
			if args[0] == "cat" && len(args) > 2 && args[len(args)-2] == ">" {
				outputs++
				assert.Truef(t, strings.HasPrefix(args[len(args)-1], "out/"), "%s writes outside out/: %s", guide, strings.Join(args, " "))
			}
			for len(args) > 0 && strings.Contains(args[0], "=") {
				args = args[1:] // VAR=value before the command
			}
			if len(args) == 0 || args[0] != "parog" {
				continue
			}
			for i, a := range args[:len(args)-1] {
				if slices.Contains([]string{"--out", "--report", "--md", "--json", "--compare", "--html"}, a) {
					outputs++
					assert.Truef(t, strings.HasPrefix(args[i+1], "out/"), "%s writes outside out/: %s", guide, strings.Join(args, " "))
				}
			}
		}
	}
	assert.GreaterOrEqual(t, outputs, 10, "output paths found")
}

// TestREADMEMainCommand checks the main command README gives: make run
// builds bin/parog and execs it (so a signal to make reaches the server)
// with the demo config, which loads.
func TestREADMEMainCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), "```sh\nmake run\n```", "README's main command")
	require.Contains(t, string(readme), "```sh\nmake build\n```", "README says how to get the binary")

	lines := makeDryRun(t, "run")
	require.GreaterOrEqual(t, len(lines), 2, "%q", lines)
	assert.Contains(t, lines[0], "go build ")
	assert.Contains(t, lines[0], "-o bin/parog ./cmd/parog")
	last := strings.Fields(lines[len(lines)-1])
	require.Equal(t, []string{"exec", "bin/parog", "serve", "--config", "configs/demo.yaml"}, last,
		"make run must exec the server so that Ctrl-C and kill stop it")
	_, err = config.Load("../../"+last[4], func(string) (string, bool) { return "", false }, nil)
	require.NoError(t, err)
}

// catInto does `cat IN... > OUT`, failing on a missing input as cat does.
func catInto(t *testing.T, args []string) {
	t.Helper()
	require.GreaterOrEqual(t, len(args), 3, "cat %v", args)
	require.Equal(t, ">", args[len(args)-2], "cat without a redirection: %v", args)
	var all []byte
	for _, in := range args[:len(args)-2] {
		b, err := os.ReadFile(in)
		require.NoErrorf(t, err, "README: cat %v", args)
		all = append(all, b...)
	}
	require.NoError(t, os.WriteFile(args[len(args)-1], all, 0o644))
}
