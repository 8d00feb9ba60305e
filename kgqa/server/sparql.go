package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/sparqlgate"
)

// maxQueryChars bounds a /sparql query's text.
const maxQueryChars = 100_000

// sparql serves GET|POST /sparql, the query operation of the SPARQL 1.1
// Protocol, read-only: query by GET parameter, by URL-encoded form, or as
// an application/sparql-query body. Updates are refused (403); a query
// that does not pass the read-only gate (kgqa/kg/sparqlgate) gets 400; at
// most server.sparql_concurrency queries run at once, and the answers held
// for their clients share server.sparql_answer_budget (503 with
// Retry-After beyond either). Only SELECT is answered, as application/sparql-results+json, cut to
// server.sparql_max_rows rows (X-Parog-Truncated: true when cut).
func (s *Server) sparql(c *gin.Context) {
	text, err := s.sparqlQuery(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	q, err := sparqlgate.Parse(text)
	if err != nil {
		s.fail(c, &httpError{status: http.StatusBadRequest, msg: err.Error(), cause: err})
		return
	}
	if max := s.cfg.SPARQLMaxRows; max > 0 {
		// One row more than returned tells that the answer was cut.
		q.CapRows(max + 1)
	}
	maxBytes := s.cfg.SPARQLMaxBytes
	if maxBytes <= 0 {
		maxBytes = defaultSPARQLMaxBytes
	}
	// The answer's place is taken before the query runs, at the largest
	// size it may reach, and shrunk to its size once rendered.
	hold, err := s.answers.take(c.GetString(ctxKey), maxBytes)
	if err != nil {
		s.fail(c, err)
		return
	}
	defer hold.release()
	res, err := s.sparqlSelect(c, q.String())
	if err != nil {
		s.fail(c, err)
		return
	}
	rows := res.Rows
	if max := s.cfg.SPARQLMaxRows; max > 0 && len(rows) > max {
		rows = rows[:max]
		c.Header("X-Parog-Truncated", "true")
	}
	body, cut := renderResults(s.entityNS(), res.Vars, rows, maxBytes)
	// The rows are garbage once rendered; the body is what stays held.
	hold.shrink(int64(cap(body)))
	if cut {
		c.Header("X-Parog-Truncated", "true")
	}
	c.Header("Content-Type", api.SPARQLResultsContentType)
	c.Header("Content-Length", strconv.Itoa(len(body)))
	c.Status(http.StatusOK)
	s.writeAnswer(c, body)
}

// Defaults of the /sparql answer bounds.
const (
	defaultSPARQLMaxBytes     = 16 << 20
	defaultSPARQLWriteTimeout = 30 * time.Second
)

// sparqlSelect runs a checked query in one of the /sparql slots. The slot
// is held while the query is evaluated only, not while its answer is
// written: a client that does not read cannot keep others out.
func (s *Server) sparqlSelect(c *gin.Context, q string) (*kg.Results, error) {
	release, err := s.sparqlSlot()
	if err != nil {
		return nil, err
	}
	defer release()
	timeout := s.cfg.SPARQLTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), timeout)
	defer cancel()
	res, err := s.graph.Select(ctx, q)
	switch {
	case err == nil:
	case c.Request.Context().Err() != nil:
		// The client has gone: nobody reads the status.
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		// Whichever layer noticed a deadline first (this one, kg.timeout
		// in the endpoint client or the store, the endpoint's own), the
		// client sees one status.
		err = &httpError{status: http.StatusGatewayTimeout, msg: "the query did not finish within server.sparql_timeout (" + timeout.String() + ") or kg.timeout", cause: err}
	case errors.Is(err, kg.ErrQuery):
		err = &httpError{status: http.StatusBadRequest, msg: err.Error(), cause: err}
	case errors.Is(err, kg.ErrEndpoint):
		// The endpoint failed on a query it accepted: its reason is the
		// client's to read, as with a refused query.
		err = &httpError{status: http.StatusBadGateway, msg: err.Error(), cause: err}
	}
	return res, err
}

// writeAnswer writes a held answer within server.sparql_write_timeout; a
// client that reads slower loses its connection.
func (s *Server) writeAnswer(c *gin.Context, body []byte) {
	d := s.cfg.SPARQLWriteTimeout
	if d <= 0 {
		d = defaultSPARQLWriteTimeout
	}
	rc := http.NewResponseController(c.Writer)
	if err := rc.SetWriteDeadline(time.Now().Add(d)); err == nil {
		// The server sets no write deadline of its own, so the next
		// request on this connection must not inherit this one.
		defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	}
	if c.Request.Method == http.MethodHead {
		return
	}
	if _, err := c.Writer.Write(body); err != nil {
		s.log.Info("sparql answer not delivered", "request_id", requestIDOf(c), "bytes", len(body), "error", err.Error())
	}
}

// sparqlQuery extracts the query text of a protocol request.
func (s *Server) sparqlQuery(c *gin.Context) (string, error) {
	var params url.Values
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead:
		params = c.Request.URL.Query()
	case http.MethodPost:
		mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
		switch mt {
		case "application/x-www-form-urlencoded":
			if err := c.Request.ParseForm(); err != nil {
				return "", classifyBodyErr(err, "malformed form body")
			}
			params = c.Request.PostForm
		case "application/sparql-query":
			b, err := io.ReadAll(c.Request.Body)
			if err != nil {
				return "", classifyBodyErr(err, "unreadable body")
			}
			params = url.Values{"query": {string(b)}}
		case "application/sparql-update":
			return "", errorf(http.StatusForbidden, "updates are refused: this endpoint is read-only")
		default:
			return "", errorf(http.StatusUnsupportedMediaType, "POST /sparql takes application/x-www-form-urlencoded or application/sparql-query, not %q", mt)
		}
	}
	if params.Has("update") {
		return "", errorf(http.StatusForbidden, "updates are refused: this endpoint is read-only")
	}
	if params.Has("default-graph-uri") || params.Has("named-graph-uri") {
		return "", errorf(http.StatusBadRequest, "default-graph-uri and named-graph-uri are not supported: the KG is one graph")
	}
	qs := params["query"]
	if len(qs) != 1 || strings.TrimSpace(qs[0]) == "" {
		return "", errorf(http.StatusBadRequest, "exactly one non-empty query parameter is required")
	}
	if n := len(qs[0]); n > maxQueryChars {
		// In the URL of a GET it is the URI that is too long; there is no
		// body to be too large.
		status := http.StatusRequestEntityTooLarge
		if c.Request.Method != http.MethodPost {
			status = http.StatusRequestURITooLong
		}
		return "", errorf(status, "query is %d bytes long, at most %d allowed", n, maxQueryChars)
	}
	return qs[0], nil
}

func classifyBodyErr(err error, what string) error {
	if he := classify(err); he.status == http.StatusRequestEntityTooLarge {
		return he
	}
	return &httpError{status: http.StatusBadRequest, msg: what, cause: err}
}

// entityNS is the namespace the graph strips from entity IRIs, to restore
// them in results.
func (s *Server) entityNS() string {
	if s.graph.Dialect().Name() == "wikidata" {
		return kg.WikidataEntityNS
	}
	return kg.FreebaseNS
}

// renderResults writes SPARQL 1.1 Query Results JSON, cut after the last
// row that fits in maxBytes (cut is then true). Graph.Select gives entity
// ids without their namespace; they are made IRIs again here.
func renderResults(ns string, vars []string, rows []map[string]kgqa.Term, maxBytes int64) (body []byte, cut bool) {
	var b bytes.Buffer
	b.WriteString(`{"head":{"vars":[`)
	for i, v := range vars {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(v))
	}
	b.WriteString(`]},"results":{"bindings":[`)
	const tail = "]}}\n"
	var row strings.Builder
	for i, r := range rows {
		row.Reset()
		if i > 0 {
			row.WriteByte(',')
		}
		row.WriteByte('{')
		first := true
		for _, v := range vars {
			t, ok := r[v]
			if !ok {
				continue
			}
			if !first {
				row.WriteByte(',')
			}
			first = false
			row.WriteString(jsonString(v))
			row.WriteByte(':')
			writeTerm(&row, ns, t)
		}
		row.WriteByte('}')
		if int64(b.Len()+row.Len()+len(tail)) > maxBytes {
			cut = true
			break
		}
		b.WriteString(row.String())
	}
	b.WriteString(tail)
	return b.Bytes(), cut
}

func writeTerm(b *strings.Builder, ns string, t kgqa.Term) {
	field := func(k, v string) {
		b.WriteString(`,"` + k + `":`)
		b.WriteString(jsonString(v))
	}
	switch {
	case strings.HasPrefix(t.ID, "_:"):
		b.WriteString(`{"type":"bnode","value":` + jsonString(t.ID[2:]))
	case t.ID != "" && strings.Contains(t.ID, ":"):
		b.WriteString(`{"type":"uri","value":` + jsonString(t.ID))
	case t.ID != "":
		b.WriteString(`{"type":"uri","value":` + jsonString(ns+t.ID))
	default:
		b.WriteString(`{"type":"literal","value":` + jsonString(t.Name))
		if t.Lang != "" {
			field("xml:lang", t.Lang)
		} else if t.Datatype != "" {
			field("datatype", t.Datatype)
		}
	}
	b.WriteByte('}')
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
