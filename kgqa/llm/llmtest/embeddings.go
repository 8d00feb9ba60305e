package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Embedder scripts the vector of one input text of POST /v1/embeddings.
type Embedder func(model, text string) []float32

// WithEmbedder serves POST /v1/embeddings, answering each input with e's
// vector (an OpenAI embeddings response, usage counted in words). Without
// it the route answers 404, as a chat-only server does.
func WithEmbedder(e Embedder) Option { return func(s *Server) { s.embedder = e } }

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	if s.embedder == nil {
		writeRaw(w, http.StatusNotFound, nil, errorBody(http.StatusNotFound, "llmtest: no embeddings route scripted"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	var inputs []string
	if json.Unmarshal(body, &req) == nil {
		var one string
		if json.Unmarshal(req.Input, &one) == nil {
			inputs = []string{one}
		} else if json.Unmarshal(req.Input, &inputs) != nil {
			inputs = nil
		}
	}
	if len(inputs) == 0 {
		writeRaw(w, http.StatusBadRequest, nil, errorBody(http.StatusBadRequest, "llmtest: embeddings input must be a string or a list of strings"))
		return
	}
	s.mu.Lock()
	s.embedCount++
	s.mu.Unlock()
	resp := openai.EmbeddingResponse{Object: "list", Model: openai.EmbeddingModel(req.Model)}
	for i, in := range inputs {
		resp.Data = append(resp.Data, openai.Embedding{Object: "embedding", Index: i, Embedding: s.embedder(req.Model, in)})
		resp.Usage.PromptTokens += len(strings.Fields(in))
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, nil, resp)
}

// EmbeddingRequests is the number of /v1/embeddings requests answered.
func (s *Server) EmbeddingRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedCount
}
