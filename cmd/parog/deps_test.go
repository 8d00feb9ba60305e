package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinaryLinksNoTestSupport checks that the parog binary's dependency
// list holds none of the test-support packages: they script models and
// servers for tests and must never ship.
func TestBinaryLinksNoTestSupport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps ./cmd/parog")
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	require.True(t, deps["github.com/parog/parog-go/kgqa"], "the list is the binary's: it holds the engine")
	for _, pkg := range []string{
		"github.com/parog/parog-go/kgqa/kgqatest",
		"github.com/parog/parog-go/kgqa/llm/llmtest",
		"github.com/parog/parog-go/kgqa/ui/browsertest",
		"github.com/chromedp/chromedp",
	} {
		t.Run(pkg, func(t *testing.T) {
			assert.False(t, deps[pkg], "%s is linked into parog", pkg)
		})
	}
}
