package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
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
	Index        int        `json:"index"`
	Message      *chatOut   `json:"message,omitempty"`
	Delta        *chatDelta `json:"delta,omitempty"`
	FinishReason *string    `json:"finish_reason"`
}

// chatOut is the assistant message of a chat.completion. ReasoningContent
// holds the same engine step lines a stream sends, as reasoning servers
// do.
//
// A refused question is answered all the same: Content and Refusal (as
// OpenAI's field) hold the refusal message, RefusalReason its reason tag.
type chatOut struct {
	Role             string `json:"role"`
	Content          string `json:"content"`
	Refusal          string `json:"refusal,omitempty"`
	RefusalReason    string `json:"refusal_reason,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// chatDelta is one chunk's part of the assistant message: the role on the
// first chunk, then reasoning lines, then the answer; the finish chunk's
// delta is empty.
type chatDelta struct {
	Role             string `json:"role,omitempty"`
	Content          string `json:"content,omitempty"`
	Refusal          string `json:"refusal,omitempty"`
	RefusalReason    string `json:"refusal_reason,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
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
// is the question (rewritten from the conversation when it is a
// follow-up, refused with a reason tag when unsafe), the answer text the assistant message and the engine's
// steps its reasoning_content (streamed as they happen with stream:true).
// The usage reported is the engine's LLM token total.
func (s *Server) chatCompletions(c *gin.Context) {
	serveQuestion(s, c, false, func(req chatRequest) (engine.Request, bool, error) {
		kreq, err := s.chatQuestion(req)
		return kreq, req.Stream, err
	}, s.streamChat, s.answerChat)
}

// answerChat runs an admitted chat completion and writes its one
// chat.completion.
func (s *Server) answerChat(c *gin.Context, kreq engine.Request) {
	// The engine serialises its events, but a step cut short by the
	// deadline may still report after Ask returned: hence the lock.
	var (
		mu        sync.Mutex
		n         narrator
		reasoning strings.Builder
	)
	kreq.OnEvent = func(ev kgqa.Event) {
		mu.Lock()
		defer mu.Unlock()
		reasoning.WriteString(n.line(ev))
	}
	ans, err := s.runAsk(c.Request.Context(), kreq)
	if err != nil {
		s.fail(c, chatError(err))
		return
	}
	mu.Lock()
	msg := &chatOut{Role: "assistant", Content: answerText(ans), ReasoningContent: reasoning.String()}
	mu.Unlock()
	msg.Refusal, msg.RefusalReason = refusalOf(ans)
	stop := "stop"
	c.JSON(http.StatusOK, chatResponse{
		ID: "chatcmpl-" + requestIDOf(c), Object: "chat.completion", Created: time.Now().Unix(), Model: api.ChatModel,
		Choices: []chatChoice{{Message: msg, FinishReason: &stop}},
		Usage:   chatUsageOf(ans),
	})
}

// chatQuestion validates the model and takes the question from the last
// user message and the conversation before it, which the engine reads
// when it holds an earlier user message (a follow-up is rewritten into a
// standalone question). Every chat message, a single one too, is screened
// for safety by the same classifier (engine.Request.Screen). A last
// message too short to be a question is refused here, before any model
// call.
func (s *Server) chatQuestion(req chatRequest) (engine.Request, error) {
	if req.Model != api.ChatModel {
		return engine.Request{}, errorf(http.StatusNotFound, "model %q does not exist; the only model is %q", req.Model, api.ChatModel)
	}
	last := -1
	question := ""
	for i := len(req.Messages) - 1; i >= 0 && question == ""; i-- {
		if req.Messages[i].Role != "user" {
			continue
		}
		t, err := req.Messages[i].text()
		if err != nil {
			return engine.Request{}, err
		}
		question, last = t, i
	}
	if question == "" {
		return engine.Request{}, errorf(http.StatusBadRequest, "messages must contain a user message with the question")
	}
	if err := checkShortQuery(question); err != nil {
		return engine.Request{}, err
	}
	history, err := s.chatHistory(req.Messages[:last])
	if err != nil {
		return engine.Request{}, err
	}
	kreq, err := s.engineRequest(api.AskRequest{Question: question, Seed: req.Seed})
	kreq.History, kreq.Screen = history, true
	return kreq, err
}

// minQueryRunes is the shortest last message read as a question.
const minQueryRunes = 3

// checkShortQuery answers 400 for a message too short to be a question:
// under minQueryRunes characters, or without a letter ("?", "42").
func checkShortQuery(q string) error {
	q = strings.TrimSpace(q)
	if utf8.RuneCountInString(q) < minQueryRunes || !strings.ContainsFunc(q, unicode.IsLetter) {
		return errorf(http.StatusBadRequest, "the last user message %q is too short to be a question: write at least %d characters, with words", truncate(q, 16), minQueryRunes)
	}
	return nil
}

// maxHistory is the most earlier messages the follow-up classifier reads:
// the latest ones, which a follow-up refers to.
const maxHistory = 8

// chatHistory returns the user and assistant messages of msgs with text,
// the latest maxHistory of them, each cut to server.max_question_len
// characters so that a long answer cannot blow up the classifier's prompt.
func (s *Server) chatHistory(msgs []chatMessage) ([]kgqa.Message, error) {
	limit := s.cfg.MaxQuestionLen
	if limit <= 0 {
		limit = config.Default().Server.MaxQuestionLen
	}
	var out []kgqa.Message
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		t, err := m.text()
		if err != nil {
			return nil, err
		}
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if m.Role == "user" {
			if err := kg.CheckText(t); err != nil {
				// The follow-up classifier may copy it into the question:
				// refused before any model call, as the question is.
				return nil, &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf("messages[%d]: %v", i, err), cause: err}
			}
		}
		if r := []rune(t); len(r) > limit {
			t = string(r[:limit])
		}
		out = append(out, kgqa.Message{Role: m.Role, Content: t})
	}
	if len(out) > maxHistory {
		out = out[len(out)-maxHistory:]
	}
	return out, nil
}

// chatError rewords the errors whose generic message does not fit a chat
// client.
func chatError(err error) error {
	if errors.Is(err, engine.ErrNoTopicEntities) {
		// The generic message points at topic_entities, which a chat
		// request cannot carry.
		return &httpError{status: http.StatusUnprocessableEntity, cause: err,
			msg: "no entity of the knowledge graph could be linked from the question; name an entity in it"}
	}
	return err
}

func chatUsageOf(a *kgqa.Answer) *chatUsage {
	u := a.Usage.LLM
	return &chatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}

// refusalMessage is the assistant message of a refused question.
const refusalMessage = "I can't help with that request."

// refusalOf returns the refusal message and its reason tag when the engine
// refused the question, else empty strings.
func refusalOf(a *kgqa.Answer) (msg, reason string) {
	if a.Stop != kgqa.StopRefused {
		return "", ""
	}
	reason = kgqa.VerdictUnsafe
	if a.Rewrite != nil {
		reason = a.Rewrite.Verdict
	}
	return refusalMessage, reason
}

// answerText is the assistant message: the refusal message, the answer
// text, or the answer entities' names when the engine gave no text.
func answerText(a *kgqa.Answer) string {
	if msg, _ := refusalOf(a); msg != "" {
		return msg
	}
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
