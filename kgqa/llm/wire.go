package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// The chat request is written and its reply read here rather than through
// go-openai's CreateChatCompletion, which on every call marshals the whole
// request by reflection, compacting the reply schema again each time (a
// RawMessage goes through json.Compact on every Marshal), and decodes each
// message twice (ChatCompletionMessage.UnmarshalJSON decodes into a shadow
// struct first). That was most of the client's CPU per question. The wire
// types stay go-openai's: the request is built as its ChatCompletionRequest
// (what capability learning reads), written field by field in the same
// JSON, and errors come back as its *APIError and *RequestError exactly as
// its client makes them. wire_test.go checks the JSON against
// json.Marshal of the same request.

// bufPool holds the buffers of request bodies and reply bodies.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled keeps a rare huge body from pinning its buffer in the pool.
const maxPooled = 1 << 20

func getBuf() *bytes.Buffer { b := bufPool.Get().(*bytes.Buffer); b.Reset(); return b }

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		bufPool.Put(b)
	}
}

// formatKey names one encoded response_format; the schema text is its own
// map level so that a lookup hashes the schema bytes without copying them.
type formatKey struct {
	typ    openai.ChatCompletionResponseFormatType
	name   string
	strict bool
}

// formatCache holds the encoded response_format of each schema, name,
// type and strictness. The schemas are the prompts' fixed set, so it
// stays small.
type formatCache struct {
	mu sync.RWMutex
	m  map[string]map[formatKey][]byte
}

var formats = &formatCache{m: map[string]map[formatKey][]byte{}}

// get returns the JSON of rf, encoding it on first use.
func (c *formatCache) get(rf *openai.ChatCompletionResponseFormat) ([]byte, error) {
	var schema []byte
	k := formatKey{typ: rf.Type}
	if rf.JSONSchema != nil {
		k.name, k.strict = rf.JSONSchema.Name, rf.JSONSchema.Strict
		if raw, ok := rf.JSONSchema.Schema.(json.RawMessage); ok {
			schema = raw
		} else {
			// Not a schema the client builds: encode as is, uncached.
			return json.Marshal(rf)
		}
	}
	c.mu.RLock()
	b, ok := c.m[string(schema)][k]
	c.mu.RUnlock()
	if ok {
		return b, nil
	}
	b, err := json.Marshal(rf)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	inner := c.m[string(schema)]
	if inner == nil && len(c.m) >= maxStrictSeen {
		return b, nil // schemas built per request are encoded each time
	}
	if inner == nil {
		inner = map[formatKey][]byte{}
		c.m[string(schema)] = inner
	}
	inner[k] = b
	return b, nil
}

// encodeRequest writes o as go-openai would, for the fields that request
// and send set: model, messages (role and content), max_tokens,
// max_completion_tokens, temperature, seed and response_format, and
// stream (always written by go-openai).
// TestEncodeRequestMatchesGoOpenAI holds it to json.Marshal of the same
// requests, so a field that request starts to set and this does not write
// fails there.
func encodeRequest(b *bytes.Buffer, o *openai.ChatCompletionRequest) error {
	b.WriteString(`{"model":`)
	appendString(b, o.Model)
	b.WriteString(`,"messages":[`)
	for i, m := range o.Messages {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"role":`)
		appendString(b, m.Role)
		if m.Content != "" { // omitempty, as go-openai
			b.WriteString(`,"content":`)
			appendString(b, m.Content)
		}
		b.WriteByte('}')
	}
	b.WriteString(`],"stream":false`)
	//lint:ignore SA1019 max_tokens is what vLLM, Ollama and llama.cpp read.
	if maxTok := o.MaxTokens; maxTok != 0 {
		b.WriteString(`,"max_tokens":`)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(maxTok), 10))
	}
	if o.MaxCompletionTokens != 0 {
		b.WriteString(`,"max_completion_tokens":`)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(o.MaxCompletionTokens), 10))
	}
	if o.Temperature != 0 {
		b.WriteString(`,"temperature":`)
		appendFloat32(b, o.Temperature)
	}
	if o.ResponseFormat != nil {
		rf, err := formats.get(o.ResponseFormat)
		if err != nil {
			return err
		}
		b.WriteString(`,"response_format":`)
		b.Write(rf)
	}
	if o.Seed != nil {
		b.WriteString(`,"seed":`)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(*o.Seed), 10))
	}
	b.WriteByte('}')
	return nil
}

// appendFloat32 writes f as encoding/json does.
func appendFloat32(b *bytes.Buffer, f float32) {
	x := float64(f)
	format := byte('f')
	if abs := math.Abs(x); abs != 0 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
		format = 'e'
	}
	b.Write(strconv.AppendFloat(b.AvailableBuffer(), x, format, -1, 32))
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, as encoding/json
// does (without its HTML escaping, which a JSON reader does not need).
func appendString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			// Kept escaped as encoding/json does, for JavaScript readers.
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// wireReply is the part of a chat completion the client reads.
type wireReply struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// reply is what w gives the caller.
func (w *wireReply) reply() reply {
	r := reply{choices: len(w.Choices), promptTokens: w.Usage.PromptTokens, completionTokens: w.Usage.CompletionTokens}
	if r.choices > 0 {
		r.content = w.Choices[0].Message.Content
	}
	return r
}

// reply is what one successful chat completion gives the caller.
type reply struct {
	content                        string
	promptTokens, completionTokens int
	choices                        int
}

// chatCompletion sends o to the endpoint's chat completions URL through
// the stage doer and reads the reply; errors are go-openai's.
func (e *endpoint) chatCompletion(ctx context.Context, o *openai.ChatCompletionRequest) (reply, error) {
	if err := openai.NewReasoningValidator().Validate(*o); err != nil {
		return reply{}, err // refused before sending, as go-openai does
	}
	body := getBuf()
	defer putBuf(body)
	if err := encodeRequest(body, o); err != nil {
		return reply{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.chatURL, bytes.NewReader(body.Bytes()))
	if err != nil {
		return reply{}, err
	}
	req.Header = http.Header{"Accept": {"application/json"}, "Content-Type": {"application/json"}}
	if e.auth != "" {
		req.Header["Authorization"] = []string{e.auth}
	}
	resp, err := e.doer.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest {
		return reply{}, errorResponse(resp)
	}
	rb := getBuf()
	defer putBuf(rb)
	if _, err := rb.ReadFrom(resp.Body); err != nil {
		return reply{}, err
	}
	if r, ok := readEnvelope(rb.Bytes()); ok {
		return r, nil
	}
	var w wireReply
	if err := json.Unmarshal(rb.Bytes(), &w); err != nil {
		return reply{}, err
	}
	return w.reply(), nil
}

// errorResponse is the error of a failed status, made as go-openai's
// client makes it: *APIError when the body is an OpenAI error object, else
// *RequestError with the body.
func errorResponse(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("error, reading response body: %w", err)
	}
	var er openai.ErrorResponse
	err = json.Unmarshal(body, &er)
	if err != nil || er.Error == nil {
		re := &openai.RequestError{HTTPStatus: resp.Status, HTTPStatusCode: resp.StatusCode, Err: err, Body: body}
		if er.Error != nil {
			re.Err = er.Error
		}
		return re
	}
	er.Error.HTTPStatus, er.Error.HTTPStatusCode = resp.Status, resp.StatusCode
	return er.Error
}
