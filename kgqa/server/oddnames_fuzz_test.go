package server_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// oddEntities are entities whose names hold what a query literal must
// escape; the embedded store and Virtuoso load them beside the demo graph.
var oddEntities = map[string]string{
	"m.0odd01": `C:\users\bob`,
	"m.0odd02": `say "hi" \ end\`,
	"m.0odd03": `100% \d+ (a|b)* [x] {y}`,
	"m.0odd04": `it's 'quoted' & <tagged>`,
	"m.0odd05": `back\\slashes\\\`,
	"m.0odd06": `ünïcödé 東京 \N`,
}

// oddNT renders oddEntities as N-Triples.
func oddNT() []byte {
	var b strings.Builder
	for id, name := range oddEntities {
		esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name)
		b.WriteString("<http://rdf.freebase.com/ns/" + id + "> <http://rdf.freebase.com/ns/type.object.name> \"" + esc + "\"@en .\n")
	}
	return []byte(b.String())
}

// oddBackends are the three backends of the probe: the demo graph, the
// embedded store loaded from files, and a real Virtuoso (with its
// free-text index, so the bif:contains lookup is fuzzed too).
func oddBackends(tb testing.TB) map[string]kg.Graph {
	dir := tb.TempDir()
	demo, odd := filepath.Join(dir, "demo.nt"), filepath.Join(dir, "odd.nt")
	require.NoError(tb, os.WriteFile(demo, demokg.Freebase(), 0o600))
	require.NoError(tb, os.WriteFile(odd, oddNT(), 0o600))
	open := func(cfg config.KG) kg.Graph {
		g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
		require.NoError(tb, err)
		tb.Cleanup(func() { _ = g.Close() })
		return g
	}
	cfg := config.Default().KG
	cfg.Files = []string{"builtin:demo-freebase"}
	backends := map[string]kg.Graph{"demo": open(cfg)}
	cfg.Files = []string{demo, odd}
	backends["embedded"] = open(cfg)
	srv := sharedVirtuoso(tb)
	backends["virtuoso"] = virtuosoGraph(tb, srv.GraphURL(virtuosotest.Graph))
	return backends
}

// FuzzOddNames sends text to the entity-name lookup and, as a question
// whose mention the model copies, to /v1/ask on every backend. Never a
// 500 and never a KG failure (which would be text reaching a query
// unescaped); a 400 only before any model call; NUL and ESC always a 400;
// and an odd name in the graph is found by its exact text.
func FuzzOddNames(f *testing.F) {
	for _, id := range slices.Sorted(maps.Keys(oddEntities)) {
		f.Add(oddEntities[id])
	}
	for _, s := range []string{`\u0022 } SERVICE <http://x/> {`, `\U0001F600`, "nul\x00byte", "esc\x1b[31m", `"'`,
		`\`, `\\u0041`, `\u00`, `'); DROP`, "a\tb\nc", `") || true || ("`, `*`, `"France"`, "\u2028", "\xff"} {
		f.Add(s)
	}
	m := &mentionModel{demo: kgqatest.NewDemoModel()}
	hs := map[string]*harness{}
	for name, g := range oddBackends(f) {
		hs[name] = newHarness(f, setup{handler: m.handle, graph: g})
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, h := range hs {
			checkOddName(t, name, h, s)
			checkOddMention(t, name, h, m, s)
		}
	})
}

func checkOddName(t *testing.T, backend string, h *harness, s string) {
	r := h.call(t, "GET", "/v1/entities?name="+url.QueryEscape(s), "", nil)
	require.Contains(t, []int{http.StatusOK, http.StatusBadRequest}, r.status, "%s: name %q: %s", backend, s, r.body)
	if strings.ContainsAny(s, "\x00\x1b") {
		require.Equal(t, http.StatusBadRequest, r.status, "%s: name %q: %s", backend, s, r.body)
	}
	for id, name := range oddEntities {
		if s != name || backend == "demo" {
			continue
		}
		require.Equal(t, http.StatusOK, r.status, "%s: name %q: %s", backend, s, r.body)
		var got api.SearchResponse
		r.json(t, &got)
		var ids []string
		for _, c := range got.Entities {
			ids = append(ids, c.ID)
		}
		require.Contains(t, ids, id, "%s: %q is in the graph", backend, s)
	}
}

func checkOddMention(t *testing.T, backend string, h *harness, m *mentionModel, s string) {
	question := "Who is " + s + "?"
	if strings.TrimSpace(s) == "" {
		m.set()
	} else {
		m.set(s)
	}
	body, err := json.Marshal(api.AskRequest{Question: question})
	require.NoError(t, err)
	before := m.calls.Load()
	r := h.call(t, "POST", "/v1/ask", "application/json", body)
	calls := m.calls.Load() - before
	require.NotEqual(t, http.StatusInternalServerError, r.status, "%s: question %q: %s", backend, question, r.body)
	assert.NotContains(t, string(r.body), "knowledge graph", "%s: question %q", backend, question)
	if r.status == http.StatusBadRequest {
		assert.Zero(t, calls, "%s: question %q refused after %d model calls: %s", backend, question, calls, r.body)
	}
	if strings.ContainsAny(s, "\x00\x1b") {
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: question %q: %s", backend, question, r.body)
	}
}
