// Package browsertest runs pages in a real headless Chromium for tests:
// Debian's chromium, driven over the Chrome DevTools protocol, with every
// console error and uncaught exception collected. Only tests import it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// RequireEnv names the environment variable that turns a missing browser
// from a loud skip into a failure; `make test` sets it.
const RequireEnv = "PAROG_REQUIRE_BROWSER"

// Browser is one headless Chromium with one tab.
type Browser struct {
	t    testing.TB
	ctx  context.Context
	done chan struct{}

	mu     sync.Mutex
	errors []string
}

// Executable returns the Chromium binary. When there is none it skips tb,
// saying loudly why, or fails it when RequireEnv is set.
func Executable(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "BROWSER TEST NOT RUN: no chromium on PATH; `make test` installs Debian's chromium (scripts/ensure-packages.sh)"
	if os.Getenv(RequireEnv) != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// New starts Chromium headless, 1280x800, with a fresh profile in tb's
// temp directory, and opens a blank tab; both stop when tb ends.
func New(tb testing.TB) *Browser {
	tb.Helper()
	exe := Executable(tb)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(filepath.Join(tb.TempDir(), "profile")),
		chromedp.WindowSize(1280, 800),
	)
	ctx, cancelTab := chromedp.NewContext(actx)
	b := &Browser{t: tb, ctx: ctx, done: make(chan struct{})}
	messages := chromedp.Console(ctx)
	go func() {
		defer close(b.done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.errors = append(b.errors, m.String()+" ("+m.URL+")")
				b.mu.Unlock()
			}
		}
	}()
	tb.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		<-b.done
	})
	b.Run(60*time.Second, chromedp.Navigate("about:blank"), chromedp.EmulateViewport(1280, 800))
	return b
}

// Errors returns the console errors, uncaught exceptions and error log
// entries (failed loads, refused scripts) seen so far.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// Run runs actions in the tab, failing the test when one fails or
// timeout passes.
func (b *Browser) Run(timeout time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	require.NoError(b.t, chromedp.Do(ctx, actions...))
}

// Eval evaluates a JavaScript expression in the page and returns its
// value decoded as T.
func Eval[T any](b *Browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(b.t, err, "evaluate %s", expr)
	return v
}

// Screenshot saves what the 1280x800 window shows as dir/name.png and
// logs its path.
func (b *Browser) Screenshot(dir, name string) string {
	b.t.Helper()
	return b.save(dir, name, chromedp.CaptureScreenshot())
}

// FullScreenshot saves the whole page as dir/name.png and logs its path.
func (b *Browser) FullScreenshot(dir, name string) string {
	b.t.Helper()
	return b.save(dir, name, chromedp.FullScreenshot(100))
}

func (b *Browser) save(dir, name string, shot chromedp.Action[[]byte]) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	png, err := chromedp.Run(ctx, shot)
	require.NoError(b.t, err, "screenshot")
	path := filepath.Join(dir, name+".png")
	require.NoError(b.t, os.WriteFile(path, png, 0o644))
	b.t.Logf("screenshot: %s", path)
	return path
}

// WaitTrue waits until the JavaScript expression is truthy, failing the
// test when timeout passes first.
func (b *Browser) WaitTrue(timeout time.Duration, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr))
	require.NoError(b.t, err, "wait for %s; page errors: %v", expr, b.Errors())
}

// ScreenshotDirEnv names the environment variable of a directory that
// keeps screenshots after the test (default: the test's temp directory,
// removed when it ends).
const ScreenshotDirEnv = "PAROG_SCREENSHOT_DIR"

// ScreenshotDir returns the directory screenshots go to.
func ScreenshotDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv(ScreenshotDirEnv); d != "" {
		require.NoError(tb, os.MkdirAll(d, 0o755))
		return d
	}
	return tb.TempDir()
}
