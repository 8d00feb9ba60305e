// Command probe is a loopback-only attack suite against a real parog
// binary: slow readers from several source addresses, special files in
// the viewer's folder, a hostile prompt template, hostile output targets,
// header floods and query products. Every loop and wait is bounded. It
// fails on a status other than the expected one, on server RSS over 1 GiB,
// or on goroutines that stay after the clients leave, and prints the
// figures it measured. Run it with make probe.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	"time"
)

func main() {
	bin := flag.String("parog", "bin/parog", "the parog `BINARY` to attack")
	cfg := flag.String("config", "configs/demo.yaml", "the server's `CONFIG`")
	testdata := flag.String("testdata", "testdata", "the repository's testdata `DIR` (FB15k-237 excerpt)")
	flag.Parse()
	p := &probe{bin: *bin, config: *cfg, testdata: *testdata}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code := p.run(ctx)
	os.Exit(code)
}

// The limits the probe holds the server to.
const (
	maxRSS         = 1 << 30
	maxTemplateRSS = 512 << 20
	goroutineSlack = 10
)

type probe struct {
	bin, config, testdata string
	failures              []string
	figures               []string
}

func (p *probe) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.failures = append(p.failures, msg)
	fmt.Println("FAIL", msg)
}

func (p *probe) figure(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.figures = append(p.figures, msg)
	fmt.Println("  ", msg)
}

func (p *probe) run(ctx context.Context) int {
	tmp, err := os.MkdirTemp("", "parog-probe-")
	if err != nil {
		fmt.Println("probe:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	files := filepath.Join(tmp, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		fmt.Println("probe:", err)
		return 2
	}
	srv, err := startServer(ctx, p.bin, p.config, files)
	if err != nil {
		fmt.Println("probe: start the server:", err)
		return 2
	}
	defer srv.kill()
	base := srv.goroutines()
	p.figure("server up: RSS %d MiB, %d goroutines", srv.rss()>>20, base)

	steps := []struct {
		name string
		fn   func(context.Context, *server, string)
	}{
		{"slow readers from three addresses", p.slowReaders},
		{"named pipe in the files folder", p.namedPipe},
		{"cross-site and odd requests", p.oddRequests},
		{"header flood", p.headerFlood},
		{"query products", p.products},
	}
	for _, s := range steps {
		fmt.Println("==", s.name)
		start := time.Now()
		s.fn(ctx, srv, files)
		p.figure("%s: %.1f s, server RSS peak so far %d MiB", s.name, time.Since(start).Seconds(), srv.peak()>>20)
		if srv.exited() {
			p.fail("the server exited during %q", s.name)
			break
		}
	}
	if !srv.exited() {
		p.settle(srv, base)
		start := time.Now()
		if err := srv.stop(10 * time.Second); err != nil {
			p.fail("SIGTERM: %v", err)
		}
		p.figure("SIGTERM to exit: %.2f s", time.Since(start).Seconds())
	}
	if pk := srv.peak(); pk > maxRSS {
		p.fail("server RSS peaked at %d MiB (limit %d MiB)", pk>>20, maxRSS>>20)
	}
	p.figure("server RSS peak: %d MiB", srv.peak()>>20)

	fmt.Println("== hostile template")
	p.hostileTemplate(ctx, tmp)
	fmt.Println("== output targets")
	p.outputTargets(ctx, tmp)

	fmt.Println("== figures")
	for _, f := range p.figures {
		fmt.Println("  ", f)
	}
	if len(p.failures) > 0 {
		fmt.Printf("probe: %d failures\n", len(p.failures))
		for _, f := range p.failures {
			fmt.Println("  -", f)
		}
		return 1
	}
	fmt.Println("probe: all held")
	return 0
}

// settle waits (bounded) for the server's goroutines to come back near
// where they started once every client has gone.
func (p *probe) settle(srv *server, base int) {
	deadline := time.Now().Add(15 * time.Second)
	n := srv.goroutines()
	for n > base+goroutineSlack && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		n = srv.goroutines()
	}
	p.figure("goroutines after the clients left: %d (at start %d)", n, base)
	if n > base+goroutineSlack {
		p.fail("%d goroutines stay after the clients left (%d at start)", n, base)
	}
}

// bigQuery asks the demo graph for an answer of about 16 MiB.
func bigQuery() string {
	return `SELECT ?s ?p ?o ?a WHERE { ?s ?p ?o VALUES ?a { "` + strings.Repeat("x", 4000) + `" } }`
}

// slowReaders: 40 clients from each of three loopback addresses post a
// query with a large answer, read the status line and never the rest; a
// client told 503 comes back after its Retry-After, for 20 s. The server
// must stay under 1 GiB and answer /healthz.
func (p *probe) slowReaders(ctx context.Context, srv *server, _ string) {
	phase, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var (
		mu       sync.Mutex
		statuses = map[string]int{}
		conns    []net.Conn
		wg       sync.WaitGroup
	)
	form := "query=" + url.QueryEscape(bigQuery())
	for _, addr := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-time.After(time.Duration(i) * 50 * time.Millisecond):
				case <-phase.Done():
					return
				}
				for phase.Err() == nil {
					conn, status, err := stalledPost(phase, srv.addr, addr, form)
					mu.Lock()
					switch {
					case err != nil && phase.Err() != nil:
						mu.Unlock()
						return
					case errors.Is(err, errNotAccepted):
						// Under the flood the listen queue may hold a
						// connection past the dial timeout: load shed
						// before any byte is read, which the server may do.
						statuses[notAccepted]++
					case err != nil:
						statuses["error: "+err.Error()]++
					default:
						statuses[strconv.Itoa(status)]++
					}
					if status == http.StatusOK {
						conns = append(conns, conn)
						mu.Unlock()
						return
					}
					mu.Unlock()
					if conn != nil {
						conn.Close()
					}
					select {
					case <-time.After(time.Second):
					case <-phase.Done():
					}
				}
			}()
		}
	}
	health := map[int]int{}
	for phase.Err() == nil && srv.peak() <= maxRSS {
		hctx, hcancel := context.WithTimeout(ctx, 2*time.Second)
		health[get(hctx, "http://"+srv.addr+"/healthz")]++
		hcancel()
		select {
		case <-time.After(500 * time.Millisecond):
		case <-phase.Done():
		}
	}
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	p.figure("slow readers: statuses %v; answers held at once %d; /healthz %v", statuses, len(conns), health)
	for s := range statuses {
		if s != "200" && s != "503" && s != notAccepted {
			p.fail("slow readers: unexpected outcome %q", s)
		}
	}
	if health[http.StatusOK] == 0 || len(health) > 1 {
		p.fail("slow readers: /healthz answered %v", health)
	}
}

// errNotAccepted marks a connection the server's listener did not take
// within the dial timeout.
var errNotAccepted = errors.New("connection not accepted")

// notAccepted is the outcome slowReaders counts for errNotAccepted.
const notAccepted = "not accepted within 2 s"

// stalledPost posts form to /sparql from the loopback address local and
// reads only the status line.
func stalledPost(ctx context.Context, addr, local, form string) (net.Conn, int, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", errNotAccepted, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	_, err = fmt.Fprintf(conn, "POST /sparql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nX-Requested-With: probe\r\nContent-Length: %d\r\n\r\n%s", addr, len(form), form)
	if err != nil {
		conn.Close()
		return nil, 0, err
	}
	line, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
	if err != nil {
		conn.Close()
		return nil, 0, err
	}
	var status int
	if _, err := fmt.Sscanf(line, "HTTP/1.1 %d", &status); err != nil {
		conn.Close()
		return nil, 0, fmt.Errorf("status line %q", line)
	}
	return conn, status, nil
}

// namedPipe: 25 requests for a FIFO in the files folder, each given up
// after a second; each must get 404, and leave nothing behind.
func (p *probe) namedPipe(ctx context.Context, srv *server, files string) {
	if err := syscall.Mkfifo(filepath.Join(files, "pipe.json"), 0o600); err != nil {
		p.fail("mkfifo: %v", err)
		return
	}
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			s := get(rctx, "http://"+srv.addr+"/ui/files/pipe.json")
			mu.Lock()
			statuses[s]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	p.figure("named pipe: statuses %v (0: no answer within 1 s)", statuses)
	if statuses[http.StatusNotFound] != 25 {
		p.fail("named pipe: want 25 times 404, got %v", statuses)
	}
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if s := get(hctx, "http://"+srv.addr+"/healthz"); s != http.StatusOK {
		p.fail("named pipe: /healthz answered %d afterwards", s)
	}
}

// oddRequests: a foreign Referer alone is refused; a question with a
// backslash that starts no JSON escape is not refused as malformed.
func (p *probe) oddRequests(ctx context.Context, srv *server, _ string) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	q := "http://" + srv.addr + "/sparql?query=" + url.QueryEscape(`SELECT ?n WHERE { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/type.object.name> ?n }`)
	expect := func(what string, got, want int) {
		p.figure("%s: %d", what, got)
		if got != want {
			p.fail("%s: want %d, got %d", what, want, got)
		}
	}
	expect("foreign Referer alone", do(rctx, "GET", q, "", "", "Referer", "http://evil.example/page.html"), http.StatusForbidden)
	expect("own request", do(rctx, "GET", q, "", ""), http.StatusOK)
	// The question is read as text and goes to the model (on the demo
	// configuration, the scripted demo model, which knows only the demo
	// questions): whatever it answers, the request is not refused as
	// malformed JSON (400).
	got := do(rctx, "POST", "http://"+srv.addr+"/v1/ask", "application/json", `{"question":"what does \usepackage do"}`)
	p.figure(`question "what does \usepackage do": %d`, got)
	if got == http.StatusBadRequest || got == 0 {
		p.fail(`question "what does \usepackage do": refused or unanswered (%d), want it read as text`, got)
	}
}

// headerFlood: 50 connections each send 12,000 headers; each must be
// refused (431) or cut, and the server answer /healthz after.
func (p *probe) headerFlood(ctx context.Context, srv *server, _ string) {
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.DialTimeout("tcp", srv.addr, 2*time.Second)
			if err != nil {
				return
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			w := bufio.NewWriter(conn)
			fmt.Fprintf(w, "GET /healthz HTTP/1.1\r\nHost: %s\r\n", srv.addr)
			// 1.2 MB of headers, past net/http's 1 MB.
			for i := range 12000 {
				fmt.Fprintf(w, "X-Flood-%d: %s\r\n", i, strings.Repeat("y", 100))
			}
			w.WriteString("\r\n")
			_ = w.Flush()
			var status int
			if line, err := bufio.NewReader(conn).ReadString('\n'); err == nil {
				_, _ = fmt.Sscanf(line, "HTTP/1.1 %d", &status)
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	p.figure("header flood: statuses %v (0: connection cut)", statuses)
	for s := range statuses {
		if s != http.StatusRequestHeaderFieldsTooLarge && s != 0 {
			p.fail("header flood: unexpected status %d", s)
		}
	}
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if s := get(hctx, "http://"+srv.addr+"/healthz"); s != http.StatusOK {
		p.fail("header flood: /healthz answered %d afterwards", s)
	}
}

// products: VALUES and BIND products and a CONCAT chain are refused, or
// stopped at the deadline, within the server's bounds.
func (p *probe) products(ctx context.Context, srv *server, _ string) {
	vals := func(v string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d ", i)
		}
		return "VALUES ?" + v + " { " + b.String() + "}"
	}
	// Each BIND doubles the string before: 2^30 times a name.
	var concat strings.Builder
	prev := "?n"
	for i := range 30 {
		fmt.Fprintf(&concat, " BIND(CONCAT(%s,%s) AS ?c%d)", prev, prev, i)
		prev = fmt.Sprintf("?c%d", i)
	}
	for _, q := range []struct{ name, text string }{
		{"VALUES product", "SELECT * WHERE { " + vals("a", 1000) + " " + vals("b", 1000) + " " + vals("c", 1000) + " }"},
		{"BIND product", "SELECT * WHERE { ?s ?p ?o . ?x ?y ?z BIND(1 AS ?k) }"},
		{"CONCAT chain", `SELECT ?c29 WHERE { ?s <http://rdf.freebase.com/ns/type.object.name> ?n` + concat.String() + ` }`},
	} {
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		start := time.Now()
		s := do(rctx, "POST", "http://"+srv.addr+"/sparql", "application/sparql-query", q.text)
		cancel()
		p.figure("%s: %d in %.2f s", q.name, s, time.Since(start).Seconds())
		if s != http.StatusBadRequest && s != http.StatusServiceUnavailable && s != http.StatusGatewayTimeout {
			p.fail("%s: want 400, 503 or 504, got %d", q.name, s)
		}
	}
}

// hostileTemplate: a prompts.dir template that expands exponentially must
// be refused at start-up within 10 s and under 512 MiB.
func (p *probe) hostileTemplate(ctx context.Context, tmp string) {
	dir := filepath.Join(tmp, "prompts")
	if out, err := exec.CommandContext(ctx, p.bin, "prompts", "dump", dir).CombinedOutput(); err != nil {
		p.fail("prompts dump: %v: %s", err, out)
		return
	}
	var b strings.Builder
	b.WriteString(`{{define "e0"}}xxxxxxxxxxxxxxxx{{end}}`)
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, `{{define "e%d"}}{{template "e%d" .}}{{template "e%d" .}}{{end}}`, i, i-1, i-1)
	}
	b.WriteString(`{{define "tentative.system"}}Answer.{{end}}{{define "tentative.user"}}{{template "e40" .}}{{end}}`)
	if err := os.WriteFile(filepath.Join(dir, "tentative.tmpl"), []byte(b.String()), 0o644); err != nil {
		p.fail("hostile template: %v", err)
		return
	}
	cmd := exec.Command(p.bin, "serve", "--config", p.config, "--addr", "127.0.0.1:0", "--prompts-dir", dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		p.fail("hostile template: %v", err)
		return
	}
	w := watch(cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			p.fail("hostile template: start-up still running after 10 s; SIGTERM stopped it after %.1f s more", time.Since(start).Seconds()-10)
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			p.fail("hostile template: start-up still running after 10 s and ignored SIGTERM")
		}
	}
	w.stop()
	p.figure("hostile template: exit after %.2f s (%v), RSS peak %d MiB", time.Since(start).Seconds(), err, w.peak()>>20)
	if err == nil {
		p.fail("hostile template: the server started")
	}
	if w.peak() > maxTemplateRSS {
		p.fail("hostile template: RSS peaked at %d MiB (limit %d)", w.peak()>>20, maxTemplateRSS>>20)
	}
	if err != nil && !strings.Contains(out.String(), "tentative.tmpl") {
		p.fail("hostile template: the refusal does not name the template: %s", lastLine(out.String()))
	}
}

// outputTargets: kg import's --report through a symbolic link leaves the
// target intact, and at a named pipe returns within 10 s.
func (p *probe) outputTargets(ctx context.Context, tmp string) {
	target := filepath.Join(tmp, "target.json")
	link := filepath.Join(tmp, "link.json")
	pipe := filepath.Join(tmp, "out.pipe")
	_ = os.WriteFile(target, []byte("keep\n"), 0o644)
	_ = os.Symlink(target, link)
	_ = syscall.Mkfifo(pipe, 0o600)
	for _, report := range []string{link, pipe} {
		cmd := exec.Command(p.bin, "kg", "import", "fb15k237",
			"--in", filepath.Join(p.testdata, "fb15k237", "FB15k-237.tar.gz"),
			"--names", filepath.Join(p.testdata, "fb15k237", "FB15k_mid2name.txt"),
			"--out", filepath.Join(tmp, "slice.nt.gz"), "--report", report)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			p.fail("kg import: %v", err)
			continue
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err = <-done:
				p.fail("kg import --report %s: still running after 10 s (SIGTERM stopped it)", filepath.Base(report))
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				err = <-done
				p.fail("kg import --report %s: still running after 10 s, and SIGTERM ignored", filepath.Base(report))
			}
		}
		p.figure("kg import --report %s: exit after %.2f s (%v): %s", filepath.Base(report), time.Since(start).Seconds(), err, lastLine(out.String()))
		if err == nil {
			p.fail("kg import --report %s: accepted", filepath.Base(report))
		}
		if b, _ := os.ReadFile(target); string(b) != "keep\n" {
			p.fail("kg import --report %s: the link's target was overwritten", filepath.Base(report))
			_ = os.WriteFile(target, []byte("keep\n"), 0o644)
		}
	}
	_ = ctx
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func get(ctx context.Context, u string) int { return do(ctx, "GET", u, "", "") }

// do sends one request and returns its status, 0 when none came.
func do(ctx context.Context, method, u, contentType, body string, hdr ...string) int {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		return 0
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode
}
