// Package realdata finds the real data that tests read (benchmark
// samples, WebQSP train, FB15k-237, the Freebase schema, PoG's released
// results): the directory $PAROG_DATA names; else, file by file, data/ in
// the repository (where `parog data get` writes) and then shared/data
// beside the repository (../shared/data from its root). A fresh clone has
// none of them; the tests that need a file then skip, each with one line
// that names the file and the variable, and make test counts them.
//
// Small excerpts of the same files live in the repository's testdata/
// (laid out like the data directory, sources and licences in NOTICE), so
// that every package with a real-data test still runs one on a fresh
// clone: Excerpt finds them.
package realdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Env names the variable that points at the data directory.
const Env = "PAROG_DATA"

// SkipLogEnv names a file that each skip appends its line to, so that a
// run of every package can count them (make test sets it).
const SkipLogEnv = "PAROG_SKIPLOG"

const module = "module github.com/parog/parog-go\n"

// DefaultDir is the data directory, relative to the repository root, that
// `parog data get` writes when PAROG_DATA is unset.
const DefaultDir = "data"

// Dir returns the data directory: $PAROG_DATA, else data/ in the
// repository, else shared/data beside it, whichever exists first; or an
// error saying where it was looked for.
func Dir() (string, error) {
	dirs, err := dirs()
	if err != nil {
		return "", err
	}
	return dirs[0], nil
}

// dirs returns the data directories that exist, in the order files are
// looked for in them: $PAROG_DATA alone when set.
func dirs() ([]string, error) {
	if d := os.Getenv(Env); d != "" {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("realdata: $%s=%s is not a directory", Env, d)
		}
		return []string{d}, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range []string{filepath.Join(root, DefaultDir), filepath.Join(filepath.Dir(root), "shared", "data")} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("realdata: no $%s, no %s and no %s", Env, filepath.Join(root, DefaultDir), filepath.Join(filepath.Dir(root), "shared", "data"))
	}
	return out, nil
}

// moduleRoot walks up from the working directory to the module's go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), module) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("realdata: not inside the parog-go module")
		}
		dir = parent
	}
}

// Path returns the data file rel (a path inside the data directory, such
// as "pog/cwq_gold.json"), or skips tb with one line naming the file and
// the variable when the directory or the file is missing.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	ds, err := dirs()
	for _, d := range ds {
		p := filepath.Join(d, rel)
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	line := fmt.Sprintf("real data %s not found: set %s to the data directory (%v)", rel, Env, err)
	if log := os.Getenv(SkipLogEnv); log != "" {
		if f, ferr := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); ferr == nil {
			_, _ = fmt.Fprintf(f, "%s: %s\n", tb.Name(), line)
			_ = f.Close()
		}
	}
	tb.Skip(line)
	return ""
}

// ExcerptDir returns the repository's testdata directory, which holds
// excerpts of the real data laid out like the data directory.
func ExcerptDir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata"), nil
}

// Excerpt returns the excerpt rel of the real data (a path inside the
// repository's testdata, such as "pog/cwq_gold.json"); it fails tb when
// the file is missing, since the repository ships it.
func Excerpt(tb testing.TB, rel string) string {
	tb.Helper()
	d, err := ExcerptDir()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("realdata: excerpt %s is missing from the repository: %v", rel, err)
	}
	return p
}
