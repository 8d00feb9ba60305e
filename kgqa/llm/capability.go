package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/parog/parog-go/kgqa"
	openai "github.com/sashabaranov/go-openai"
)

// Format is how an endpoint is asked for a JSON reply.
type Format int

// The ways of asking for JSON, from the most to the least constrained. An
// endpoint that rejects one is asked the next way.
const (
	// FormatJSONSchema sends response_format {"type": "json_schema"}
	// (OpenAI Structured Outputs, vLLM guided decoding, recent Ollama and
	// llama.cpp).
	FormatJSONSchema Format = iota
	// FormatJSONObject sends response_format {"type": "json_object"}
	// (gpt-3.5-turbo-1106 and later, older vLLM and llama.cpp servers) and
	// the schema in the prompt.
	FormatJSONObject
	// FormatPrompt sends no response_format; the schema is in the prompt
	// and the JSON is extracted from the reply.
	FormatPrompt
)

func (f Format) String() string {
	switch f {
	case FormatJSONSchema:
		return "json_schema"
	case FormatJSONObject:
		return "json_object"
	default:
		return "prompt"
	}
}

// MarshalText writes the format's name.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Capabilities is what an endpoint has been found to accept. It starts from
// the configuration and only narrows, when the endpoint rejects a request
// parameter; it holds for the life of the process.
//
// stream_options is not among them: the client never streams from a model,
// so it never sends it.
type Capabilities struct {
	// Format is how JSON replies are asked for.
	Format Format `json:"response_format"`
	// Seed is false once the endpoint rejected the seed parameter.
	Seed bool `json:"seed"`
	// CompletionTokens is true when the reply length is sent as
	// max_completion_tokens rather than max_tokens.
	CompletionTokens bool `json:"max_completion_tokens"`
	// Learned lists what the endpoint rejected, in order, with its words.
	Learned []string `json:"learned,omitempty"`
}

// String is a one-line summary for readiness checks and logs.
func (c Capabilities) String() string {
	tok := "max_tokens"
	if c.CompletionTokens {
		tok = "max_completion_tokens"
	}
	s := fmt.Sprintf("response_format %s, %s", c.Format, tok)
	if !c.Seed {
		s += ", no seed"
	}
	return s
}

// caps is the shared, mutable capability state of one endpoint.
type caps struct {
	mu sync.Mutex
	c  Capabilities
}

func (k *caps) get() Capabilities {
	k.mu.Lock()
	defer k.mu.Unlock()
	c := k.c
	c.Learned = append([]string(nil), k.c.Learned...)
	return c
}

// learn narrows the capabilities after err rejected a parameter that oreq
// carried. It reports what was learned ("" when err is no such rejection)
// and is idempotent: concurrent calls that hit the same rejection learn it
// once ("again" for the later ones, which just resend).
func (k *caps) learn(err error, oreq openai.ChatCompletionRequest) string {
	param, text := rejection(err, oreq)
	if param == "" {
		return ""
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	c := &k.c
	var what string
	switch param {
	case "response_format":
		sent := FormatJSONSchema
		if oreq.ResponseFormat.Type == openai.ChatCompletionResponseFormatTypeJSONObject {
			sent = FormatJSONObject
		}
		if c.Format > sent {
			return "again"
		}
		c.Format = sent + 1
		what = fmt.Sprintf("response_format %s rejected, now %s", sent, c.Format)
	case "seed":
		if !c.Seed {
			return "again"
		}
		c.Seed = false
		what = "seed rejected, now sent without"
	case "max_tokens", "max_completion_tokens":
		completion, other := param == "max_tokens", "max_tokens"
		if completion {
			other = "max_completion_tokens"
		}
		if c.CompletionTokens == completion {
			return "again"
		}
		c.CompletionTokens = completion
		what = param + " rejected, now " + other
	}
	c.Learned = append(c.Learned, what+": "+truncate(text, 200))
	return what
}

// rejection names the parameter of oreq that err refuses, with the error
// text; "" when err refuses none of them.
func rejection(err error, oreq openai.ChatCompletionRequest) (string, string) {
	text, ok := rejectionText(err)
	switch {
	case !ok:
		return "", ""
	case oreq.ResponseFormat != nil && rejectsFormat(text):
		return "response_format", text
	case oreq.Seed != nil && rejects(text, "seed"):
		return "seed", text
	//lint:ignore SA1019 max_tokens is what vLLM, Ollama and llama.cpp read.
	case oreq.MaxTokens > 0 && rejects(text, "max_tokens"):
		return "max_tokens", text
	case oreq.MaxCompletionTokens > 0 && rejects(text, "max_completion_tokens"):
		return "max_completion_tokens", text
	}
	return "", ""
}

// rejectionText is the text of an error response that may reject a
// parameter: 400 and 422 (validation), and 500, which llama.cpp's server
// and Ollama's runner answer for a response_format they cannot use.
func rejectionText(err error) (string, bool) {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		if !rejectStatus(apiErr.HTTPStatusCode) {
			return "", false
		}
		text := apiErr.Message
		if apiErr.Param != nil && *apiErr.Param != "" {
			text += " (param " + *apiErr.Param + ")"
		}
		return text, true
	case errors.As(err, &reqErr):
		// vLLM's validation errors are a top-level {"object":"error",...}
		// that go-openai does not decode; the body holds the words.
		return string(reqErr.Body), rejectStatus(reqErr.HTTPStatusCode)
	}
	return "", false
}

func rejectStatus(code int) bool { return code == 400 || code == 422 || code == 500 }

// refusal are the phrases with which servers refuse a parameter (OpenAI
// "is not supported with this model" / "Unsupported parameter", llama.cpp
// "must be one of", pydantic "Input should be" / "Extra inputs are not
// permitted", Ollama "invalid JSON schema in format").
var refusal = []string{
	"not supported", "unsupported", "must be one of", "input should be", "not permitted",
	"unrecognized", "unknown parameter", "unknown field", "invalid parameter", "extra_forbidden",
	"invalid json schema in format",
}

func refuses(lower string) bool {
	for _, p := range refusal {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// rejects reports whether text refuses the parameter name. When it names
// several parameters (OpenAI's "'max_tokens' is not supported ... Use
// 'max_completion_tokens' instead"), the one refused comes first.
func rejects(text, name string) bool {
	lower := strings.ToLower(text)
	i := wordIndex(lower, name)
	if i < 0 || !refuses(lower) {
		return false
	}
	for _, other := range []string{"max_tokens", "max_completion_tokens", "seed", "response_format"} {
		if j := wordIndex(lower, other); other != name && j >= 0 && j < i {
			return false
		}
	}
	return true
}

// rejectsFormat reports whether text refuses the response_format sent;
// Ollama names only "format".
func rejectsFormat(text string) bool {
	lower := strings.ToLower(text)
	if strings.Contains(lower, "invalid json schema in format") {
		return true
	}
	return rejects(text, "response_format")
}

// wordIndex is the index of name in s where it is not part of a longer
// identifier ("max_tokens" is not found in "max_completion_tokens" nor
// "seed" in "seeds_total"), or -1.
func wordIndex(s, name string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], name)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(name)
		if (i == 0 || !identByte(s[i-1])) && (end == len(s) || !identByte(s[end])) {
			return i
		}
		off = i + 1
	}
}

func identByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// schemaInPrompt returns msgs with the JSON schema appended to the last
// user message, for endpoints that cannot take it as response_format. It
// goes into the user turn because some chat templates refuse a system
// message anywhere but first.
func schemaInPrompt(msgs []kgqa.Message, schema json.RawMessage) []kgqa.Message {
	out := append([]kgqa.Message(nil), msgs...)
	note := "\n\nReply with only a JSON value that satisfies this JSON schema, and no other text:\n" + string(schema)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == "user" {
			out[i].Content += note
			return out
		}
	}
	return append(out, kgqa.Message{Role: "user", Content: strings.TrimSpace(note)})
}
