package engine

import (
	"sync"
	"time"

	"github.com/parog/parog-go/kgqa"
)

// emitter serialises calls of the callback and numbers the events.
type emitter struct {
	mu    sync.Mutex
	fn    func(kgqa.Event)
	seq   int
	start time.Time
}

func newEmitter(fn func(kgqa.Event), start time.Time) *emitter {
	return &emitter{fn: fn, start: start}
}

func (m *emitter) send(ev kgqa.Event) {
	if m.fn == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	ev.Seq = m.seq
	ev.ElapsedMS = time.Since(m.start).Milliseconds()
	m.fn(ev)
}
