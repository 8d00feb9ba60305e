package sharedcache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/parog/parog-go/kgqa/config"
)

// SnapshotTag names the state of the KG cfg describes, for the keys of a
// shared cache: cache.snapshot when set; else, for the embedded store, each
// file's absolute path, size and modification time (a builtin graph by its
// name and the program's revision, since it is compiled in) and the store
// directory's manifest; for a SPARQL endpoint its URL and dialect. An
// endpoint's data can change behind the same URL: whoever reloads it sets
// cache.snapshot anew.
func SnapshotTag(cfg config.Config, baseDir string) (string, error) {
	if cfg.Cache.Snapshot != "" {
		return cfg.Cache.Snapshot, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%s|%s\n", cfg.KG.Backend, cfg.KG.Dialect, cfg.KG.Language, strings.Join(cfg.KG.NoiseRelations, ","))
	switch cfg.KG.Backend {
	case "sparql":
		fmt.Fprintf(h, "endpoint %s\n", cfg.KG.Endpoint)
	default:
		for _, f := range cfg.KG.Files {
			if strings.HasPrefix(f, "builtin:") {
				fmt.Fprintf(h, "%s@%s\n", f, revision())
				continue
			}
			if err := stamp(h, resolve(baseDir, f)); err != nil {
				return "", err
			}
		}
		if cfg.KG.Dir != "" {
			_ = stamp(h, filepath.Join(resolve(baseDir, cfg.KG.Dir), "MANIFEST")) // a new store has none yet
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func resolve(baseDir, p string) string {
	if !filepath.IsAbs(p) && baseDir != "" {
		p = filepath.Join(baseDir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func stamp(w io.Writer, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("sharedcache: snapshot tag: %w", err)
	}
	fmt.Fprintf(w, "%s %d %d\n", path, st.Size(), st.ModTime().UnixNano())
	return nil
}

// revision is the program's VCS revision (or module version), which fixes
// the content of the builtin graphs.
func revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return bi.Main.Version
}
