//go:build linux

package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// BenchmarkLoad drives /v1/ask of the real `parog serve` binary, run as a
// child process on loopback (configs/demo.yaml, the embedded demo KG), with
// 1, 50 and 200 concurrent clients against the scripted model at 50 ms per
// call, each level for PAROG_LOAD_DURATION (default 3s; the figure
// is 30s). It reports throughput, p50/p99 latency, error rate, and the
// server process's own peak RSS (VmHWM, reset before each level where the
// kernel allows) and CPU per request (utime+stime of the child), apart from
// the CPU of this process (clients and scripted model). It stops by itself
// and kills the child on exit:
//
//	go test ./kgqa/server -run '^$' -bench 'Load$' -benchtime 1x
//	PAROG_LOAD_DURATION=30s go test ./kgqa/server -run '^$' -bench 'Load$' -benchtime 1x -timeout 10m
//
// The child runs with server.rate_limit=0 (one client address would
// otherwise be held to the default 5 req/s) and llm.reasoner.concurrency=1024
// (the default of 8 calls in flight would queue 200 clients behind the
// model); everything else is configs/demo.yaml.
func BenchmarkLoad(b *testing.B) {
	dur := loadDuration(b)
	model := llmtest.New(b, llmtest.WithHandler(kgqatest.DemoModel()), llmtest.WithDelay(50*time.Millisecond), llmtest.WithoutLog())
	child := startServe(b, model.URL())
	// For perf stat -p or strace -c -f -p during a level.
	b.Logf("parog serve pid %d at %s", child.pid, child.url)
	c, done := loadClient(b, child.url)
	defer done()
	req := api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}
	// Warm the KG cache and the connections once.
	if _, err := c.Ask(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 50, 200} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			resetPeakRSS(child.pid)
			mem0 := goMemCounters(b, child.url)
			r := runLevel(b, child.pid, c, req, clients, dur)
			mem := goMemCounters(b, child.url)
			if r.n > 0 {
				// The child's own allocation counters: unlike CPU time,
				// they do not move with the load of a shared machine.
				b.ReportMetric((mem.mallocs-mem0.mallocs)/float64(r.n), "server_allocs/req")
				b.ReportMetric((mem.bytes-mem0.bytes)/float64(r.n)/1024, "server_alloc_kB/req")
				b.ReportMetric((mem.gcs-mem0.gcs)/float64(r.n)*1000, "server_gc/1k_req")
			}
			b.ReportMetric(procStatusMB(b, child.pid, "VmHWM"), "server_peak_rss_MB")
			b.Logf("model calls: %d, in flight at most: %d", model.Count(), model.MaxInFlight())
		})
	}
}

// BenchmarkLoadInProcess is the 200-client level (PAROG_LOAD_CLIENTS
// overrides the count) with the server wiring in this process (the
// harness), for profiling the server's hot path:
//
//	go test ./kgqa/server -run '^$' -bench LoadInProcess -benchtime 1x -cpuprofile cpu.out
//
// Its CPU figures include the clients and the scripted model; in the
// profile, the server's goroutines carry the label side=server, the
// scripted model's side=model and the clients' side=harness, so
//
//	go tool pprof -tagfocus side=server -top server.test cpu.out
//
// shows the server alone (the garbage collector's own workers carry no
// label and are left out by it).
func BenchmarkLoadInProcess(b *testing.B) {
	dur := loadDuration(b)
	h := newHarness(b, setup{delay: 50 * time.Millisecond, noLog: true, labels: true})
	c, done := loadClient(b, h.http.URL)
	defer done()
	req := api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}
	if _, err := c.Ask(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	self0 := selfCPUSeconds()
	clients := 200
	if v, err := strconv.Atoi(os.Getenv("PAROG_LOAD_CLIENTS")); err == nil && v > 0 {
		clients = v
	}
	r := runLoad(c, req, clients, dur)
	reportLoad(b, r)
	if r.n > 0 {
		b.ReportMetric((selfCPUSeconds()-self0)/float64(r.n)*1000, "process_cpu_ms/req")
	}
}

func loadDuration(b *testing.B) time.Duration {
	dur := 3 * time.Second
	if v := os.Getenv("PAROG_LOAD_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 5*time.Minute {
			b.Fatalf("PAROG_LOAD_DURATION=%q: want a duration up to 5m", v)
		}
		dur = d
	}
	return dur
}

func loadClient(b *testing.B, url string) (*api.Client, func()) {
	tr := &http.Transport{MaxIdleConnsPerHost: 512, MaxConnsPerHost: 0}
	c, err := api.NewClient(url, api.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		b.Fatal(err)
	}
	return c, tr.CloseIdleConnections
}

// runLevel runs one load level of clients against the child process pid
// and reports it: throughput, latency, errors, and per request the child's
// CPU and context switches and this process's CPU (clients and scripted
// model), with the cores each used.
func runLevel(b *testing.B, pid int, c *api.Client, req api.AskRequest, clients int, dur time.Duration) loadResult {
	cpu0, self0, sw0 := procCPUSeconds(b, pid), selfCPUSeconds(), procSwitches(pid)
	r := runLoad(c, req, clients, dur)
	cpu, self, sw := procCPUSeconds(b, pid)-cpu0, selfCPUSeconds()-self0, procSwitches(pid)-sw0
	reportLoad(b, r)
	if r.n > 0 {
		b.ReportMetric(cpu/float64(r.n)*1000, "server_cpu_ms/req")
		b.ReportMetric(self/float64(r.n)*1000, "bench_cpu_ms/req")
		// Each a thread put to sleep or woken: what a question costs
		// the scheduler, far less noisy than CPU time.
		b.ReportMetric(sw/float64(r.n), "server_ctxsw/req")
	}
	b.ReportMetric(cpu/r.elapsed.Seconds(), "server_cores")
	b.ReportMetric(self/r.elapsed.Seconds(), "bench_cores")
	return r
}

func reportLoad(b *testing.B, r loadResult) {
	b.ReportMetric(r.throughput, "req/s")
	b.ReportMetric(ms(r.p50), "p50_ms")
	b.ReportMetric(ms(r.p99), "p99_ms")
	b.ReportMetric(r.errRate, "err_rate")
	b.ReportMetric(float64(r.n), "requests")
	if r.firstErr != nil {
		b.Logf("first error: %v", r.firstErr)
	}
}

type serveChild struct {
	pid int
	url string
}

// startServe builds cmd/parog into a temporary directory and starts
// `parog serve` on a free loopback port with the reasoner at modelURL. It
// waits for /readyz; the child is stopped (SIGTERM, then SIGKILL) when b
// ends, and dies with this process (Pdeathsig) if the bench is killed.
func startServe(b *testing.B, modelURL string) serveChild {
	b.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "parog")
	build := exec.Command("go", "build", "-tags", "nomsgpack", "-o", bin, "./cmd/parog")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/parog: %v\n%s", err, out)
	}
	logPath := filepath.Join(dir, "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, "serve", "--config", filepath.Join(root, "configs", "demo.yaml"), "--addr", "127.0.0.1:0")
	cmd.Env = append(childEnv(),
		"PAROG_LLM_REASONER_BASE_URL="+modelURL, "PAROG_LLM_REASONER_MODEL=scripted",
		"PAROG_LLM_REASONER_CONCURRENCY=1024", "PAROG_SERVER_RATE_LIMIT=0",
		"OPENAI_API_KEY=llmtest") // llm.reasoner.api_key_env of demo.yaml; the scripted model ignores it
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	url := waitListening(b, logPath, exited)
	waitReady(b, url, exited)
	return serveChild{pid: cmd.Process.Pid, url: url}
}

// childEnv is this process's environment without PAROG_* settings and
// without OPENAI_API_KEY, so the child sees only the settings the bench
// gives it and no real key is ever sent to the scripted model.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAROG_") && !strings.HasPrefix(kv, "OPENAI_API_KEY=") {
			env = append(env, kv)
		}
	}
	return env
}

var listeningRE = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)

// waitListening reads the child's log until it names its address.
func waitListening(b *testing.B, logPath string, exited <-chan struct{}) string {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(logPath)
		if m := listeningRE.FindSubmatch(data); m != nil {
			return "http://" + string(m[1])
		}
		select {
		case <-exited:
			data, _ = os.ReadFile(logPath)
			b.Fatalf("parog serve exited:\n%s", data)
		case <-time.After(20 * time.Millisecond):
		}
	}
	data, _ := os.ReadFile(logPath)
	b.Fatalf("parog serve did not listen within 60s:\n%s", data)
	return ""
}

func waitReady(b *testing.B, url string, exited <-chan struct{}) {
	hc := &http.Client{Timeout: 5 * time.Second}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := hc.Get(url + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			b.Fatal("parog serve exited before it was ready")
		case <-time.After(50 * time.Millisecond):
		}
	}
	b.Fatal("parog serve not ready within 30s")
}

// memCounters are the Go runtime's allocation counters of the child.
type memCounters struct{ mallocs, bytes, gcs float64 }

// goMemCounters reads the child's counters from its /metrics (the
// Prometheus Go collector).
func goMemCounters(b *testing.B, url string) memCounters {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var m memCounters
	want := map[string]*float64{"go_memstats_mallocs_total": &m.mallocs, "go_memstats_alloc_bytes_total": &m.bytes, "go_gc_duration_seconds_count": &m.gcs}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if dst := want[name]; ok && dst != nil {
			if *dst, err = strconv.ParseFloat(val, 64); err != nil {
				b.Fatalf("/metrics %s: %v", name, err)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		b.Fatalf("/metrics: %d of the Go collector's counters missing", len(want))
	}
	return m
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat
// (100 on every Linux architecture Go supports).
const clockTicks = 100

// procCPUSeconds is the CPU time of process pid so far: the sum over its
// threads of the time each ran, in nanoseconds (/proc/PID/task/*/schedstat;
// the runtime keeps its threads, so none is lost between two readings),
// or where the kernel keeps no schedstat, utime+stime in clock ticks. At
// one client a level's 15 s hold about 20 ticks of the server's CPU, so a
// tick was 5% of a reading.
func procCPUSeconds(b *testing.B, pid int) float64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	ns, read := 0.0, 0
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			b.Fatalf("%s: %q", t, data)
		}
		ns += v
		read++
	}
	if read > 0 {
		return ns / 1e9
	}
	return procTicksSeconds(b, pid)
}

// procTicksSeconds is utime+stime of process pid.
func procTicksSeconds(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		b.Fatalf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	return (ut + st) / clockTicks
}

// procSwitches is the context switches (voluntary and not) of every
// thread of process pid so far. The runtime keeps its threads, so the
// difference of two readings counts the switches between them.
func procSwitches(pid int) float64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	n := 0.0
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
				n += f
			}
		}
	}
	return n
}

// procStatusMB reads a kB field of /proc/PID/status, in MB.
func procStatusMB(b *testing.B, pid int, field string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				b.Fatalf("/proc/%d/status %s: %v", pid, field, err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("/proc/%d/status: no %s", pid, field)
	return 0
}

// resetPeakRSS sets VmHWM back to the current RSS (Linux 4.0+), so that
// each level reports its own peak; without it the peak is since start.
func resetPeakRSS(pid int) {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

type loadResult struct {
	n                   int
	throughput, errRate float64
	elapsed             time.Duration
	p50, p99            time.Duration
	firstErr            error
}

func runLoad(c *api.Client, req api.AskRequest, clients int, dur time.Duration) loadResult {
	var mu sync.Mutex
	var lat []time.Duration
	var errs int
	var firstErr error
	stop := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for time.Now().Before(stop) {
				t0 := time.Now()
				_, err := c.Ask(context.Background(), req)
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					errs++
					if firstErr == nil {
						firstErr = err
					}
				} else {
					lat = append(lat, d)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	n := len(lat) + errs
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	r := loadResult{n: n, elapsed: elapsed, throughput: float64(n) / elapsed.Seconds(), p50: pct(0.50), p99: pct(0.99), firstErr: firstErr}
	if n > 0 {
		r.errRate = float64(errs) / float64(n)
	}
	return r
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// selfCPUSeconds is the user+system CPU of this process.
func selfCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkAsk is one /v1/ask of the demo question per op, in process,
// against the scripted model without delay: its allocs/op and B/op (the
// whole process: client, server and scripted model) and its CPU profile
// track the per-question cost of the hot path with far less noise than
// the load levels (labels as in BenchmarkLoadInProcess):
//
//	go test ./kgqa/server -run '^$' -bench 'Ask$' -benchtime 2000x -cpuprofile cpu.out
func BenchmarkAsk(b *testing.B) {
	h := newHarness(b, setup{noLog: true, labels: true})
	c, done := loadClient(b, h.http.URL)
	defer done()
	req := api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}
	ctx := context.Background()
	if _, err := c.Ask(ctx, req); err != nil {
		b.Fatal(err)
	}
	self0 := selfCPUSeconds()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Ask(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((selfCPUSeconds()-self0)/float64(b.N)*1000, "process_cpu_ms/op")
}
