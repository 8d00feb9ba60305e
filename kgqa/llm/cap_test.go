package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// completionOfSize is a chat completion body of exactly size bytes whose
// content is a run of "x".
func completionOfSize(t *testing.T, size int) (body, content string) {
	t.Helper()
	const frame = `{"id":"c1","object":"chat.completion","created":1,"model":"test-model",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"%s"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	pad := size - len(fmt.Sprintf(frame, ""))
	require.Positive(t, pad)
	content = strings.Repeat("x", pad)
	body = fmt.Sprintf(frame, content)
	require.Len(t, body, size)
	return body, content
}

func TestReplyOverCapFailsAtOnce(t *testing.T) {
	const limit = 4 << 10
	atCap, content := completionOfSize(t, limit)
	overCap, _ := completionOfSize(t, limit+1)
	for _, tc := range []struct {
		name   string
		reply  llmtest.Reply
		tooBig bool
	}{
		{"body of exactly the cap is read", llmtest.Reply{Body: atCap}, false},
		{"one byte over the cap fails", llmtest.Reply{Body: overCap}, true},
		{"content far over the cap fails", llmtest.Text(strings.Repeat("{", 64<<10)), true},
		{"error page over the cap fails without retries", llmtest.Reply{Status: http.StatusBadGateway, Body: strings.Repeat("<p>", 8<<10)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every reply is the same, so a retry would be answered too.
			srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return tc.reply }))
			c := newClient(t, srv, func(ep *config.Endpoint) { ep.Retries = 3 }, WithMaxReplyBytes(limit))
			ledger := kgqa.NewLedger()
			resp, err := c.Chat(kgqa.WithLedger(context.Background(), ledger), ask("answer", "Which country?"))
			assert.Equal(t, 1, srv.Count(), "requests sent")
			calls := ledger.Calls()
			require.Len(t, calls, 1)
			assert.Zero(t, calls[0].Retries)
			if !tc.tooBig {
				require.NoError(t, err)
				assert.Equal(t, content, resp.Content)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, kgqa.ErrReplyTooLarge)
			assert.ErrorIs(t, err, kgqa.ErrModelUnavailable)
			assert.NotErrorIs(t, err, kgqa.ErrModelRejected)
			assert.Contains(t, err.Error(), fmt.Sprintf("reply too large: exceeded %d bytes", limit))
			assert.Contains(t, calls[0].Err, "exceeded")
		})
	}
}

// WithMaxReplyBytes(0) keeps the default cap instead of refusing every
// reply.
func TestReplyCapZeroKeepsDefault(t *testing.T) {
	body, content := completionOfSize(t, 8<<10)
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Reply{Body: body}))
	c := newClient(t, srv, nil, WithMaxReplyBytes(0))
	resp, err := c.Chat(context.Background(), ask("answer", "Which country?"))
	require.NoError(t, err)
	assert.Equal(t, content, resp.Content)
}
