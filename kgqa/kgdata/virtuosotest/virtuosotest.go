// Package virtuosotest starts a throw-away Virtuoso 7 server for tests: a
// generated virtuoso.ini in a temporary directory, free ports, N-Triples
// bulk-loaded with ld_dir + rdf_loader_run(), and /sparql answering before
// Start returns. The ini, the process and the loader are the setup kit's
// (package virtuoso), sized small.
package virtuosotest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa/kgdata/virtuoso"
)

// Binaries of Debian's virtuoso-opensource-7-bin package.
const (
	ServerBinary = virtuoso.ServerBinary
	ISQLBinary   = virtuoso.ISQLBinary
)

// SkipEnv names the environment variable that turns a missing Virtuoso into
// a skip instead of a failure.
const SkipEnv = "PAROG_SKIP_VIRTUOSO"

// Graph is the named graph the triples are loaded into; Virtuoso's
// /sparql queries the union of all graphs by default.
const Graph = "urn:parog:test"

// InstallHint says how to get the binaries.
const InstallHint = "install Virtuoso 7 with: apt-get install -y virtuoso-opensource-7-bin " +
	"(or set " + SkipEnv + "=1 to skip the tests that need it)"

// ErrMissing means virtuoso-t or isql-vt is not on PATH.
var ErrMissing = errors.New("virtuosotest: " + ServerBinary + " or " + ISQLBinary + " not found; " + InstallHint)

// Server is a running Virtuoso.
type Server struct {
	// SPARQL is the URL of the /sparql endpoint.
	SPARQL string
	// Dir is the server's working directory (database, log, ini).
	Dir string
	// SQLPort is the ISQL port; HTTPPort serves /sparql.
	SQLPort, HTTPPort int

	v        *virtuoso.Server
	loads    int
	stopOnce sync.Once
}

// memory sizes a test server's buffers (about 40,000 pages).
const memory = 512 << 20

// Available reports whether the Virtuoso binaries are installed.
func Available() error {
	if virtuoso.Available() != nil {
		return ErrMissing
	}
	return nil
}

// Require fails tb loudly when Virtuoso is missing, or skips it with the
// reason when PAROG_SKIP_VIRTUOSO=1.
func Require(tb testing.TB) {
	tb.Helper()
	if err := Available(); err != nil {
		if os.Getenv(SkipEnv) == "1" {
			tb.Skipf("SKIPPING Virtuoso tests (%s=1): %v", SkipEnv, err)
		}
		tb.Fatalf("%v", err)
	}
}

// New starts a server loaded with files for one test and stops it when the
// test ends.
func New(tb testing.TB, files ...string) *Server {
	tb.Helper()
	Require(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, tb.TempDir(), files...)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() { _ = s.Stop() })
	return s
}

// Start runs virtuoso-t in dir (which it owns from now on), loads files
// (N-Triples, .nt or .nt.gz) and waits until /sparql answers.
func Start(ctx context.Context, dir string, files ...string) (*Server, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	ports, err := virtuoso.FreePorts(2)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, fmt.Errorf("virtuosotest: %w", err)
	}
	for i, f := range files {
		if err := link(f, filepath.Join(data, fmt.Sprintf("%03d-%s", i, filepath.Base(f)))); err != nil {
			return nil, err
		}
	}
	ini := virtuoso.Ini{Dir: dir, DataDirs: []string{data}, SQLPort: ports[0], HTTPPort: ports[1], Memory: memory}
	v, err := virtuoso.Start(ctx, ini, virtuoso.StartOptions{})
	if err != nil {
		return nil, err
	}
	s := &Server{SPARQL: v.SPARQL(), Dir: dir, SQLPort: ports[0], HTTPPort: ports[1], v: v}
	if len(files) > 0 {
		if err := s.load(ctx, data, Graph); err != nil {
			_ = s.Stop()
			return nil, err
		}
	}
	return s, nil
}

// Load bulk-loads N-Triples files into the named graph.
func (s *Server) Load(ctx context.Context, graph string, files ...string) error {
	s.loads++
	data := filepath.Join(s.Dir, fmt.Sprintf("data/load%03d", s.loads))
	if err := os.MkdirAll(data, 0o755); err != nil {
		return fmt.Errorf("virtuosotest: %w", err)
	}
	for i, f := range files {
		if err := link(f, filepath.Join(data, fmt.Sprintf("%03d-%s", i, filepath.Base(f)))); err != nil {
			return err
		}
	}
	return s.load(ctx, data, graph)
}

// FullTextSQL turns on Virtuoso's free-text index of RDF literals (what
// SPARQL's bif:contains reads) for every graph and predicate, and indexes
// the literals loaded so far.
const FullTextSQL = "DB.DBA.RDF_OBJ_FT_RULE_ADD(null, null, 'index_all');\n" +
	"DB.DBA.VT_INC_INDEX_DB_DBA_RDF_OBJ();\n"

// EnableFullText builds the free-text index over what is loaded; call it
// again after a later Load. Without it bif:contains matches nothing.
func (s *Server) EnableFullText(ctx context.Context) error {
	if _, err := s.ISQL(ctx, FullTextSQL); err != nil {
		return fmt.Errorf("virtuosotest: enable full text: %w", err)
	}
	return nil
}

// GraphURL is the /sparql URL whose default graph is the named graph alone.
func (s *Server) GraphURL(graph string) string {
	return s.SPARQL + "?default-graph-uri=" + url.QueryEscape(graph)
}

// link hard-links src into the data directory, copying when it cannot.
func link(src, dst string) error {
	abs, err := filepath.Abs(src)
	if err != nil {
		return fmt.Errorf("virtuosotest: %w", err)
	}
	if err := os.Link(abs, dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return fmt.Errorf("virtuosotest: %w", err)
	}
	return os.WriteFile(dst, b, 0o644)
}

// load bulk-loads every N-Triples file of data and checkpoints.
func (s *Server) load(ctx context.Context, data, graph string) error {
	if err := s.v.Register(ctx, graph, []string{data}); err != nil {
		return fmt.Errorf("virtuosotest: %w", err)
	}
	if _, err := s.v.Load(ctx, 1, time.Hour, nil); err != nil {
		return fmt.Errorf("virtuosotest: %w", err)
	}
	return nil
}

// IndexRelations writes the relation index of graph into the graph index,
// as parog kg virtuoso setup does for its data (virtuoso.IndexRelations).
func (s *Server) IndexRelations(ctx context.Context, graph, index string) (virtuoso.RelationIndex, error) {
	return s.v.IndexRelations(ctx, graph, index)
}

// ISQL runs an SQL script as dba and returns its output.
func (s *Server) ISQL(ctx context.Context, script string) (string, error) {
	return s.v.ISQL(ctx, script)
}

// Stop ends the server and waits for it to exit.
func (s *Server) Stop() error {
	var err error
	s.stopOnce.Do(func() { err = s.v.Stop() })
	return err
}

// RSS returns the server process's resident memory, in bytes, read from
// /proc.
func (s *Server) RSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.v.PID))
	if err != nil {
		return 0, fmt.Errorf("virtuosotest: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("virtuosotest: VmRSS %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("virtuosotest: no VmRSS in /proc/%d/status", s.v.PID)
}
