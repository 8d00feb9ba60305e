package kgqa

import (
	"sync"
	"time"
)

// emitter serialises calls of the callback and numbers the events.
type emitter struct {
	mu    sync.Mutex
	fn    func(Event)
	seq   int
	start time.Time
}

func newEmitter(fn func(Event), start time.Time) *emitter {
	return &emitter{fn: fn, start: start}
}

func (m *emitter) send(ev Event) {
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
