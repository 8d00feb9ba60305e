package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa/config"
)

// The two load scenarios of admission control, with the scripted model
// behind the real engine on the demo KG. Each takes about a minute:
//
//	go test ./kgqa/server -run '^$' -bench 'Admission' -benchtime 1x -timeout 20m

// timedAsk is one /v1/ask with its outcome.
type timedAsk struct {
	status  int
	elapsed time.Duration
}

func postAsk(client *http.Client, url, key string) timedAsk {
	req, _ := http.NewRequest("POST", url+"/v1/ask", strings.NewReader(`{"question":"`+capitalQ+`","topic_entities":["`+france+`"]}`))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return timedAsk{status: 0, elapsed: time.Since(start)}
	}
	resp.Body.Close()
	return timedAsk{status: resp.StatusCode, elapsed: time.Since(start)}
}

// llmSeries reads the model metrics of h's server: the requests counted,
// and the count and sum of the call durations and of the slot waits.
func llmSeries(tb testing.TB, h *harness) (requests float64, calls, wait [2]float64) {
	tb.Helper()
	mfs, err := h.srv.Metrics().Registry().Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetName() {
			case "parog_llm_requests_total":
				requests += m.GetCounter().GetValue()
			case "parog_llm_call_duration_seconds":
				calls[0] += float64(m.GetHistogram().GetSampleCount())
				calls[1] += m.GetHistogram().GetSampleSum()
			case "parog_llm_slot_wait_seconds":
				wait[0] += float64(m.GetHistogram().GetSampleCount())
				wait[1] += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return requests, calls, wait
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// BenchmarkAdmission300 is the probe's first scenario: server.rate_limit 0,
// a model taking 2 s per call, 300 questions at once. With admission the
// places (reasoner concurrency 8 / engine parallelism 4 = 2) and the queue
// (2) answer some within the deadline, and the rest get a quick 503
// instead of a 504 at the deadline after spending model calls.
func BenchmarkAdmission300(b *testing.B) {
	h := newHarness(b, setup{delay: 2 * time.Second, noLog: true, edit: func(c *config.Config) {
		c.LLM.Reasoner.Concurrency = 8
		c.Engine.Deadline = 60 * time.Second
		c.Server.RateLimit = 0
	}})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	for range b.N {
		calls0 := h.llm.Count()
		results := make([]timedAsk, 300)
		var wg sync.WaitGroup
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = postAsk(client, h.http.URL, "")
			}()
		}
		wg.Wait()
		by := map[int][]time.Duration{}
		for _, r := range results {
			by[r.status] = append(by[r.status], r.elapsed)
		}
		b.ReportMetric(float64(len(by[200])), "answered")
		b.ReportMetric(percentile(by[200], 1).Seconds(), "answered_max_s")
		b.ReportMetric(float64(len(by[503])), "refused_503")
		b.ReportMetric(percentile(by[503], 0.99).Seconds(), "refused_p99_s")
		b.ReportMetric(float64(len(by[504])), "timeouts_504")
		b.ReportMetric(float64(h.llm.Count()-calls0), "model_calls")
		// What the metrics say of the same calls: the requests counted
		// must be the requests the model received, and a call's mean
		// duration is the model's own, its wait for a slot apart.
		reqs, calls, wait := llmSeries(b, h)
		b.ReportMetric(reqs, "counted_requests")
		b.ReportMetric(calls[1]/max(calls[0], 1), "call_mean_s")
		b.ReportMetric(wait[1]/max(wait[0], 1), "slot_wait_mean_s")
		var other []string
		for st, ds := range by {
			if st != 200 && st != 503 && st != 504 {
				other = append(other, fmt.Sprintf("%d x%d", st, len(ds)))
			}
		}
		if len(other) > 0 {
			b.Errorf("unexpected statuses: %v", other)
		}
	}
}

// BenchmarkLLMSlotWait lets 40 questions in at once against a model that
// takes 2 s per call with 8 slots, so that calls queue for a slot: the
// metrics time each call at the model's 2 s and report the queueing as
// the slot wait, and count the requests the model received.
func BenchmarkLLMSlotWait(b *testing.B) {
	h := newHarness(b, setup{delay: 2 * time.Second, noLog: true, edit: func(c *config.Config) {
		c.LLM.Reasoner.Concurrency = 8
		c.Engine.Deadline = 120 * time.Second
		c.Server.RateLimit = 0
		c.Server.MaxQuestions, c.Server.RequestTimeout = 40, 120*time.Second
	}})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for range b.N {
		calls0 := h.llm.Count()
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() { _ = postAsk(client, h.http.URL, "") })
		}
		wg.Wait()
		reqs, calls, wait := llmSeries(b, h)
		b.ReportMetric(float64(h.llm.Count()-calls0), "model_calls")
		b.ReportMetric(reqs, "counted_requests")
		b.ReportMetric(calls[1]/max(calls[0], 1), "call_mean_s")
		b.ReportMetric(wait[1]/max(wait[0], 1), "slot_wait_mean_s")
	}
}

// BenchmarkAdmissionFairness is the probe's second scenario: default rate
// limits, one key sending 5 questions a second while another asks one
// question at a time. It reports the calm key's p99 alone and under the
// flood; the flooding key holds at most its share of the places.
func BenchmarkAdmissionFairness(b *testing.B) {
	h := newHarness(b, setup{delay: 200 * time.Millisecond, noLog: true, edit: func(c *config.Config) {
		c.LLM.Reasoner.Concurrency = 8
		c.Server.APIKeys = []string{"flood", "calm"}
		c.Server.RateLimit, c.Server.RateBurst = 5, 10
	}})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	calm := func(n int) []time.Duration {
		var ds []time.Duration
		for range n {
			r := postAsk(client, h.http.URL, "calm")
			if r.status != http.StatusOK {
				b.Errorf("the calm key got %d", r.status)
			}
			ds = append(ds, r.elapsed)
		}
		return ds
	}
	postAsk(client, h.http.URL, "calm") // warm the KG cache
	for range b.N {
		alone := calm(10)
		ctx, stop := context.WithCancel(context.Background())
		var mu sync.Mutex
		flood := map[int]int{}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := postAsk(client, h.http.URL, "flood")
					mu.Lock()
					flood[r.status]++
					mu.Unlock()
				}()
			}
		}()
		time.Sleep(2 * time.Second) // the flood is established
		flooded := calm(10)
		stop()
		wg.Wait()
		pa, pf := percentile(alone, 0.99), percentile(flooded, 0.99)
		b.ReportMetric(pa.Seconds(), "calm_p99_alone_s")
		b.ReportMetric(pf.Seconds(), "calm_p99_flooded_s")
		b.ReportMetric(100*(pf.Seconds()/pa.Seconds()-1), "p99_increase_%")
		b.ReportMetric(float64(flood[200]), "flood_200")
		b.ReportMetric(float64(flood[503]), "flood_503")
		b.ReportMetric(float64(flood[429]), "flood_429")
	}
}
