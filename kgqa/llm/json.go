package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/parog/parog-go/kgqa"
)

// maxReplyShown caps the reply text kept in a SchemaError.
const maxReplyShown = 2000

// JSON sends req, extracts the JSON value of the reply, decodes it strictly
// (unknown fields are errors) into out, a non-nil pointer, and runs check
// (which may be nil). When req.Schema is set it is sent as response_format
// json_schema where the endpoint takes it, else in the prompt (with
// response_format json_object where that is taken; see Capabilities). If
// the reply does not fit, one repair turn shows the model its reply and the error; if that reply does not fit
// either, JSON fails with *SchemaError. Every call is accounted; the
// returned Usage sums them.
func (c *Client) JSON(ctx context.Context, req kgqa.ChatRequest, out any, check func() error) (kgqa.ChatResponse, error) {
	e, err := c.lookup(req)
	if err != nil {
		return kgqa.ChatResponse{}, err
	}
	if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
		return kgqa.ChatResponse{}, fmt.Errorf("llm: %s/%s: json: out must be a non-nil pointer, not %T", req.Role, req.Stage, out)
	}
	schema := len(req.Schema) > 0
	content, first, err := c.call(ctx, e, req, req.Messages, schema)
	if err != nil {
		return kgqa.ChatResponse{Content: content, Usage: first}, err
	}
	bad := decodeReply(content, out, check)
	if bad == nil {
		return kgqa.ChatResponse{Content: content, Usage: first}, nil
	}
	msgs := append(append([]kgqa.Message(nil), req.Messages...),
		kgqa.Message{Role: "assistant", Content: content},
		kgqa.Message{Role: "user", Content: repairPrompt(bad, req.Schema)})
	content, second, err := c.call(ctx, e, req, msgs, schema)
	usage := sumCalls(first, second)
	if err != nil {
		return kgqa.ChatResponse{Content: content, Usage: usage}, err
	}
	if bad = decodeReply(content, out, check); bad != nil {
		return kgqa.ChatResponse{Content: content, Usage: usage}, &kgqa.SchemaError{Stage: req.Stage, Reply: truncate(content, maxReplyShown), Reason: bad.Error()}
	}
	return kgqa.ChatResponse{Content: content, Usage: usage}, nil
}

func repairPrompt(bad error, schema json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your previous reply could not be used: %v.\n", bad)
	if len(schema) > 0 {
		b.WriteString("Reply again with only a JSON value that satisfies this JSON schema, and no other text:\n")
		b.Write(schema)
	} else {
		b.WriteString("Reply again with only the corrected JSON value, and no other text.")
	}
	return b.String()
}

// sumCalls merges the records of a call and its repair turn into one.
func sumCalls(a, b kgqa.Call) kgqa.Call {
	a.PromptTokens += b.PromptTokens
	a.CompletionTokens += b.CompletionTokens
	a.Estimated = a.Estimated || b.Estimated
	a.Latency += b.Latency
	a.Wait += b.Wait
	a.Requests += b.Requests
	a.Retries += b.Retries
	a.Fallbacks += b.Fallbacks
	a.Err = b.Err
	return a
}

// decodeReply resets out, decodes the JSON value found in reply into it
// and runs check.
func decodeReply(reply string, out any, check func() error) error {
	v := reflect.ValueOf(out).Elem()
	v.Set(reflect.Zero(v.Type()))
	raw, err := ExtractJSON(reply)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("decoding the JSON: %w", describeDecodeError(err, v.Type()))
	}
	if check != nil {
		if err := check(); err != nil {
			return fmt.Errorf("checking the JSON: %w", err)
		}
	}
	return nil
}

// errNoJSON is returned by ExtractJSON when a reply holds no JSON value.
var errNoJSON = errors.New("no JSON object or array in the reply")

// ExtractJSON finds the JSON value in a model reply: a reply that is one
// JSON object or array is that value (whatever its strings hold);
// otherwise it drops <think> blocks, prefers the inside of a ``` code
// fence, and returns the first balanced {...} or [...] that is valid
// JSON, ignoring prose around it.
func ExtractJSON(reply string) ([]byte, error) {
	if bare := strings.TrimSpace(reply); bare != "" && (bare[0] == '{' || bare[0] == '[') && json.Valid([]byte(bare)) {
		return []byte(bare), nil
	}
	s := stripThink(reply)
	if inner, ok := fenced(s); ok {
		if raw, ok := firstBalanced(inner); ok {
			return raw, nil
		}
	}
	if raw, ok := firstBalanced(s); ok {
		return raw, nil
	}
	return nil, errNoJSON
}

func stripThink(s string) string {
	for {
		i := strings.Index(s, "<think>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</think>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</think>"):]
	}
}

// fenced returns the body of the first ``` code fence.
func fenced(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return "", false
	}
	rest := s[i+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
		rest = rest[nl+1:] // language tag
	}
	j := strings.Index(rest, "```")
	if j < 0 {
		return rest, true
	}
	return rest[:j], true
}

// firstBalanced returns the first balanced {...} or [...] of s (strings and
// escapes honoured) that is valid JSON.
//
// Every bracket is a candidate start, scanned afresh, but a scan that fails
// also settles the brackets still open when it fails: from each of them a
// fresh scan would meet the same wrong bracket or the same end of s with
// its own part of the same stack. They are skipped, which keeps a reply
// full of unclosed or mismatched brackets linear instead of quadratic.
func firstBalanced(s string) ([]byte, bool) {
	var dead []bool // dead[i]: the bracket at i cannot be closed
	var stack []int
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' || dead != nil && dead[i] {
			continue
		}
		end, open := matchClose(s, i, stack[:0])
		if end > 0 && json.Valid([]byte(s[i:end])) {
			return []byte(s[i:end]), true
		}
		if end < 0 {
			if dead == nil {
				dead = make([]bool, len(s))
			}
			for _, j := range open {
				dead[j] = true
			}
		}
		stack = open
	}
	return nil, false
}

// matchClose returns the index after the bracket closing the one at start,
// or -1 and the positions of the brackets still open when the scan failed.
// stack is scratch space.
func matchClose(s string, start int, stack []int) (int, []int) {
	inStr, esc := false, false
	for i := start; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{', '[':
			stack = append(stack, i)
		case '}', ']':
			if len(stack) == 0 || s[stack[len(stack)-1]] != opener(ch) {
				return -1, stack
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, stack
			}
		}
	}
	return -1, stack
}

func opener(closer byte) byte {
	if closer == '}' {
		return '{'
	}
	return '['
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
