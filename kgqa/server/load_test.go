package server_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa/api"
)

// BenchmarkLoad drives /v1/ask on loopback with 1, 50 and 200 concurrent
// clients against the scripted model at 50 ms per call, each level for
// PAROG_LOAD_DURATION (default 3s; the figure is 30s), and reports
// throughput, p50/p99 latency, error rate, peak RSS and CPU seconds per
// request. It stops by itself; run it once per level:
//
//	go test ./kgqa/server -run '^$' -bench Load -benchtime 1x
//	PAROG_LOAD_DURATION=30s go test ./kgqa/server -run '^$' -bench Load -benchtime 1x -timeout 10m
//
// The server, the scripted model and the clients share one process, so
// peak RSS and CPU are those of all three: an upper bound for the server.
func BenchmarkLoad(b *testing.B) {
	dur := 3 * time.Second
	if v := os.Getenv("PAROG_LOAD_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 5*time.Minute {
			b.Fatalf("PAROG_LOAD_DURATION=%q: want a duration up to 5m", v)
		}
		dur = d
	}
	h := newHarness(b, setup{delay: 50 * time.Millisecond})
	tr := &http.Transport{MaxIdleConnsPerHost: 512, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	c, err := api.NewClient(h.http.URL, api.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		b.Fatal(err)
	}
	req := api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}
	// Warm the KG cache and the connections once.
	if _, err := c.Ask(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 50, 200} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			r := runLoad(c, req, clients, dur)
			b.ReportMetric(r.throughput, "req/s")
			b.ReportMetric(ms(r.p50), "p50_ms")
			b.ReportMetric(ms(r.p99), "p99_ms")
			b.ReportMetric(r.errRate, "err_rate")
			b.ReportMetric(r.rssMB, "peak_rss_MB")
			b.ReportMetric(r.cpuPerReq*1000, "cpu_ms/req")
			b.ReportMetric(float64(r.n), "requests")
			b.Logf("model calls in flight at most: %d", h.llm.MaxInFlight())
			if r.firstErr != nil {
				b.Logf("first error: %v", r.firstErr)
			}
		})
	}
}

type loadResult struct {
	n                          int
	throughput, errRate, rssMB float64
	cpuPerReq                  float64
	p50, p99                   time.Duration
	firstErr                   error
}

func runLoad(c *api.Client, req api.AskRequest, clients int, dur time.Duration) loadResult {
	cpu0 := cpuSeconds()
	var mu sync.Mutex
	var lat []time.Duration
	var errs int
	var firstErr error
	stop := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
		}()
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
	r := loadResult{n: n, throughput: float64(n) / elapsed.Seconds(), p50: pct(0.50), p99: pct(0.99), firstErr: firstErr, rssMB: peakRSSMB()}
	if n > 0 {
		r.errRate = float64(errs) / float64(n)
		r.cpuPerReq = (cpuSeconds() - cpu0) / float64(n)
	}
	return r
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakRSSMB is the process's peak resident set (ru_maxrss is in KiB on
// Linux).
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}
