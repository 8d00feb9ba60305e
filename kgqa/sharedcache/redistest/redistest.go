// Package redistest starts a throw-away redis-server for tests: a free
// port on loopback, a temporary directory, no persistence, a memory cap
// with LRU eviction, and PING answering before Start returns.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binary is the server of Debian's redis-server package.
const Binary = "redis-server"

// SkipEnv names the environment variable that turns a missing redis-server
// into a skip instead of a failure.
const SkipEnv = "PAROG_SKIP_REDIS"

// ErrMissing means redis-server is not on PATH.
var ErrMissing = errors.New("redistest: " + Binary + " not found; install it with: apt-get install -y redis-server " +
	"(or set " + SkipEnv + "=1 to skip the tests that need it)")

// Server is a running redis-server.
type Server struct {
	// URL is the redis:// URL of database 0.
	URL string
	// Addr is host:port.
	Addr string

	cmd      *exec.Cmd
	waitErr  chan error
	stopOnce sync.Once
}

// Require fails tb loudly when redis-server is missing, or skips it with
// the reason when PAROG_SKIP_REDIS=1.
func Require(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath(Binary); err != nil {
		if os.Getenv(SkipEnv) == "1" {
			tb.Skipf("SKIPPING Redis tests (%s=1): %v", SkipEnv, ErrMissing)
		}
		tb.Fatalf("%v", ErrMissing)
	}
}

// New starts a server for one test and stops it when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	Require(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, tb.TempDir())
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() { _ = s.Stop() })
	return s
}

// Start runs redis-server in dir and waits until it answers PING.
func Start(ctx context.Context, dir string) (*Server, error) {
	if _, err := exec.LookPath(Binary); err != nil {
		return nil, ErrMissing
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("redistest: free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), waitErr: make(chan error, 1)}
	s.URL = "redis://" + s.Addr + "/0"
	logf, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	s.cmd = exec.Command(Binary,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--maxmemory", "256mb", "--maxmemory-policy", "allkeys-lru")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("redistest: start %s: %w", Binary, err)
	}
	go func() { s.waitErr <- s.cmd.Wait(); logf.Close() }()
	for {
		if ping(s.Addr) == nil {
			return s, nil
		}
		select {
		case err := <-s.waitErr:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return nil, fmt.Errorf("redistest: %s exited (%v): %s", Binary, err, strings.TrimSpace(string(log)))
		case <-ctx.Done():
			_ = s.Stop()
			return nil, fmt.Errorf("redistest: %s did not answer PING: %w", Binary, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ping sends PING over RESP and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("redistest: PING answered %q", line)
	}
	return nil
}

// Stop ends the server and waits for it to exit.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.waitErr
	})
	return nil
}
