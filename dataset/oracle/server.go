package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ModelID is the model name /v1/models lists.
const ModelID = "oracle"

// stageHeader is the header in which the engine's client names the
// stage of a call (a hint; the oracle also reads the prompt itself).
const stageHeader = "X-Parog-Stage"

// Handler serves the oracle as an OpenAI-compatible API: POST
// /v1/chat/completions (streaming or not, with usage) and GET /v1/models.
func (m *Model) Handler() http.Handler {
	s := &server{m: m}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	return mux
}

type server struct {
	m   *Model
	ids atomic.Int64
}

func (s *server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, openai.ModelsList{Models: []openai.Model{{ID: ModelID, Object: "model", OwnedBy: "parog"}}})
}

func (s *server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "oracle: reading the request: "+err.Error())
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "oracle: invalid request body: "+err.Error())
		return
	}
	rep := s.m.Answer(req, r.Header.Get(stageHeader))
	if rep.Status != http.StatusOK {
		writeError(w, rep.Status, rep.Error)
		return
	}
	id := fmt.Sprintf("chatcmpl-oracle-%d", s.ids.Add(1))
	usage := Usage(req, rep.Content)
	if req.Stream {
		s.stream(r.Context(), w, req, id, rep, usage)
		return
	}
	if s.m.pause(r.Context(), s.m.latency.Delay(usage)) != nil {
		return // the client gave up: nobody reads a reply
	}
	writeJSON(w, http.StatusOK, openai.ChatCompletionResponse{
		ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
		Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: rep.Content},
			FinishReason: openai.FinishReason(rep.FinishReason)}},
		Usage: usage,
	})
}

// Usage counts tokens as about four bytes each, plus four per message for
// the chat format: close to what BPE tokenisers of English give, and the
// same for every run, which is what comparisons need.
func Usage(req openai.ChatCompletionRequest, content string) openai.Usage {
	p := 0
	for _, m := range req.Messages {
		p += 4 + tokens(m.Content)
	}
	c := tokens(content)
	return openai.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

func tokens(s string) int { return (len(s) + 3) / 4 }

// stream sends the reply as server-sent events: a role chunk, content
// chunks, the finish chunk, a usage chunk when asked for, then [DONE].
// Under a latency the role chunk comes at the first token's time and each
// content chunk when its tokens are decoded; a client that gives up ends
// the stream at once.
func (s *server) stream(ctx context.Context, w http.ResponseWriter, req openai.ChatCompletionRequest, id string, rep Reply, usage openai.Usage) {
	lat := s.m.latency
	if s.m.pause(ctx, lat.FirstToken(usage.PromptTokens)) != nil {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(delta openai.ChatCompletionStreamChoiceDelta, finish string, u *openai.Usage) {
		chunk := openai.ChatCompletionStreamResponse{ID: id, Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: req.Model, Usage: u}
		if u == nil {
			chunk.Choices = []openai.ChatCompletionStreamChoice{{Delta: delta, FinishReason: openai.FinishReason(finish)}}
		}
		b, _ := json.Marshal(chunk)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant}, "", nil)
	decode := perTokens(usage.CompletionTokens, lat.Decode)
	for _, part := range chunks(rep.Content, 32) {
		// each chunk's share of the decode time, by bytes: the chunks'
		// times add up to the whole reply's
		if decode > 0 && s.m.pause(ctx, decode*time.Duration(len(part))/time.Duration(len(rep.Content))) != nil {
			return
		}
		send(openai.ChatCompletionStreamChoiceDelta{Content: part}, "", nil)
	}
	send(openai.ChatCompletionStreamChoiceDelta{}, rep.FinishReason, nil)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		send(openai.ChatCompletionStreamChoiceDelta{}, "", &usage)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// chunks splits s into pieces of about n bytes, on rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for s != "" {
		i := min(n, len(s))
		for i < len(s) && !utf8Start(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"oracle: encoding the reply"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_"), "code": status}})
}
