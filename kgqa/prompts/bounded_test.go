package prompts

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A prompts.dir template that expands exponentially (40 levels, each
// calling the one below twice) was expanded whole while Load validated
// it: 2.7 GB and rising, no listener, SIGTERM ignored. Validation now
// renders each block with a cap on its output and its time, and refuses
// the template, naming it.
func TestLoadRefusesExplodingTemplate(t *testing.T) {
	for _, tc := range []struct{ name, leaf string }{
		{"output", "xxxxxxxxxxxxxxxx"},
		{"time", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, Dump(dir))
			var b strings.Builder
			fmt.Fprintf(&b, `{{define "e0"}}%s{{end}}`, tc.leaf)
			for i := 1; i <= 40; i++ {
				fmt.Fprintf(&b, `{{define "e%d"}}{{template "e%d" .}}{{template "e%d" .}}{{end}}`, i, i-1, i-1)
			}
			b.WriteString(`{{define "tentative.system"}}Answer.{{end}}{{define "tentative.user"}}{{template "e40" .}}{{end}}`)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "tentative.tmpl"), []byte(b.String()), 0o644))

			var peak uint64
			done := make(chan error, 1)
			go func() {
				_, err := Load(dir)
				done <- err
			}()
			var ms runtime.MemStats
			deadline := time.After(10 * time.Second)
			for {
				select {
				case err := <-done:
					require.Error(t, err)
					assert.Contains(t, err.Error(), "tentative.tmpl")
					assert.Contains(t, err.Error(), "limit")
					assert.Less(t, peak, uint64(512<<20), "validation held %d MiB", peak>>20)
					return
				case <-deadline:
					t.Fatal("Load did not refuse the template within 10 s")
				case <-time.After(20 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
					if peak > 512<<20 {
						t.Fatalf("validation holds %d MiB", peak>>20)
					}
				}
			}
		})
	}
}
