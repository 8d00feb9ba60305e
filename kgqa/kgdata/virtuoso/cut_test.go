package virtuoso_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kgdata/virtuoso"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

// A product sent straight to Virtuoso was bounded only by its defaults
// and the caller's timeout, and Virtuoso computed on after the caller had
// given up. With the limits the kit writes into virtuoso.ini, Virtuoso
// cuts a product itself: a VALUES product at ResultSetMaxRows, and a
// three-way join of every triple at MaxQueryExecutionTime (or refused by
// its cost estimate), with no timeout from the client.
func TestVirtuosoCutsProductsItself(t *testing.T) {
	virtuosotest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	ports, err := virtuoso.FreePorts(2)
	require.NoError(t, err)
	dir := t.TempDir()
	v, err := virtuoso.Start(ctx, virtuoso.Ini{Dir: dir, DataDirs: []string{dir}, SQLPort: ports[0], HTTPPort: ports[1],
		Memory: 512 << 20, MaxRows: 1000, MaxQueryTime: 2}, virtuoso.StartOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = v.Stop() })

	ask := func(q string) (status int, hdr http.Header, body []byte) {
		// The client sets no timeout of its own: what stops the query is
		// Virtuoso's ini.
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		req, err := http.NewRequestWithContext(qctx, http.MethodPost, v.SPARQL(), strings.NewReader(url.Values{"query": {q}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/sparql-results+json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, "Virtuoso answers before the client gives up")
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header, body
	}
	values := func(v string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d ", i)
		}
		return "VALUES ?" + v + " { " + b.String() + "}"
	}

	t.Run("rows", func(t *testing.T) {
		status, _, body := ask("SELECT * WHERE { " + values("a", 100) + " " + values("b", 100) + " }")
		require.Equal(t, http.StatusOK, status, "%s", body)
		var res struct {
			Results struct{ Bindings []json.RawMessage } `json:"results"`
		}
		require.NoError(t, json.Unmarshal(body, &res))
		assert.Len(t, res.Results.Bindings, 1000, "10,000 rows cut at ResultSetMaxRows")
	})
	t.Run("time", func(t *testing.T) {
		start := time.Now()
		status, hdr, body := ask("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }")
		t.Logf("status %d after %s, X-SQL-State %q: %.300s", status, time.Since(start).Round(time.Millisecond), hdr.Get("X-SQL-State"), body)
		cut := status != http.StatusOK || hdr.Get("X-SQL-State") != ""
		assert.True(t, cut, "the product is cut by Virtuoso (an error, or a partial answer flagged X-SQL-State)")
	})
}
