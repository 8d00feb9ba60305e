package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/server"
)

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// spec loads and validates the embedded OpenAPI document once.
func spec(t testing.TB) routers.Router {
	specOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPI)
		if err != nil {
			specErr = err
			return
		}
		if err = doc.Validate(context.Background()); err != nil {
			specErr = err
			return
		}
		doc.Servers = nil // match any host (httptest picks a port)
		specRouter, specErr = legacy.NewRouter(doc)
	})
	require.NoError(t, specErr)
	return specRouter
}

// reply is a response read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t testing.TB, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, v), "body: %s", r.body)
}

// errorBody decodes the one error shape and checks its request id.
func (r reply) errorBody(t testing.TB) api.ErrorResponse {
	t.Helper()
	var e api.ErrorResponse
	r.json(t, &e)
	require.NotEmpty(t, e.Error)
	require.Equal(t, r.header.Get(api.RequestIDHeader), e.RequestID)
	return e
}

// call sends a request to the harness and checks the response against the
// OpenAPI document (status documented, body fits the schema).
func (h *harness) call(t testing.TB, method, path, contentType string, body []byte, hdr ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, h.http.URL+path, bytes.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	h.checkSpec(t, req, body, r)
	return r
}

func (h *harness) checkSpec(t testing.TB, req *http.Request, body []byte, r reply) {
	t.Helper()
	if strings.HasPrefix(r.header.Get("Content-Type"), api.NDJSONContentType) || r.header.Get("Content-Type") == "text/event-stream" {
		return // a stream is checked line by line by its test
	}
	router := spec(t)
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := router.FindRoute(vreq)
	if err != nil {
		require.Contains(t, []int{http.StatusNotFound, http.StatusMethodNotAllowed}, r.status, "route not in OpenAPI document: %s %s: %v", req.Method, req.URL.Path, err)
		return
	}
	in := &openapi3filter.RequestValidationInput{
		Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{ExcludeRequestBody: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: r.status, Header: r.header,
		Body:    io.NopCloser(bytes.NewReader(r.body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: !isJSON(r.header)},
	}
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), out), "%s %s -> %d %s", req.Method, req.URL.Path, r.status, truncate(r.body))
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	spec(t)
}

func isJSON(h http.Header) bool {
	ct := h.Get("Content-Type")
	return strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, api.SPARQLResultsContentType)
}
