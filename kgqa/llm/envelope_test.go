package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envelopes are replies as OpenAI-compatible servers send them, and odd
// ones that must be left to encoding/json.
var envelopes = []string{
	// OpenAI
	`{"id":"chatcmpl-9","object":"chat.completion","created":1733011200,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"{\"answer\":\"Paris\"}","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":812,"completion_tokens":14,"total_tokens":826,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0}},"system_fingerprint":"fp_0ba0d124f1"}`,
	// vLLM, pretty-printed, with reasoning and stop_reason
	"{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\",\n  \"choices\": [\n    {\"index\": 0, \"message\": {\"role\": \"assistant\", \"reasoning_content\": null, \"content\": \"Lyon – ville\", \"tool_calls\": []}, \"logprobs\": null, \"finish_reason\": \"stop\", \"stop_reason\": null}\n  ],\n  \"usage\": {\"prompt_tokens\": 31, \"total_tokens\": 40, \"completion_tokens\": 9}\n}\n",
	// Ollama
	`{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"llama3.1:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`,
	// two choices, escapes, surrogates, null content
	`{"choices":[{"message":{"content":"a\"b\\c\/d\u00e9\ud83d\ude00\n"}},{"message":{"content":null}}],"usage":{"prompt_tokens":0,"completion_tokens":0}}`,
	`{"choices":[{"message":{"content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"choices":[],"usage":null}`,
	`{"choices":null}`,
	`{"choices":[null,{"message":null}]}`,
	`{}`,
	// invalid UTF-8 is decoded by encoding/json inside the reader
	"{\"choices\":[{\"message\":{\"content\":\"bad \xff utf-8\"}}]}",
	`{"a":[1,2,{"b":[true,false,null,-0.5e-3]}],"choices":[{"message":{"content":"deep"}}]}`,
	// left to encoding/json
	`{"Choices":[{"message":{"content":"folded key"}}]}`,
	`{"choices":[{"MESSAGE":{"content":"x"}}]}`,
	`{"choices":[{"message":{"content":"first"}}],"choices":[{"message":{"content":"second"}}]}`,
	`{"choices":[{"message":{"content":["parts"]}}]}`,
	`{"choices":[{"message":{"content":1}}]}`,
	`{"choices":[{"message":{"content":"x"}},{"message":{"content":2}}]}`,
	`{"usage":{"prompt_tokens":1.5}}`,
	`{"usage":{"prompt_tokens":-3}}`,
	`{"usage":{"prompt_tokens":1e2}}`,
	`{"usage":{"prompt_tokens":99999999999999999999}}`,
	`{"usage":{"prompt_tokens":null}}`,
	`{"choices":[{"message":{"content":"x"}}],}`,
	`{"choices":[{"message":{"content":"x"}}]} trailing`,
	`{"choices":[{"message":{"content":"x"}}]`,
	`{"a":01}`,
	`{"a":"\x"}`,
	`{"\u0063hoices":[{"message":{"content":"escaped key"}}]}`,
	`{"choiceſ":[]}`,
	`null`,
	`[]`,
	``,
	strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300),
}

// viaJSON is what encoding/json makes of b.
func viaJSON(b []byte) (reply, error) {
	var w wireReply
	if err := json.Unmarshal(b, &w); err != nil {
		return reply{}, err
	}
	return w.reply(), nil
}

// checkEnvelope fails when readEnvelope reads b and encoding/json reads it
// otherwise or refuses it.
func checkEnvelope(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := readEnvelope(b)
	if !ok {
		return false
	}
	want, err := viaJSON(b)
	require.NoError(t, err, "read %q, which encoding/json refuses", b)
	require.Equal(t, want, got, "%q", b)
	return true
}

func TestReadEnvelopeAgreesWithEncodingJSON(t *testing.T) {
	read := 0
	for _, e := range envelopes {
		if checkEnvelope(t, []byte(e)) {
			read++
		}
	}
	// The servers' shapes are read here; the odd ones go to encoding/json.
	assert.Equal(t, 11, read)
	r, ok := readEnvelope([]byte(envelopes[0]))
	require.True(t, ok)
	assert.Equal(t, reply{content: `{"answer":"Paris"}`, choices: 1, promptTokens: 812, completionTokens: 14}, r)
	r, ok = readEnvelope([]byte(envelopes[3]))
	require.True(t, ok)
	assert.Equal(t, "a\"b\\c/dé😀\n", r.content)
	assert.Equal(t, 2, r.choices)
	for _, odd := range envelopes[11:] {
		_, ok := readEnvelope([]byte(odd))
		assert.False(t, ok, "%q is left to encoding/json", odd)
	}
}

func FuzzReadEnvelope(f *testing.F) {
	for _, e := range envelopes {
		f.Add([]byte(e))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkEnvelope(t, b) })
}

func BenchmarkReplyEnvelope(b *testing.B) {
	body := []byte(envelopes[0])
	b.Run("readEnvelope", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := readEnvelope(body); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := viaJSON(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
