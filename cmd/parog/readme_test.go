package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/fetch"
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
// data, parog kg, parog sparql2plan (without --teacher), parog finetune
// export, parog dataset answerable, parog bench oracle (the oracle is the
// model, served in-process), parog eval report of files that no model run
// wrote (none under out/), and the mkdir and cat around them. A command
// named in prose without its flags (`parog bench oracle`) is a mention,
// not a command.
func readmeCommands(t *testing.T, readme string) [][]string {
	t.Helper()
	var out [][]string
	for _, args := range readmeLines(t, readme) {
		sub := func(a, b string) bool { return len(args) > 2 && args[1] == a && args[2] == b }
		noModel := args[0] == "parog" && (args[1] == "kg" || args[1] == "sparql2plan" && !slices.Contains(args, "--teacher") ||
			args[1] == "data" && (len(args) > 3 || sub("data", "list")) || sub("finetune", "export") ||
			(sub("dataset", "answerable") || sub("bench", "oracle")) && slices.Contains(args, "--input") ||
			sub("eval", "report") && len(args) > 3 && !slices.ContainsFunc(args, modelResults))
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

// TestREADMECommands runs every command of README.md and of each guide in
// docs/ that needs no model, exactly as written, from a copy of the
// repository root that has configs/ and nothing beside it (no data
// directory, no ../shared), as a fresh clone has: the data comes from the
// pages' own `parog data get` commands, served by a local mirror of the
// excerpts in testdata/ with test pins. A flag, path or input file that a
// page names wrongly, or data a page uses before it says to get it, fails
// here. Each page starts from an empty out/ and no data/.
func TestREADMECommands(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	mirror := testMirror(t)
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
			t.Chdir(work)
			require.NoError(t, os.Mkdir("out", 0o755))
			for _, args := range cmds {
				runGuideCommand(t, guide, args, seen, mirror)
			}
			// Everything the commands wrote is under out/ and data/, which
			// git ignores.
			entries, err := os.ReadDir(".")
			require.NoError(t, err)
			for _, e := range entries {
				assert.Containsf(t, []string{"configs", "out", "data"}, e.Name(), "%s's commands wrote outside out/ and data/", guide)
			}
		})
	}
	for _, c := range []string{"data", "kg", "sparql2plan", "finetune", "eval", "dataset", "bench"} {
		require.Truef(t, seen[c], "no page shows a parog %s command that runs without a model", c)
	}
}

// runGuideCommand runs one command of a page: cat and mkdir as the shell
// would, parog in-process (parog data get from the test mirror); a parog
// command must succeed and print.
func runGuideCommand(t *testing.T, guide string, args []string, seen map[string]bool, mirror string) {
	t.Helper()
	name := strings.Join(args, " ")
	switch args[0] {
	case "cat":
		catInto(t, args[1:])
		return
	case "mkdir":
		require.Len(t, args, 3, "mkdir -p DIR")
		require.Equal(t, "-p", args[1])
		require.Truef(t, args[2] == "out" || strings.HasPrefix(args[2], "out/"), "%s makes a directory outside out/: %v", guide, args)
		require.NoError(t, os.MkdirAll(args[2], 0o755))
		return
	}
	seen[args[1]] = true
	if len(args) > 2 && args[1] == "data" && args[2] == "get" {
		args = append([]string{"parog", "data", "get", "--from", mirror}, args[3:]...)
	}
	t.Logf("%s: %s", guide, strings.Join(args, " "))
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

// TestGuidesReadDataFromDataGet checks that no page points at a data
// directory a clone does not have: the guides read what parog data get
// writes, under data/.
func TestGuidesReadDataFromDataGet(t *testing.T) {
	for _, guide := range append(guides(t), "ARCHITECTURE.md") {
		text, err := os.ReadFile(filepath.Join("../..", guide))
		require.NoError(t, err)
		assert.NotContains(t, string(text), "../shared", guide)
		assert.NotContains(t, string(text), "shared/data", guide)
	}
}

// mirrorSources maps the data directory's files to the excerpts a test
// mirror serves for them: the slice excerpt for FB15k-237 and WebQSP
// train, the other excerpts for the rest. cwq.json and grailqa.json join
// the question excerpt and the gold of the PoG excerpt's rows.
var mirrorSources = map[string][]string{
	"fb15k237/FB15k-237.tar.gz":   {"slice/fb15k237/FB15k-237.tar.gz"},
	"fb15k237/FB15k_mid2name.txt": {"slice/fb15k237/FB15k_mid2name.txt"},
	"webqsp/WebQSP.train.json":    {"slice/webqsp/WebQSP.train.json"},
	"webqsp/WebQSP.test.json":     {"slice/webqsp/WebQSP.train.json"}, // questions the slice answers; only a stand-in
	"cwq.json":                    {"cwq_sample.json", "pog/cwq_gold.json"},
	"grailqa.json":                {"grailqa_sample.json", "pog/grailqa_gold.json"},
}

// testMirror serves, on a local HTTP server, a mirror of the data
// directory made of the excerpts in testdata/ (a small stand-in for a file
// with none, such as the full Freebase dump), and swaps parog data get's
// catalogue for one whose pins are the mirror's bytes. It returns the
// mirror's URL.
func testMirror(t *testing.T) string {
	t.Helper()
	excerpts, err := filepath.Abs("../../testdata")
	require.NoError(t, err)
	dir := t.TempDir()
	hashes := map[string]string{}
	var catalog []fetch.Dataset
	for _, d := range fetch.Catalog() {
		for _, rel := range d.Paths() {
			b := mirrorFile(t, excerpts, rel)
			p := filepath.Join(dir, filepath.FromSlash(rel))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, b, 0o644))
			sum := sha256.Sum256(b)
			hashes[rel] = hex.EncodeToString(sum[:])
		}
		d.Files = slices.Clone(d.Files)
		for i, f := range d.Files {
			if f.SHA256 != "" {
				d.Files[i].SHA256 = hashes[f.Path]
			}
			f.Extract = slices.Clone(f.Extract)
			for j, m := range f.Extract {
				if m.SHA256 != "" {
					f.Extract[j].SHA256 = hashes[m.Path]
				}
			}
			d.Files[i].Extract = f.Extract
		}
		catalog = append(catalog, d)
	}
	old := dataCatalog
	dataCatalog = func() []fetch.Dataset { return catalog }
	t.Cleanup(func() { dataCatalog = old })
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// mirrorFile returns the test mirror's bytes for the data file rel.
func mirrorFile(t *testing.T, excerpts, rel string) []byte {
	t.Helper()
	srcs, ok := mirrorSources[rel]
	if !ok {
		if b, err := os.ReadFile(filepath.Join(excerpts, filepath.FromSlash(rel))); err == nil {
			return b
		}
		return []byte("a stand-in for " + rel + "\n")
	}
	if len(srcs) == 1 {
		b, err := os.ReadFile(filepath.Join(excerpts, srcs[0]))
		require.NoError(t, err)
		return b
	}
	var all []json.RawMessage
	seen := map[string]bool{}
	for _, src := range srcs {
		b, err := os.ReadFile(filepath.Join(excerpts, src))
		require.NoError(t, err)
		var recs []map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &recs))
		for _, r := range recs {
			id := string(r["ID"]) + string(r["qid"])
			if seen[id] {
				continue
			}
			seen[id] = true
			raw, err := json.Marshal(r)
			require.NoError(t, err)
			all = append(all, raw)
		}
	}
	b, err := json.Marshal(all)
	require.NoError(t, err)
	return b
}
