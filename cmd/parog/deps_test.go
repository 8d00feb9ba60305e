package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/parog/parog-go/"

// layers is the table of allowed imports: for each package of the module,
// the packages of the module it may import directly. Dependencies flow one
// way (ARCHITECTURE.md: cmd -> kgqa/server, dataset/eval -> kgqa/engine
// -> refine, kgqa/kg, kgqa/llm -> kgqa; sparql2plan uses only the domain
// and the dataset root nothing of the module; nothing imports cmd), and
// ARCHITECTURE.md's Packages table names every entry. kgqa/kg is the
// runtime access to a KG: its adapters (endpoint, embedded) meet it in
// kgqa/kg/backend and only kgqa/kg/adapters knows them all; the offline
// data tools live in kgqa/kgdata. The dataset root holds the loaders;
// evaluation lives under dataset/eval, the oracle, its bench and the
// question generator under dataset/oracle.
var layers = map[string][]string{
	"cmd/parog":                  {"dataset", "dataset/eval/answerable", "dataset/eval", "dataset/fetch", "dataset/oracle/generate", "dataset/eval/harvest", "dataset/oracle", "dataset/oracle/bench", "dataset/eval/pogrule", "dataset/eval/report", "dataset/eval/score", "finetune", "kgqa", "kgqa/api", "kgqa/config", "kgqa/engine", "kgqa/kg", "kgqa/kg/adapters", "kgqa/kg/demokg", "kgqa/kgdata/densify", "kgqa/kgdata/fbimport", "kgqa/kgdata/virtuoso", "kgqa/llm", "kgqa/llm/llmcache", "kgqa/lqt", "kgqa/metrics", "kgqa/prompts", "kgqa/relprior", "kgqa/retrieval", "kgqa/server", "kgqa/sft", "kgqa/sharedcache", "sparql2plan"},
	"cmd/oracle-llm":             {"dataset", "dataset/oracle", "kgqa/kg/demokg"},
	"scripts/probe":              {},
	"dataset":                    {},
	"dataset/eval/answerable":    {"dataset", "kgqa/kg", "internal/naming"},
	"dataset/eval":               {"dataset", "dataset/eval/score", "kgqa", "kgqa/compile", "kgqa/engine", "kgqa/kg"},
	"dataset/eval/evaltest":      {"dataset", "dataset/eval", "kgqa/config", "kgqa/engine", "kgqa/kg", "kgqa/kg/adapters", "kgqa/kg/demokg", "kgqa/llm"},
	"dataset/oracle/generate":    {"dataset", "kgqa", "kgqa/kg", "sparql2plan"},
	"dataset/eval/harvest":       {"dataset", "dataset/eval", "kgqa", "kgqa/sft", "sparql2plan"},
	"dataset/oracle":             {"dataset", "dataset/eval/score", "internal/backoff", "internal/naming", "kgqa", "kgqa/kg", "kgqa/prompts", "sparql2plan"},
	"dataset/oracle/bench":       {"dataset", "dataset/eval", "dataset/eval/report", "dataset/oracle", "dataset/eval/score", "kgqa", "kgqa/config", "kgqa/engine", "kgqa/kg", "kgqa/prompts", "sparql2plan"},
	"dataset/eval/pogrule":       {"dataset", "dataset/eval/score", "internal/clip"},
	"dataset/fetch":              {},
	"dataset/eval/report":        {"dataset", "dataset/eval", "dataset/eval/pogrule", "dataset/eval/score", "internal/clip", "internal/naming", "kgqa/ui"},
	"dataset/eval/score":         {"dataset", "internal/clip", "internal/naming"},
	"internal/backoff":           {},
	"internal/clip":              {},
	"internal/realdata":          {},
	"finetune":                   {"internal/clip", "kgqa", "kgqa/prompts", "kgqa/sft"},
	"kgqa":                       {"kgqa/retrieval"},
	"kgqa/compile":               {"kgqa"},
	"kgqa/engine":                {"internal/fanout", "kgqa", "kgqa/compile", "kgqa/config", "kgqa/engine/explore", "kgqa/kg", "kgqa/llm", "internal/naming", "kgqa/prompts", "kgqa/relprior", "kgqa/retrieval", "refine"},
	"kgqa/engine/explore":        {"internal/fanout", "kgqa", "kgqa/config", "kgqa/kg", "kgqa/llm", "internal/naming", "kgqa/prompts", "kgqa/relprior", "kgqa/retrieval"},
	"kgqa/api":                   {"kgqa", "kgqa/retrieval"},
	"kgqa/config":                {"kgqa/retrieval"},
	"kgqa/kg":                    {"kgqa", "kgqa/config", "kgqa/kg/backend", "kgqa/kg/sparqlgate"},
	"kgqa/kg/adapters":           {"kgqa/config", "kgqa/kg/backend", "kgqa/kg/embedded", "kgqa/kg/endpoint"},
	"kgqa/kg/backend":            {},
	"kgqa/kg/demokg":             {"dataset"},
	"kgqa/kgdata/demogen":        {"dataset", "kgqa"},
	"kgqa/kgdata/densify":        {},
	"kgqa/kg/embedded":           {"kgqa/kg/backend", "kgqa/kg/demokg"},
	"kgqa/kg/endpoint":           {"internal/backoff", "kgqa/kg/backend"},
	"kgqa/kgdata/fbimport":       {"kgqa/kg"},
	"kgqa/kg/sparqlgate":         {},
	"kgqa/kgdata/virtuoso":       {},
	"kgqa/kgdata/virtuosotest":   {"kgqa/kgdata/virtuoso"},
	"kgqa/kgqatest":              {"dataset", "kgqa", "kgqa/kg", "kgqa/kg/demokg", "kgqa/llm", "kgqa/llm/llmtest", "internal/naming", "kgqa/prompts", "refine"},
	"kgqa/llm":                   {"kgqa", "internal/backoff", "kgqa/config"},
	"kgqa/llm/llmcache":          {},
	"kgqa/llm/llmtest":           {},
	"kgqa/lqt":                   {"kgqa", "kgqa/config", "kgqa/engine", "internal/naming", "kgqa/llm", "kgqa/prompts"},
	"kgqa/metrics":               {"kgqa"},
	"internal/naming":            {},
	"internal/fanout":            {},
	"kgqa/prompts":               {"kgqa"},
	"kgqa/relprior":              {"internal/naming", "kgqa/sft"},
	"kgqa/retrieval":             {},
	"kgqa/server":                {"kgqa", "kgqa/api", "kgqa/config", "kgqa/engine", "kgqa/kg", "kgqa/kg/sparqlgate", "kgqa/llm", "kgqa/metrics", "kgqa/retrieval", "kgqa/ui"},
	"kgqa/sft":                   {"kgqa"},
	"kgqa/sharedcache":           {"kgqa/config", "kgqa/kg"},
	"kgqa/sharedcache/redistest": {},
	"kgqa/ui":                    {},
	"kgqa/ui/browsertest":        {},
	"refine":                     {"kgqa", "kgqa/kg", "kgqa/llm", "internal/naming", "kgqa/prompts"},
	"sparql2plan":                {"sparql2plan/internal/sparqlsyntax", "kgqa", "kgqa/compile", "kgqa/prompts", "kgqa/sft"},

	"sparql2plan/internal/sparqlsyntax": {},
}

// goList maps each package of the pattern to a list go list prints for
// it (format is a template for that list).
func goList(t *testing.T, format string, patterns ...string) map[string][]string {
	t.Helper()
	args := append([]string{"list", "-f", "{{.ImportPath}}|" + format}, patterns...)
	out, err := exec.Command("go", args...).Output()
	require.NoError(t, err, "go list")
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, list, _ := strings.Cut(line, "|")
		pkgs[strings.TrimPrefix(path, module)] = strings.Fields(list)
	}
	return pkgs
}

// TestLayering checks every package's imports of the module against the
// table. A package missing from the table is only logged, so that adding
// one does not fail until it is placed.
func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	for pkg, imports := range goList(t, `{{join .Imports " "}}`, "../../...") {
		allowed, known := layers[pkg]
		for _, imp := range imports {
			own, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(own, "cmd/"):
				t.Errorf("%s imports %s: nothing imports cmd", pkg, own)
			case !known:
				t.Logf("%s is not in the layering table (imports %s)", pkg, own)
			case layers[own] == nil:
				t.Logf("%s imports %s, which is not in the layering table", pkg, own)
			case !slices.Contains(allowed, own):
				t.Errorf("%s imports %s, which the table does not allow", pkg, own)
			}
		}
	}
}

// TestBinaryLinksNoTestSupport checks that the parog binary's dependency
// list holds none of the test-support packages: they script models and
// servers for tests and must never ship.
func TestBinaryLinksNoTestSupport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	deps := depSet(goList(t, `{{join .Deps " "}}`, ".")["cmd/parog"])
	require.True(t, deps[module+"kgqa/engine"], "the list is the binary's: it holds the engine")
	for _, pkg := range []string{
		module + "kgqa/kgqatest", module + "kgqa/llm/llmtest", module + "kgqa/kgdata/virtuosotest",
		module + "kgqa/ui/browsertest", "github.com/chromedp/chromedp",
	} {
		assert.False(t, deps[pkg], "%s is linked into parog", pkg)
	}
}

// TestOnlyCommandsDrawProgress checks that no library package links a
// progress bar: libraries report progress through a callback or an
// interface, and the commands draw it.
func TestOnlyCommandsDrawProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	const bar = "github.com/schollz/progressbar/v3"
	users := 0
	for pkg, imports := range goList(t, `{{join .Imports " "}}`, "../../...") {
		if !slices.Contains(imports, bar) {
			continue
		}
		users++
		assert.True(t, strings.HasPrefix(pkg, "cmd/"), "%s, a library package, imports %s", pkg, bar)
	}
	require.Positive(t, users, "the commands draw their bars with %s", bar)
}

func depSet(list []string) map[string]bool {
	deps := map[string]bool{}
	for _, p := range list {
		deps[p] = true
	}
	return deps
}

// TestLightPackages checks what the light packages must never link: the
// domain core links no store, endpoint client or demo graph, and the Go
// client of the API links neither a backend nor the HTTP server.
func TestLightPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	// github.com/knakk/sparql is not on the list: kg keeps its query
	// templates in a knakk/sparql query bank (about 0.1 MB of binary, with
	// knakk/rdf). The endpoint client (kgqa/kg/endpoint) stays out.
	heavy := []string{
		"github.com/dgraph-io/badger/v4", "github.com/tggo/goRDFlib/store/badgerstore",
		"github.com/gin-gonic/gin",
		module + "kgqa/kg/embedded", module + "kgqa/kg/endpoint", module + "kgqa/kg/adapters",
		module + "kgqa/kg/demokg", module + "kgqa/server",
	}
	linksNone(t, []string{"kgqa/kg", "kgqa/api", "kgqa", "kgqa/engine"}, heavy)
}

// linksNone checks that none of pkgs (paths inside the module) links any
// of heavy, and returns each package's dependency set.
func linksNone(t *testing.T, pkgs, heavy []string) map[string]map[string]bool {
	t.Helper()
	patterns := make([]string, len(pkgs))
	for i, p := range pkgs {
		patterns[i] = "../../" + p
	}
	all := goList(t, `{{join .Deps " "}}`, patterns...)
	sets := map[string]map[string]bool{}
	for _, pkg := range pkgs {
		deps := depSet(all[pkg])
		require.NotEmpty(t, deps, pkg)
		for _, h := range heavy {
			assert.False(t, deps[h], "%s links %s", pkg, h)
		}
		sets[pkg] = deps
	}
	return sets
}

// clientImports is everything the Go client of the API may link beyond
// the standard library: the wire types, and nothing of the engine, the KG
// access, the model client or a third party.
var clientImports = []string{
	module + "kgqa", module + "kgqa/api",
	// The retrieval plan's types and its rule table: standard library only.
	module + "kgqa/retrieval",
}

// TestDomainUsersLinkNoEngine checks that what needs only the domain links
// neither the engine's stores, the model client, the HTTP server nor any
// package of goRDFlib: the SFT record, finetune, and sparql2plan (which
// reads gold SPARQL with sparql2plan/internal/sparqlsyntax), and the parser itself.
func TestDomainUsersLinkNoEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	heavy := []string{"github.com/dgraph-io/badger/v4", "github.com/sashabaranov/go-openai", "github.com/gin-gonic/gin",
		module + "kgqa/engine", module + "kgqa/llm", module + "kgqa/kg"}
	pkgs := []string{"kgqa", "kgqa/sft", "finetune", "sparql2plan", "sparql2plan/internal/sparqlsyntax"}
	for pkg, deps := range linksNone(t, pkgs, heavy) {
		for d := range deps {
			assert.NotContains(t, d, "goRDFlib", "%s links %s", pkg, d)
			assert.NotContains(t, d, "badger", "%s links %s", pkg, d)
		}
	}
}

// TestSPARQLParserIsStandardLibraryOnly checks that the gold-query parser
// links nothing beyond the standard library.
func TestSPARQLParserIsStandardLibraryOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "../../sparql2plan/internal/sparqlsyntax").Output()
	require.NoError(t, err, "go list")
	assert.Equal(t, []string{module + "sparql2plan/internal/sparqlsyntax"}, strings.Fields(string(out)))
}

// TestClientImportSet checks the whole dependency list of kgqa/api (what
// a program importing only the client links) against clientImports.
func TestClientImportSet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "../../kgqa/api").Output()
	require.NoError(t, err, "go list")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, module+"kgqa/api", "the list is the client's")
	for _, dep := range deps {
		assert.Contains(t, clientImports, dep, "kgqa/api links %s", dep)
	}
}

// TestREADMELayoutIsComplete checks that the Packages section of
// ARCHITECTURE.md names every package of the layering table.
func TestREADMELayoutIsComplete(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "\n## Packages\n")
	require.True(t, ok, "ARCHITECTURE.md has a Packages section")
	section, _, _ = strings.Cut(section, "\n## ")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9/_-]+)`").FindAllStringSubmatch(section, -1) {
		named[m[1]] = true
	}
	for pkg := range layers {
		assert.True(t, named[pkg], "ARCHITECTURE.md's Packages table lacks %s", pkg)
	}
}

// BenchmarkClientBinarySize builds testdata/apionly, a program that
// imports only kgqa/api and asks one question, and reports its size
// (target: under 10 MB). Run with -bench ClientBinarySize -benchtime 1x.
func BenchmarkClientBinarySize(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "apionly")
	for b.Loop() {
		out, err := exec.Command("go", "build", "-o", bin, "./testdata/apionly").CombinedOutput()
		require.NoError(b, err, "%s", out)
	}
	fi, err := os.Stat(bin)
	require.NoError(b, err)
	b.ReportMetric(float64(fi.Size())/1e6, "MB")
}

// TestNoAliasesBetweenOwnPackages checks that no non-test Go file of the
// module declares a type alias of another of the module's packages: each
// type has one name, in one place.
func TestNoAliasesBetweenOwnPackages(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		own := map[string]bool{}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(p, module) {
				name := filepath.Base(p)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				own[name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Assign.IsValid() {
				return true
			}
			if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && own[x.Name] {
					t.Errorf("%s: type %s = %s.%s aliases another package of the module", fset.Position(ts.Pos()), ts.Name.Name, x.Name, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
}

// depsOf returns the module's packages (paths inside it) that pkg links.
func depsOf(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "../../"+pkg).Output()
	require.NoError(t, err, "go list")
	var own []string
	for _, d := range strings.Fields(string(out)) {
		if p, ok := strings.CutPrefix(d, module); ok {
			own = append(own, p)
		}
	}
	require.Contains(t, own, pkg, "the list is %s's", pkg)
	return own
}

// under reports whether pkg is dir or a package below it.
func under(pkg, dir string) bool {
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

// TestArrowsPointOneWay checks the arrows the layering table alone cannot
// state, over whole dependency lists: sparql2plan takes questions already
// loaded, so it links no dataset package and no KG package (the
// dataset/eval and dataset/oracle packages import it, never the other way
// round); and the server links none of the offline data tools.
func TestArrowsPointOneWay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	for _, d := range depsOf(t, "sparql2plan") {
		assert.False(t, under(d, "dataset"), "sparql2plan links %s", d)
		assert.False(t, under(d, "kgqa/kg"), "sparql2plan links %s", d)
		assert.False(t, under(d, "kgqa/kgdata"), "sparql2plan links %s", d)
	}
	for _, d := range depsOf(t, "kgqa/server") {
		assert.False(t, under(d, "kgqa/kgdata"), "kgqa/server links the data tool %s", d)
	}
	for _, d := range depsOf(t, "dataset") {
		assert.Equal(t, "dataset", d, "the dataset root holds loaders only: it links %s", d)
	}
}

// sourceFiles calls each for every non-test Go file under dir (a path
// inside the module), skipping testdata and hidden directories.
func sourceFiles(t *testing.T, dir string, each func(path string)) {
	t.Helper()
	root := filepath.Join("..", "..", dir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			each(path)
		}
		return nil
	})
	require.NoError(t, err)
}

// lineCount is the number of lines of the file at path.
func lineCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

// TestPackageSizes holds the sizes that keep each room to its one job:
// the dataset root (its loaders, not its subpackages) at most 1,500
// non-test lines, and the KG runtime (kgqa/kg and every package below it)
// at most 8,000.
func TestPackageSizes(t *testing.T) {
	root := 0
	sourceFiles(t, "dataset", func(path string) {
		if filepath.Dir(path) == filepath.Join("..", "..", "dataset") {
			root += lineCount(t, path)
		}
	})
	assert.Positive(t, root, "the dataset root has its loaders")
	assert.LessOrEqual(t, root, 1500, "non-test lines of the dataset root")
	kg := 0
	sourceFiles(t, "kgqa/kg", func(path string) { kg += lineCount(t, path) })
	assert.Positive(t, kg, "kgqa/kg has the runtime")
	assert.LessOrEqual(t, kg, 8000, "non-test lines of kgqa/kg and below")
}

// maxFuncLines and maxEngineFileLines bound what a reader must hold at
// once: no non-test function of the module is longer, and no non-test file
// of the engine (kgqa/engine and below).
const (
	maxFuncLines       = 100
	maxEngineFileLines = 400
)

// perPackage runs find on every non-test Go file under dir and reports
// its findings in one subtest per package directory, so that a failure
// names the package and the passing packages are listed too.
func perPackage(t *testing.T, dir string, find func(path string) []string) {
	t.Helper()
	found := map[string][]string{} // package directory -> findings
	var dirs []string
	sourceFiles(t, dir, func(path string) {
		pkg, err := filepath.Rel(filepath.Join("..", ".."), filepath.Dir(path))
		require.NoError(t, err)
		pkg = filepath.ToSlash(pkg)
		if _, seen := found[pkg]; !seen {
			found[pkg] = nil
			dirs = append(dirs, pkg)
		}
		found[pkg] = append(found[pkg], find(path)...)
	})
	require.NotEmpty(t, dirs, "%s has Go files", dir)
	slices.Sort(dirs)
	for _, pkg := range dirs {
		t.Run(pkg, func(t *testing.T) {
			for _, f := range found[pkg] {
				t.Error(f)
			}
		})
	}
}

// TestFunctionLengths checks every non-test function of the module
// (declared functions and methods, and function literals outside them)
// against maxFuncLines. It exempts nothing.
func TestFunctionLengths(t *testing.T) {
	fset := token.NewFileSet()
	perPackage(t, ".", func(path string) []string {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		var long []string
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			switch fn := n.(type) {
			case *ast.FuncDecl:
				if fn.Body == nil {
					return false
				}
				name = fn.Name.Name
			case *ast.FuncLit:
				name = "a function literal"
			default:
				return true
			}
			start, end := fset.Position(n.Pos()), fset.Position(n.End())
			if lines := end.Line - start.Line + 1; lines > maxFuncLines {
				long = append(long, fmt.Sprintf("%s:%d: %s is %d lines (at most %d)", filepath.Base(path), start.Line, name, lines, maxFuncLines))
			}
			return false // a function inside one is counted in it
		})
		return long
	})
}

// TestEngineFileLengths checks every non-test file of kgqa/engine (and
// the packages below it) against maxEngineFileLines.
func TestEngineFileLengths(t *testing.T) {
	perPackage(t, "kgqa/engine", func(path string) []string {
		if lines := lineCount(t, path); lines > maxEngineFileLines {
			return []string{fmt.Sprintf("%s is %d lines (at most %d)", filepath.Base(path), lines, maxEngineFileLines)}
		}
		return nil
	})
}
