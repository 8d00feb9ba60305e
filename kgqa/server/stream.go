package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/engine"
)

// outcome is what the producer goroutine ends with.
type outcome struct {
	ans *kgqa.Answer
	err error
}

// produce runs the engine in a goroutine bound to ctx. Every event is
// encoded by conv on the engine's goroutine (the records it points to may
// change afterwards) and sent on the returned channel, which is closed when
// the engine is done; the outcome follows on done. A consumer must drain
// the channel; when it stops writing it cancels ctx, which unblocks the
// producer.
func (s *Server) produce(ctx context.Context, req engine.Request, conv func(kgqa.Event) []byte) (<-chan []byte, <-chan outcome) {
	lines := make(chan []byte, 64)
	done := make(chan outcome, 1)
	req.OnEvent = func(ev kgqa.Event) {
		b := conv(ev)
		if b == nil {
			return
		}
		select {
		case lines <- b:
		case <-ctx.Done():
		}
	}
	go func() {
		defer close(lines)
		ans, err := s.engine.Ask(ctx, req)
		s.metrics.ObserveAnswer(ans)
		done <- outcome{ans, err}
	}()
	return lines, done
}

// streamAsk writes one NDJSON line per engine event, in order. A failure
// before the first line gets its real status; after it, an error line
// ends the stream.
func (s *Server) streamAsk(c *gin.Context, req engine.Request) {
	ctx, cancel := context.WithCancel(c.Request.Context())
	defer cancel()
	rid := requestIDOf(c)
	lines, done := s.produce(ctx, req, func(ev kgqa.Event) []byte {
		out := api.Event{Event: ev}
		if ev.Answer != nil {
			out.Answer = api.FromAnswer(ev.Answer)
			out.Answer.RequestID = rid
			out.Event.Answer = nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			s.log.Error("stream: encode event", "request_id", rid, "type", ev.Type, "error", err)
			return nil
		}
		return append(b, '\n')
	})
	w := &lineWriter{c: c, contentType: api.NDJSONContentType}
	seq := 0
	for b := range lines {
		seq++
		if !w.write(b) {
			cancel()
		}
	}
	res := <-done
	if res.err == nil {
		return
	}
	if !w.started {
		s.fail(c, s.askError(c, res.ans, res.err))
		return
	}
	he := classify(s.askError(c, res.ans, res.err))
	s.log.Info("stream failed", "request_id", rid, "status", he.status, "error", he.msg)
	c.Set(ctxError, he)
	if w.failed {
		return
	}
	ev := api.Event{
		Event: kgqa.Event{Type: api.EventError, Seq: seq + 1},
		Error: &api.Error{Status: he.status, Message: he.msg, RequestID: rid, Partial: he.partial, Usage: he.usage},
	}
	if b, err := json.Marshal(ev); err == nil {
		w.write(append(b, '\n'))
	}
}

// lineWriter writes and flushes whole lines, sending the headers with the
// first one, and remembers whether the client is gone.
type lineWriter struct {
	c           *gin.Context
	contentType string
	started     bool
	failed      bool
}

func (w *lineWriter) write(b []byte) bool {
	if w.failed {
		return false
	}
	if !w.started {
		w.started = true
		h := w.c.Writer.Header()
		h.Set("Content-Type", w.contentType)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.c.Writer.WriteHeader(http.StatusOK)
	}
	if _, err := w.c.Writer.Write(b); err != nil {
		w.failed = true
		return false
	}
	w.c.Writer.Flush()
	return true
}
