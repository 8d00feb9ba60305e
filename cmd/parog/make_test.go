package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// makeDryRun returns the recipe lines `make -n target` prints at the
// repository root, without running them. The test may itself run under
// make test, whose variables would change what make prints, so they are
// left out of make's environment.
func makeDryRun(t *testing.T, target string) []string {
	t.Helper()
	cmd := exec.Command("make", "-n", "--no-print-directory", target, "GO=go")
	cmd.Dir = "../.."
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MAKELEVEL" && k != "MFLAGS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make -n %s: %s", target, out)
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestStaticcheckIsATool checks that staticcheck is a tool dependency of
// the module at the version the project pins, and that make lint runs it
// with go tool, so the build cache keeps the binary between runs instead
// of building it from source for each make test.
func TestStaticcheckIsATool(t *testing.T) {
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	require.NoError(t, err)
	var mod struct {
		Require []struct{ Path, Version string }
		Tool    []struct{ Path string }
	}
	require.NoError(t, json.Unmarshal(out, &mod))
	var tools []string
	for _, tl := range mod.Tool {
		tools = append(tools, tl.Path)
	}
	assert.Contains(t, tools, "honnef.co/go/tools/cmd/staticcheck")
	versions := map[string]string{}
	for _, r := range mod.Require {
		versions[r.Path] = r.Version
	}
	assert.Equal(t, "v0.8.2", versions["honnef.co/go/tools"])

	lint := makeDryRun(t, "lint")
	assert.True(t, slices.ContainsFunc(lint, func(l string) bool {
		return strings.HasPrefix(l, "go tool staticcheck ") && strings.HasSuffix(l, " ./...")
	}), "make lint runs go tool staticcheck on the module: %q", lint)
	for _, l := range lint {
		assert.NotContains(t, l, "@", "make lint builds a tool outside go.mod: %s", l)
	}
}

// TestMakeTestCountsDataSkips runs the recipe make test ends with on one
// package whose whole-data test skips when PAROG_DATA names no directory:
// its last line counts that one skip.
func TestMakeTestCountsDataSkips(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make and go test; skipped with -short")
	}
	cmd := exec.Command("make", "--no-print-directory", "test-go", "GO=go", "PKGS=./internal/naming", "TESTFLAGS=-run FoldKeeps")
	cmd.Dir = "../.."
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MAKELEVEL" && k != "MFLAGS" && k != "PAROG_DATA" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "PAROG_DATA="+t.TempDir()+"/none")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	assert.Equal(t, "data tests skipped: 1 (set PAROG_DATA to run them)", lines[len(lines)-1])
}

// TestBuildTagsLeaveOutMsgpack checks that make build passes the build tags
// that leave gin's MessagePack codec out of the binary, that the
// Dockerfile builds with the same tags, and that the tags are what drop
// it: without them the binary links github.com/ugorji/go/codec.
func TestBuildTagsLeaveOutMsgpack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	const codec = "github.com/ugorji/go/codec"
	build := makeDryRun(t, "build")
	m := regexp.MustCompile(`go build -tags '?([^' ]+)'? `).FindStringSubmatch(build[0])
	require.NotNil(t, m, "make build passes build tags: %q", build)
	assert.Contains(t, strings.Split(m[1], ","), "nomsgpack")
	docker, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	assert.Contains(t, string(docker), "go build -tags "+m[1]+" ", "the image is built with make build's tags")

	deps := func(tags ...string) []string {
		out, err := exec.Command("go", append(append([]string{"list", "-deps"}, tags...), ".")...).Output()
		require.NoError(t, err, "go list")
		return strings.Fields(string(out))
	}
	require.Contains(t, deps(), codec, "without the tags gin links its MessagePack codec")
	assert.NotContains(t, deps("-tags", m[1]), codec)
}
