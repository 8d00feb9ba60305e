package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/engine"
)

// streamChat answers a chat completion with stream:true as OpenAI-style
// server-sent events: one chunk per engine step with the step's line in
// delta.reasoning_content while the engine runs, then the answer in
// delta.content, a finish chunk with the usage, and "data: [DONE]". The
// first chunk carries the role. Nothing is written before the engine's
// first step, so a failure before it (no model, nothing linked) gets its
// real status; a failure after it ends the stream with an OpenAI error
// event and no [DONE].
func (s *Server) streamChat(c *gin.Context, req engine.Request) {
	ctx, cancel := context.WithCancel(c.Request.Context())
	defer cancel()
	var n narrator
	lines, done := s.produce(ctx, req, func(ev kgqa.Event) []byte {
		if l := n.line(ev); l != "" {
			return []byte(l)
		}
		return nil
	})
	ch := &chunker{id: "chatcmpl-" + requestIDOf(c), created: time.Now().Unix()}
	w := &lineWriter{c: c, contentType: "text/event-stream"}
	for b := range lines {
		if !w.write(ch.chunk(&chatDelta{ReasoningContent: string(b)}, nil, nil)) {
			cancel()
		}
	}
	res := <-done
	if res.err != nil {
		s.failChatStream(c, w, res.err)
		return
	}
	stop := "stop"
	d := &chatDelta{Content: answerText(res.ans)}
	d.Refusal, d.RefusalReason = refusalOf(res.ans)
	_ = w.write(ch.chunk(d, nil, nil)) &&
		w.write(ch.chunk(&chatDelta{}, &stop, chatUsageOf(res.ans))) &&
		w.write([]byte("data: [DONE]\n\n"))
}

// failChatStream reports a failed streamed chat: with its status while
// nothing was sent, else as a final `data: {"error": ...}` event, which
// OpenAI SDKs raise as an API error.
func (s *Server) failChatStream(c *gin.Context, w *lineWriter, err error) {
	err = chatError(err)
	if !w.started {
		s.fail(c, err)
		return
	}
	he := classify(err)
	s.log.Info("stream failed", "request_id", requestIDOf(c), "status", he.status, "error", he.msg)
	c.Set(ctxError, he)
	if w.failed {
		return
	}
	if b, err := json.Marshal(openAIError(he)); err == nil {
		w.write([]byte("data: " + string(b) + "\n\n"))
	}
}

// chunker encodes chat.completion.chunk events of one completion; the
// first carries the assistant role.
type chunker struct {
	id      string
	created int64
	sent    bool
}

func (k *chunker) chunk(d *chatDelta, finish *string, u *chatUsage) []byte {
	if !k.sent {
		k.sent = true
		d.Role = "assistant"
	}
	b, _ := json.Marshal(chatResponse{ID: k.id, Object: "chat.completion.chunk", Created: k.created, Model: api.ChatModel,
		Choices: []chatChoice{{Delta: d, FinishReason: finish}}, Usage: u})
	return []byte("data: " + string(b) + "\n\n")
}
