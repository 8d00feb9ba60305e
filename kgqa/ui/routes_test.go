package ui_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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
		{"a folder", "/ui/files/sub", apiKey, 404, "not a regular file"},
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

// A named pipe in the files directory blocked each request for it in
// open(), before the regular-file check, and the handler stayed stuck
// after its client had gone: 25 of them filled server.max_conns and
// SIGTERM waited out the whole grace. Now the file is opened without
// blocking, refused with 404, and no goroutine stays behind.
func TestFilesNamedPipe(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe.json")
	require.NoError(t, syscall.Mkfifo(pipe, 0o600))
	url := newServer(t, dir)
	// Should a handler block in open() all the same, a writer lets it go
	// at the end, so that the test fails instead of hanging.
	t.Cleanup(func() {
		for range 100 {
			if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	base := runtime.NumGoroutine()
	got := make(chan int, 1)
	go func() {
		status, _, _ := get(t, url+"/ui/files/pipe.json", apiKey)
		got <- status
	}()
	select {
	case status := <-got:
		assert.Equal(t, http.StatusNotFound, status)
	case <-time.After(10 * time.Second):
		t.Error("a request for a named pipe hangs")
	}

	var wg sync.WaitGroup
	for range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/ui/files/pipe.json", nil)
			req.Header.Set("Authorization", "Bearer "+apiKey)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			if resp, err := (&http.Client{Transport: tr}).Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	http.DefaultClient.CloseIdleConnections()
	// The clients have gone; their handlers end with them. The wait is a
	// bound on a hang, not a measure of speed.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), base+2, "goroutines left behind by requests for a named pipe")
}
