package virtuoso

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
	"syscall"
	"time"
)

// ErrMissing means virtuoso-t or isql-vt is not on PATH.
var ErrMissing = errors.New("virtuoso: " + ServerBinary + " or " + ISQLBinary + " not found; " + InstallHint)

// Available reports whether the Virtuoso binaries are installed.
func Available() error {
	for _, b := range []string{ServerBinary, ISQLBinary} {
		if _, err := exec.LookPath(b); err != nil {
			return ErrMissing
		}
	}
	return nil
}

// Server is a Virtuoso process started from an Ini.
type Server struct {
	// Ini is the configuration it runs with.
	Ini Ini
	// PID is the server's process id.
	PID int

	cmd     *exec.Cmd
	waitErr chan error
}

// SPARQL is the URL of the server's /sparql endpoint.
func (s *Server) SPARQL() string { return fmt.Sprintf("http://127.0.0.1:%d/sparql", s.Ini.HTTPPort) }

const pidFile = "virtuoso.pid"

// StartOptions tune Start.
type StartOptions struct {
	// Detach lets the server outlive this process (a setup command);
	// otherwise it is killed with it (tests).
	Detach bool
}

// Start writes the ini, runs virtuoso-t in c.Dir and waits until /sparql
// answers.
func Start(ctx context.Context, c Ini, o StartOptions) (*Server, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		port int
		flag string
	}{{c.SQLPort, "--sql-port"}, {c.HTTPPort, "--http-port"}} {
		if err := portFree(p.port); err != nil {
			return nil, fmt.Errorf("virtuoso: port %d is in use (%v): stop what holds it, or pass %s with a free port", p.port, err, p.flag)
		}
	}
	if err := c.Write(); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(c.Dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("virtuoso: %w", err)
	}
	cmd := exec.Command(ServerBinary, "+foreground", "+configfile", c.Path())
	cmd.Dir = c.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group so Stop reaches all of it; a test's server dies
	// with the test binary.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if o.Detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("virtuoso: start %s: %w", ServerBinary, err)
	}
	s := &Server{Ini: c, PID: cmd.Process.Pid, cmd: cmd, waitErr: make(chan error, 1)}
	go func() { s.waitErr <- cmd.Wait(); _ = logf.Close() }()
	if err := os.WriteFile(filepath.Join(c.Dir, pidFile), []byte(strconv.Itoa(s.PID)+"\n"), 0o644); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("virtuoso: %w", err)
	}
	if err := s.waitReady(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// Attach finds the server a setup left running in dir.
func Attach(c Ini) (*Server, bool) {
	b, err := os.ReadFile(filepath.Join(c.Dir, pidFile))
	if err != nil {
		return nil, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return nil, false
	}
	return &Server{Ini: c, PID: pid}, true
}

func portFree(port int) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	return l.Close()
}

// FreePorts returns n ports free at the time of the call.
func FreePorts(n int) ([]int, error) {
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
			return nil, fmt.Errorf("virtuoso: free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func (s *Server) waitReady(ctx context.Context) error {
	ask := s.SPARQL() + "?query=" + url.QueryEscape("ASK {}")
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
			return fmt.Errorf("virtuoso: %s exited before /sparql answered (%v); log: %s", ServerBinary, err, s.LogTail())
		case <-ctx.Done():
			return fmt.Errorf("virtuoso: /sparql did not answer: %w; log: %s", ctx.Err(), s.LogTail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after 30 s) and waits for it.
func (s *Server) Stop() error {
	if s.PID <= 0 {
		return nil
	}
	target := s.PID
	if s.cmd != nil {
		target = -s.PID // the process group
	}
	_ = syscall.Kill(target, syscall.SIGTERM)
	gone := func() bool {
		if s.waitErr != nil {
			select {
			case err := <-s.waitErr:
				s.waitErr <- err
				return true
			default:
				return false
			}
		}
		return syscall.Kill(s.PID, 0) != nil
	}
	deadline := time.Now().Add(30 * time.Second)
	for !gone() {
		if time.Now().After(deadline) {
			_ = syscall.Kill(target, syscall.SIGKILL)
			deadline = time.Now().Add(time.Hour)
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = os.Remove(filepath.Join(s.Ini.Dir, pidFile))
	return nil
}

// LogTail is the end of the server's log.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(filepath.Join(s.Ini.Dir, "virtuoso.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// ISQL runs an SQL script as dba and returns its output.
func (s *Server) ISQL(ctx context.Context, script string) (string, error) {
	cmd := exec.CommandContext(ctx, ISQLBinary, strconv.Itoa(s.Ini.SQLPort), "dba", "dba", "VERBOSE=OFF", "BANNER=OFF", "PROMPT=OFF", "ECHO=OFF")
	cmd.Stdin = strings.NewReader(script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("virtuoso: isql: %w: %s", err, out.String())
	}
	if strings.Contains(out.String(), "*** Error") {
		return out.String(), fmt.Errorf("virtuoso: isql: %s", out.String())
	}
	return out.String(), nil
}
