package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/prompts"
)

// TestEncodeRequestMatchesGoOpenAI holds the hand-written request body to
// go-openai's own encoding of the same request, for every shape request
// builds: each format, seed or none, max_tokens or max_completion_tokens,
// the greedy and a set temperature, a reasoning model, and message text
// with every kind of character that needs escaping.
func TestEncodeRequestMatchesGoOpenAI(t *testing.T) {
	seed := 7
	text := "quote \" backslash \\ newline \n tab \t cr \r nul \x00 bell \x07 del \x7f <html> & é 日本 \u2028 \u2029 bad \xff\xfe end"
	msgs := []kgqa.Message{{Role: "system", Content: "You plan."}, {Role: "user", Content: text}, {Role: "assistant", Content: ""}}
	schemaReq := kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "plan", Messages: msgs, Schema: prompts.Schema(prompts.Plan), SchemaName: "parog_plan"}
	loose := kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "x", Messages: msgs, Schema: json.RawMessage(`{"type":"object"}`), SchemaName: "a b/c"}
	cases := map[string]struct {
		cfg    config.Endpoint
		req    kgqa.ChatRequest
		schema bool
		capa   Capabilities
		temp   float32
	}{
		"json schema, seed":         {cfg: config.Endpoint{Model: "m", Seed: &seed, MaxTokens: 512}, req: schemaReq, schema: true, capa: Capabilities{Format: FormatJSONSchema, Seed: true}},
		"json schema, loose schema": {cfg: config.Endpoint{Model: "m", MaxTokens: 64, Temperature: 0.7}, req: loose, schema: true, capa: Capabilities{Format: FormatJSONSchema}},
		"json object":               {cfg: config.Endpoint{Model: "m", MaxTokens: 512}, req: schemaReq, schema: true, capa: Capabilities{Format: FormatJSONObject}},
		"schema in prompt":          {cfg: config.Endpoint{Model: "m"}, req: schemaReq, schema: true, capa: Capabilities{Format: FormatPrompt, Seed: true}},
		"completion tokens":         {cfg: config.Endpoint{Model: "m", MaxTokens: 100}, req: ask("s", text), capa: Capabilities{CompletionTokens: true}},
		"reasoning model":           {cfg: config.Endpoint{Model: "o3-mini", MaxTokens: 100}, req: ask("s", text), capa: Capabilities{CompletionTokens: true}},
		"seed temperature":          {cfg: config.Endpoint{Model: "m", Seed: &seed}, req: ask("s", "q"), capa: Capabilities{Seed: true}, temp: 0.3},
		"tiny and huge temperature": {cfg: config.Endpoint{Model: "m"}, req: ask("s", "q"), temp: 3e21},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &endpoint{cfg: tc.cfg}
			o := e.request(tc.req, tc.req.Messages, tc.schema, tc.capa)
			if tc.temp != 0 {
				o.Temperature = tc.temp
			}
			want, err := json.Marshal(o)
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, encodeRequest(&got, &o))
			require.True(t, json.Valid(got.Bytes()), "%s", got.Bytes())
			assert.JSONEq(t, string(want), got.String())
			// Twice: the second comes from the format cache.
			got.Reset()
			require.NoError(t, encodeRequest(&got, &o))
			assert.JSONEq(t, string(want), got.String())
		})
	}
}

func TestAppendStringRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", "\"\\/\b\f\n\r\t", "\x00\x1f", "\u2028x\u2029", "\xff", "a\xc3", "日本語 é"} {
		var b bytes.Buffer
		appendString(&b, s)
		var back string
		require.NoError(t, json.Unmarshal(b.Bytes(), &back), "%q -> %s", s, b.Bytes())
		want, _ := json.Marshal(s)
		var wantBack string
		require.NoError(t, json.Unmarshal(want, &wantBack))
		assert.Equal(t, wantBack, back, "%q", s)
	}
}

func TestAppendFloat32(t *testing.T) {
	for _, f := range []float32{math.SmallestNonzeroFloat32, 1e-7, 0.1, 0.7, 1, 2.5, 1e20, 1e21, math.MaxFloat32} {
		var b bytes.Buffer
		appendFloat32(&b, f)
		var back float32
		require.NoError(t, json.Unmarshal(b.Bytes(), &back), "%s", b.Bytes())
		assert.Equal(t, f, back)
	}
}

// TestErrorResponseAsGoOpenAI: a failed status gives the error types the
// retry and capability logic read, as go-openai's client makes them.
func TestErrorResponseAsGoOpenAI(t *testing.T) {
	srv := newErrServer(t, 400, `{"error":{"message":"unknown field response_format","type":"invalid_request_error"}}`)
	e := testEndpoint(t, srv)
	_, err := e.chatCompletion(t.Context(), &openai.ChatCompletionRequest{Model: "m"})
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 400, apiErr.HTTPStatusCode)
	assert.Equal(t, "unknown field response_format", apiErr.Message)

	srv = newErrServer(t, 503, `upstream down`)
	e = testEndpoint(t, srv)
	_, err = e.chatCompletion(t.Context(), &openai.ChatCompletionRequest{Model: "m"})
	var reqErr *openai.RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.Equal(t, 503, reqErr.HTTPStatusCode)
	assert.Equal(t, "upstream down", string(reqErr.Body))
}

func newErrServer(t *testing.T, status int, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func testEndpoint(t *testing.T, srv *httptest.Server) *endpoint {
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model = srv.URL+"/v1", "m"
	c, err := New(config.LLM{Reasoner: ep})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c.roles[kgqa.Reasoner]
}

// TestDecodeBareAgreesWithExtract: the one-pass path takes only a reply
// that is exactly one value, and gives what the extracting path gives.
func TestDecodeBareAgreesWithExtract(t *testing.T) {
	type reply struct {
		Keep []string `json:"keep"`
	}
	for reply_, bare := range map[string]bool{
		` {"keep":["a","b"]} `:                         true,
		`{"keep":["a"]} and then {"x":1}`:              false,
		"```json\n{\"keep\":[\"a\"]}\n```":             false,
		`<think>{"keep":["no"]}</think>{"keep":["a"]}`: false,
		`{"keep":["a"],"other":1}`:                     false,
		`{"keep":["a"]`:                                false,
	} {
		var viaBare, viaExtract reply
		assert.Equal(t, bare, decodeBare(reply_, &viaBare), "%s", reply_)
		errBare := decodeReply(reply_, &viaBare, nil)
		raw, err := ExtractJSON(reply_)
		if err == nil {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			err = dec.Decode(&viaExtract)
		}
		assert.Equal(t, err == nil, errBare == nil, "%s: %v / %v", reply_, errBare, err)
		if err == nil {
			assert.Equal(t, viaExtract, viaBare, "%s", reply_)
		}
	}
}
