package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
)

// A proxy in front of the server answers with its own HTML page: every
// call, readiness included, reports the proxy's status and page as an
// *api.Error instead of a JSON decoding error.
func TestClientReportsAProxyErrorPage(t *testing.T) {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body>502 Bad Gateway</body></html>"))
	}))
	t.Cleanup(proxy.Close)
	c, err := api.NewClient(proxy.URL)
	require.NoError(t, err)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"ask":    func() error { _, err := c.Ask(ctx, api.AskRequest{Question: "q?"}); return err },
		"health": func() error { _, err := c.Health(ctx); return err },
		"ready":  func() error { _, err := c.Ready(ctx); return err },
	} {
		t.Run(name, func(t *testing.T) {
			err := call()
			var ae *api.Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusBadGateway, ae.Status)
			assert.Contains(t, ae.Message, "502 Bad Gateway")
		})
	}
}
