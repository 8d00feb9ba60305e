// Package virtuosotest starts a throw-away Virtuoso 7 server for tests: a
// generated virtuoso.ini in a temporary directory, free ports, N-Triples
// bulk-loaded with ld_dir + rdf_loader_run(), and /sparql answering before
// Start returns.
package virtuosotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binaries of Debian's virtuoso-opensource-7-bin package.
const (
	ServerBinary = "virtuoso-t"
	ISQLBinary   = "isql-vt"
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

	cmd      *exec.Cmd
	loads    int
	waitErr  chan error
	stopOnce sync.Once
}

// Available reports whether the Virtuoso binaries are installed.
func Available() error {
	for _, b := range []string{ServerBinary, ISQLBinary} {
		if _, err := exec.LookPath(b); err != nil {
			return ErrMissing
		}
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
	ports, err := freePorts(2)
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
	s := &Server{Dir: dir, SQLPort: ports[0], HTTPPort: ports[1], waitErr: make(chan error, 1)}
	s.SPARQL = fmt.Sprintf("http://127.0.0.1:%d/sparql", s.HTTPPort)
	ini := filepath.Join(dir, "virtuoso.ini")
	if err := os.WriteFile(ini, []byte(iniText(dir, data, s.SQLPort, s.HTTPPort)), 0o644); err != nil {
		return nil, fmt.Errorf("virtuosotest: %w", err)
	}
	logf, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		return nil, fmt.Errorf("virtuosotest: %w", err)
	}
	s.cmd = exec.Command(ServerBinary, "+foreground", "+configfile", ini)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	// Its own process group, so Stop reaches every process it forks; and
	// killed with the test binary should that die first (a test timeout).
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("virtuosotest: start %s: %w", ServerBinary, err)
	}
	go func() { s.waitErr <- s.cmd.Wait(); _ = logf.Close() }()
	if err := s.waitReady(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
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

func (s *Server) waitReady(ctx context.Context) error {
	ask := s.SPARQL + "?query=" + url.QueryEscape("ASK {}")
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ask, nil)
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-s.waitErr:
			s.waitErr <- err
			return fmt.Errorf("virtuosotest: %s exited before /sparql answered (%v); log: %s", ServerBinary, err, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("virtuosotest: /sparql did not answer: %w; log: %s", ctx.Err(), s.logTail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// load bulk-loads every N-Triples file of data and checkpoints.
func (s *Server) load(ctx context.Context, data, graph string) error {
	if strings.ContainsAny(data+graph, "'\\") {
		return fmt.Errorf("virtuosotest: quote or backslash in %q or %q", data, graph)
	}
	script := fmt.Sprintf("ld_dir('%s', '*.nt*', '%s');\nrdf_loader_run();\ncheckpoint;\n"+
		"SELECT 'LOAD-ERRORS', COUNT(*) FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;\n"+
		"SELECT 'LOAD-ERROR', ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;\n", data, graph)
	out, err := s.ISQL(ctx, script)
	if err != nil {
		return err
	}
	if !zeroLoadErrors(out) {
		return fmt.Errorf("virtuosotest: bulk load reported errors:\n%s", out)
	}
	return nil
}

// zeroLoadErrors finds the LOAD-ERRORS count row and checks it is 0.
func zeroLoadErrors(out string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "LOAD-ERRORS" {
			return f[1] == "0"
		}
	}
	return false
}

// ISQL runs an SQL script as dba and returns its output.
func (s *Server) ISQL(ctx context.Context, script string) (string, error) {
	cmd := exec.CommandContext(ctx, ISQLBinary, strconv.Itoa(s.SQLPort), "dba", "dba", "VERBOSE=OFF", "BANNER=OFF", "PROMPT=OFF", "ECHO=OFF")
	cmd.Stdin = strings.NewReader(script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("virtuosotest: isql: %w: %s", err, out.String())
	}
	if strings.Contains(out.String(), "*** Error") {
		return out.String(), fmt.Errorf("virtuosotest: isql: %s", out.String())
	}
	return out.String(), nil
}

// Stop kills the server's process group and waits for it to exit.
func (s *Server) Stop() error {
	var err error
	s.stopOnce.Do(func() {
		if s.cmd == nil || s.cmd.Process == nil {
			return
		}
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.waitErr:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.waitErr
		}
	})
	return err
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "virtuoso.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("virtuosotest: free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
