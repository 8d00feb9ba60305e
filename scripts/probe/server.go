package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is a parog serve process on a free loopback port.
type server struct {
	addr string
	cmd  *exec.Cmd
	w    *rssWatch
	done chan struct{}
	err  error
}

func startServer(ctx context.Context, bin, config, files string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--config", config, "--addr", addr, "--files", files)
	// Answers of about 16 MiB need more rows than the default cap.
	// No rate limit: the attack is the stronger, and the budgets, not the
	// limiter, must hold.
	cmd.Env = append(os.Environ(), "PAROG_SERVER_SPARQL_MAX_ROWS=1000000", "PAROG_SERVER_MAX_CONNS=200", "PAROG_SERVER_RATE_LIMIT=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{addr: addr, cmd: cmd, w: watch(cmd.Process.Pid), done: make(chan struct{})}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		st := get(hctx, "http://"+addr+"/healthz")
		cancel()
		if st == http.StatusOK {
			return s, nil
		}
		if s.exited() {
			return nil, fmt.Errorf("the server exited: %v", s.err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.kill()
	return nil, fmt.Errorf("no /healthz within 60 s")
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *server) rss() int64  { return rss(s.cmd.Process.Pid) }
func (s *server) peak() int64 { return s.w.peak() }

// goroutines reads go_goroutines from /metrics (-1 when unread).
func (s *server) goroutines() int {
	resp, err := http.Get("http://" + s.addr + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return int(f)
		}
	}
	return -1
}

// stop sends SIGTERM and waits up to d for the exit.
func (s *server) stop(d time.Duration) error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		s.w.stop()
		return nil
	case <-time.After(d):
		s.kill()
		return fmt.Errorf("still running %s after SIGTERM", d)
	}
}

func (s *server) kill() {
	if !s.exited() {
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.w.stop()
}

// rss reads a process's resident set size from /proc, in bytes.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// rssWatch samples a process's RSS every 50 ms and keeps the peak.
type rssWatch struct {
	mu   sync.Mutex
	max  int64
	quit chan struct{}
	once sync.Once
}

func watch(pid int) *rssWatch {
	w := &rssWatch{quit: make(chan struct{})}
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if r := rss(pid); r > 0 {
				w.mu.Lock()
				w.max = max(w.max, r)
				w.mu.Unlock()
			}
			select {
			case <-w.quit:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *rssWatch) peak() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.max
}

func (w *rssWatch) stop() { w.once.Do(func() { close(w.quit) }) }
