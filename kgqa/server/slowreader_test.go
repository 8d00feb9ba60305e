package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
)

// bigAnswer asks for every name of the demo graph, several times over, to
// make an answer of megabytes.
func bigAnswer() string {
	return `SELECT ?s ?n ?a ?b WHERE { ?s <http://rdf.freebase.com/ns/type.object.name> ?n . VALUES ?a { ` +
		strings.Repeat(`"`+strings.Repeat("x", 2000)+`" `, 1) + ` } ?s ?p ?o BIND(CONCAT(?n, ?a) AS ?b) }`
}

// stall sends a /sparql query on a raw connection and never reads the
// answer: the server's writes block once the socket buffers are full.
func stall(t *testing.T, h *harness, query string, smallBuffer bool) net.Conn {
	t.Helper()
	u, err := url.Parse(h.http.URL)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	if tc, ok := conn.(*net.TCPConn); ok && smallBuffer {
		require.NoError(t, tc.SetReadBuffer(4096))
	}
	t.Cleanup(func() { _ = conn.Close() })
	_, err = fmt.Fprintf(conn, "GET /sparql?query=%s HTTP/1.1\r\nHost: %s\r\n\r\n", url.QueryEscape(query), u.Host)
	require.NoError(t, err)
	return conn
}

// Two clients that ask for a large answer and never read it held both
// /sparql slots for as long as they stayed connected; every other query
// got 503. Now a slot is released when the answer is ready, and the
// writing of it has a deadline of its own.
func TestSPARQLSlowReadersKeepNoSlot(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) {
		c.Server.SPARQLConcurrency = 2
		c.Server.SPARQLMaxRows = 1_000_000
		// The two stalled answers are within the client's share of the
		// budget (answerbudget_test.go tests the budget).
		c.Server.SPARQLAnswerBudget = 1 << 30
	}})
	for range 2 {
		conn := stall(t, h, bigAnswer(), true)
		// The status line arrives before the body stalls.
		line, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, "200", "the large query is answered")
	}
	time.Sleep(200 * time.Millisecond)
	r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(`SELECT ?n WHERE { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/type.object.name> ?n }`), "", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), "France")
}

// A client that reads too slowly loses its connection once
// server.sparql_write_timeout has passed, and a held answer never exceeds
// server.sparql_max_bytes.
func TestSPARQLAnswerBounds(t *testing.T) {
	bounded := func(maxBytes int64) *harness {
		return newHarness(t, setup{noLLM: true, edit: func(c *config.Config) {
			c.Server.SPARQLMaxRows = 1_000_000
			c.Server.SPARQLMaxBytes = maxBytes
			c.Server.SPARQLWriteTimeout = 300 * time.Millisecond
		}})
	}
	t.Run("cut at the byte cap", func(t *testing.T) {
		h := bounded(4 << 20)
		r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(bigAnswer()), "", nil)
		require.Equal(t, http.StatusOK, r.status)
		assert.LessOrEqual(t, len(r.body), 4<<20)
		assert.Equal(t, "true", r.header.Get("X-Parog-Truncated"))
		assert.True(t, json.Valid(r.body), "a cut answer is still a whole JSON document")
	})
	t.Run("a stalled reader is cut off", func(t *testing.T) {
		h := bounded(16 << 20)
		stall(t, h, bigAnswer(), true)
		for start := time.Now(); inFlight(t, h) == 0; time.Sleep(5 * time.Millisecond) {
			require.Less(t, time.Since(start), 3*time.Second, "the request never started")
		}
		// The request ends (its handler returns, the connection is
		// closed) once the write deadline has passed, though the client
		// never reads: within the evaluation's own bound
		// (server.sparql_timeout) and the write deadline. Without the
		// write deadline it never ends. The bound is loose: what is
		// checked is that it ends, not how soon on a loaded machine
		// (12.001 s against a bound of 12 s under -race and load, then
		// 30.01 s against 30 s at load average 27).
		start := time.Now()
		for inFlight(t, h) > 0 {
			require.Less(t, time.Since(start), 10*h.cfg.Server.SPARQLTimeout, "the answer to a stalled reader is still being written")
			time.Sleep(20 * time.Millisecond)
		}
	})
}
