package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
)

// chatRequest is the part of an OpenAI chat completion request the server
// reads. Other fields SDKs send (temperature, user, ...) are accepted and
// ignored, as OpenAI-compatible servers do; the types of these are checked.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
	Seed     *int          `json:"seed"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is the message content: a string, or the text parts of an array.
func (m chatMessage) text() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", errorf(http.StatusBadRequest, "messages[].content must be a string or an array of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

type chatChoice struct {
	Index        int      `json:"index"`
	Message      *chatOut `json:"message,omitempty"`
	Delta        *chatOut `json:"delta,omitempty"`
	FinishReason *string  `json:"finish_reason"`
}

type chatOut struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type chatResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage,omitempty"`
}

// models serves GET /v1/models: the one model, "parog".
func (s *Server) models(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"object": "list", "data": []gin.H{{"id": api.ChatModel, "object": "model", "created": 0, "owned_by": "parog"}}})
}

// chatCompletions serves POST /v1/chat/completions: the last user message
// is the question, the answer text the assistant message. The usage
// reported is the engine's LLM token total.
func (s *Server) chatCompletions(c *gin.Context) {
	var req chatRequest
	if err := decode(c, &req, false); err != nil {
		s.fail(c, err)
		return
	}
	if req.Model != api.ChatModel {
		s.fail(c, errorf(http.StatusNotFound, "model %q does not exist; the only model is %q", req.Model, api.ChatModel))
		return
	}
	question := ""
	for i := len(req.Messages) - 1; i >= 0 && question == ""; i-- {
		if req.Messages[i].Role != "user" {
			continue
		}
		t, err := req.Messages[i].text()
		if err != nil {
			s.fail(c, err)
			return
		}
		question = t
	}
	if question == "" {
		s.fail(c, errorf(http.StatusBadRequest, "messages must contain a user message with the question"))
		return
	}
	kreq, timeout, err := s.engineRequest(api.AskRequest{Question: question, Seed: req.Seed})
	if err != nil {
		s.fail(c, err)
		return
	}
	ans, err := s.runAsk(c.Request.Context(), kreq, timeout)
	if errors.Is(err, kgqa.ErrNoTopicEntities) {
		// The generic message points at topic_entities, which a chat
		// request cannot carry.
		err = &httpError{status: http.StatusUnprocessableEntity, cause: err,
			msg: "no entity of the knowledge graph could be linked from the question; name an entity in it"}
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	id := "chatcmpl-" + requestIDOf(c)
	created := time.Now().Unix()
	u := ans.Usage.LLM
	usage := &chatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	stop := "stop"
	text := answerText(ans)
	if !req.Stream {
		c.JSON(http.StatusOK, chatResponse{
			ID: id, Object: "chat.completion", Created: created, Model: api.ChatModel,
			Choices: []chatChoice{{Message: &chatOut{Role: "assistant", Content: text}, FinishReason: &stop}},
			Usage:   usage,
		})
		return
	}
	chunk := func(d *chatOut, finish *string, u *chatUsage) []byte {
		b, _ := json.Marshal(chatResponse{ID: id, Object: "chat.completion.chunk", Created: created, Model: api.ChatModel,
			Choices: []chatChoice{{Delta: d, FinishReason: finish}}, Usage: u})
		return []byte("data: " + string(b) + "\n\n")
	}
	w := &lineWriter{c: c, contentType: "text/event-stream"}
	_ = w.write(chunk(&chatOut{Role: "assistant"}, nil, nil)) &&
		w.write(chunk(&chatOut{Content: text}, nil, nil)) &&
		w.write(chunk(&chatOut{}, &stop, usage)) &&
		w.write([]byte("data: [DONE]\n\n"))
}

// answerText is the assistant message: the answer text, or the answer
// entities' names when the engine gave no text.
func answerText(a *kgqa.Answer) string {
	if a.Text != "" {
		return a.Text
	}
	names := make([]string, 0, len(a.Entities))
	for _, e := range a.Entities {
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return "I could not find an answer."
	}
	return strings.Join(names, ", ")
}
