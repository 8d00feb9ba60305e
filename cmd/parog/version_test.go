package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionLine(t *testing.T) {
	stamp := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/parog/parog-go", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	cases := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"build in a clean clone", stamp("v0.0.0-20261130092506-03469dabcda5", "vcs", "git",
			"vcs.revision", "03469dabcda584a25911066665dfb269d83049ba", "vcs.time", "2026-11-30T09:25:06Z", "vcs.modified", "false"), true,
			"parog v0.0.0-20261130092506-03469dabcda5, revision 03469dabcda584a25911066665dfb269d83049ba (2026-11-30T09:25:06Z), go1.26.8"},
		{"uncommitted changes", stamp("v0.0.0-20261130092506-03469dabcda5+dirty",
			"vcs.revision", "03469dabcda584a25911066665dfb269d83049ba", "vcs.modified", "true"), true,
			"parog v0.0.0-20261130092506-03469dabcda5+dirty, revision 03469dabcda584a25911066665dfb269d83049ba+modified, go1.26.8"},
		{"go install at a tag", stamp("v1.2.0"), true,
			"parog v1.2.0, revision unknown (built without VCS stamping; `make build` in a git clone records it), go1.26.8"},
		{"no stamping", stamp("(devel)", "-buildmode", "exe"), true,
			"parog (devel), revision unknown (built without VCS stamping; `make build` in a git clone records it), go1.26.8"},
		{"no build information", nil, false, "parog: no build information in this binary"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, versionLine(c.bi, c.ok))
		})
	}
}

// TestVersionFlag runs `parog --version` itself: it prints this binary's
// line (the test binary's own build information) and exits 0.
func TestVersionFlag(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	require.True(t, ok)
	code, out, errOut := runParog(t, nil, "--version")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, versionLine(bi, ok)+"\n", out)
	assert.Regexp(t, `^parog \S+, `, out)
	assert.Empty(t, errOut)
}
