package browsertest_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

// TestBrowserCollectsErrors checks that console errors and uncaught
// exceptions are seen, so that a page test's "no errors" means something.
func TestBrowserCollectsErrors(t *testing.T) {
	b := browsertest.New(t)
	page := `<html><body><p id="x">hi</p><script>console.log("fine"); console.error("boom"); undefinedFn();</script></body></html>`
	b.Run(30*time.Second, chromedp.Navigate("data:text/html,"+url.PathEscape(page)), chromedp.WaitVisible("#x"))
	assert.Equal(t, "hi", browsertest.Eval[string](b, `document.getElementById("x").textContent`))
	require.Eventually(t, func() bool { return len(b.Errors()) >= 2 }, 10*time.Second, 50*time.Millisecond, "errors: %v", b.Errors())
	errs := b.Errors()
	assert.Contains(t, errs[0], "boom")
	assert.Contains(t, errs[1], "undefinedFn")
	b.Screenshot(t.TempDir(), "errors")
}
