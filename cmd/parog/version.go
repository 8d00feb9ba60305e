package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// versionLine says which parog this is, from the build information the Go
// linker stamps into the binary: the module version (a tagged or
// pseudo-version under `go install module@version` or a build in a git
// clone, "(devel)" otherwise) and the git revision the binary was built
// from, marked "+modified" when the work tree had uncommitted changes.
// Without a stamped revision (a build with -buildvcs=false, or outside a
// git clone) it says so rather than print nothing.
func versionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "parog: no build information in this binary"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	var b strings.Builder
	fmt.Fprintf(&b, "parog %s", version)
	switch rev := settings["vcs.revision"]; {
	case rev == "":
		b.WriteString(", revision unknown (built without VCS stamping; `make build` in a git clone records it)")
	default:
		fmt.Fprintf(&b, ", revision %s", rev)
		if settings["vcs.modified"] == "true" {
			b.WriteString("+modified")
		}
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
	}
	if bi.GoVersion != "" {
		fmt.Fprintf(&b, ", %s", bi.GoVersion)
	}
	return b.String()
}
