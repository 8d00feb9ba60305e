package ui_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(t *testing.T, url, key string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

// TestRoutes checks the viewer's routes: the page and its assets are
// public and hold no data; files are behind the key and confined to the
// files directory.
func TestRoutes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(`{"id":"q1"}`+"\n"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "trace.json"), []byte(`{"question":"q"}`), 0o600))
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.txt")))
	url := newServer(t, dir)

	tests := []struct {
		name, path, key string
		status          int
		body            string
	}{
		{"page", "/", "", 200, "PARoG trace viewer"},
		{"page under /ui/", "/ui/", "", 200, "PARoG trace viewer"},
		{"script", "/ui/assets/draw.js", "", 200, "var Draw"},
		{"style", "/ui/assets/app.css", "", 200, ".node"},
		{"no listing", "/ui/assets/", "", 404, ""},
		{"no such asset", "/ui/assets/nope.js", "", 404, ""},
		{"auth", "/ui/auth", "", 200, `"key_required":true`},
		{"file needs the key", "/ui/files/results.jsonl", "", 401, "missing bearer token"},
		{"file", "/ui/files/results.jsonl", apiKey, 200, `{"id":"q1"}`},
		{"file in a folder", "/ui/files/sub/trace.json", apiKey, 200, `{"question":"q"}`},
		{"missing file", "/ui/files/nope.json", apiKey, 404, "no such file"},
		{"a folder", "/ui/files/sub", apiKey, 400, "not a regular file"},
		{"dot dot", "/ui/files/sub/%2e%2e/%2e%2e/etc/passwd", apiKey, 400, "not a file path"},
		{"symlink out", "/ui/files/link.txt", apiKey, 403, "cannot open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, hdr, body := get(t, url+tt.path, tt.key)
			assert.Equal(t, tt.status, status, body)
			assert.Contains(t, body, tt.body)
			assert.NotContains(t, body, "secret")
			if tt.status == 200 && strings.HasPrefix(tt.path, "/ui/assets/") || tt.path == "/" {
				assert.Contains(t, hdr.Get("Content-Security-Policy"), "default-src 'none'")
			}
		})
	}
}

func TestNoFilesDirectory(t *testing.T) {
	url := newServer(t, "")
	status, _, body := get(t, url+"/ui/files/results.jsonl", apiKey)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Contains(t, body, "--files")
}
