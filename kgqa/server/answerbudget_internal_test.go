package server

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The budget refuses past a client's share and past the total, and once
// it empties after holding much it hands the heap back: at gc_percent 400
// the heap the answers grew stayed in use after their readers had left.
func TestAnswerBudget(t *testing.T) {
	b := newAnswerBudget(64<<20, 16<<20, prometheus.NewRegistry())
	freed := make(chan struct{}, 1)
	b.free = func() { freed <- struct{}{} }
	var holds []*answerHold
	for _, client := range []string{"a", "b", "c", "d"} {
		h, err := b.take(client, 16<<20)
		require.NoError(t, err, client)
		holds = append(holds, h)
	}
	_, err := b.take("e", 1)
	var he *httpError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, http.StatusServiceUnavailable, he.status)
	assert.Equal(t, 2, he.retryAfter)
	holds[0].shrink(1 << 20)
	_, err = b.take("a", 16<<20)
	require.ErrorAs(t, err, &he, "a client holds a quarter at most")
	h, err := b.take("e", 15<<20)
	require.NoError(t, err)
	holds = append(holds, h)
	for _, h := range holds {
		h.release()
	}
	assert.Zero(t, b.held)
	assert.Empty(t, b.byClient)
	<-freed
}
