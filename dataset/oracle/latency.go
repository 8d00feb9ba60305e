package oracle

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Latency is how long a real model server takes to answer: a fixed
// overhead (network, queueing, scheduling), the prompt read at Prefill
// tokens a second, and the reply written at Decode tokens a second. The
// oracle answers at once; with a Latency it answers as late as such a
// server would, so that the wall time of a run is what a user would wait.
// Each request is delayed on its own: a serving engine batches concurrent
// requests, and the model of one that slows down under load is left out
// (see docs/performance.md). The zero Latency delays nothing.
type Latency struct {
	// Name is the preset's name ("" for figures given on the command line).
	Name string
	// Prefill is the prompt tokens read a second (> 0).
	Prefill float64
	// Decode is the completion tokens written a second (> 0).
	Decode float64
	// Overhead is the time every request takes before its first token
	// beyond reading the prompt.
	Overhead time.Duration
}

// LatencyPresets are the named latencies ParseLatency reads. The figures
// are estimates from published measurements; docs/performance.md gives the
// sources.
var LatencyPresets = []Latency{
	// Llama-3.1-8B-Instruct (BF16) served by vLLM on one A100: decode at
	// one request at a time measured at about 75 tokens/s; prefill
	// estimated at 10,000 tokens/s (about half the GPU's BF16 peak at 16
	// GFLOP a token); 20 ms of HTTP and scheduling on a local network.
	{Name: "vllm-llama3.1-8b", Prefill: 10000, Decode: 75, Overhead: 20 * time.Millisecond},
	// gpt-4o-mini on the hosted API: output at about 59 tokens/s and a
	// first token after 150-400 ms for a prompt of about 500 tokens.
	{Name: "gpt-4o-mini", Prefill: 5000, Decode: 59, Overhead: 300 * time.Millisecond},
}

// ParseLatency reads a preset's name or the figures
// "prefill=TOKENS_PER_S,decode=TOKENS_PER_S[,overhead=MS]"; "" and "none"
// give the zero Latency (no delay).
func ParseLatency(s string) (Latency, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return Latency{}, nil
	}
	if !strings.Contains(s, "=") {
		for _, p := range LatencyPresets {
			if p.Name == s {
				return p, nil
			}
		}
		return Latency{}, fmt.Errorf("oracle: latency %q: not a preset (%s) nor prefill=TOKENS_PER_S,decode=TOKENS_PER_S,overhead=MS", s, LatencyPresetNames())
	}
	var l Latency
	seen := map[string]bool{}
	for part := range strings.SplitSeq(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Latency{}, fmt.Errorf("oracle: latency %q: %q is not KEY=VALUE", s, part)
		}
		if seen[key] {
			return Latency{}, fmt.Errorf("oracle: latency %q: %s given twice", s, key)
		}
		seen[key] = true
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Latency{}, fmt.Errorf("oracle: latency %q: %s=%q is not a number", s, key, val)
		}
		switch key {
		case "prefill", "decode":
			if f <= 0 {
				return Latency{}, fmt.Errorf("oracle: latency %q: %s must be above 0 tokens a second", s, key)
			}
			if key == "prefill" {
				l.Prefill = f
			} else {
				l.Decode = f
			}
		case "overhead":
			if f < 0 || f > float64(time.Hour/time.Millisecond) {
				return Latency{}, fmt.Errorf("oracle: latency %q: overhead must be between 0 and 3600000 ms", s)
			}
			l.Overhead = time.Duration(f * float64(time.Millisecond))
		default:
			return Latency{}, fmt.Errorf("oracle: latency %q: unknown key %q (want prefill, decode, overhead)", s, key)
		}
	}
	if l.Prefill == 0 || l.Decode == 0 {
		return Latency{}, fmt.Errorf("oracle: latency %q: prefill and decode are both required", s)
	}
	return l, nil
}

// LatencyPresetNames lists the presets' names, comma-separated.
func LatencyPresetNames() string {
	names := make([]string, len(LatencyPresets))
	for i, p := range LatencyPresets {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// String is the latency as ParseLatency reads it (the preset's name and
// its figures in brackets for a preset).
func (l Latency) String() string {
	if l == (Latency{}) {
		return "none"
	}
	s := fmt.Sprintf("prefill=%g,decode=%g,overhead=%g", l.Prefill, l.Decode, float64(l.Overhead)/float64(time.Millisecond))
	if l.Name != "" {
		return l.Name + " (" + s + ")"
	}
	return s
}

// FirstToken is the time to the first token of a reply to a prompt of n
// tokens: the overhead and the prompt's prefill.
func (l Latency) FirstToken(n int) time.Duration {
	if l == (Latency{}) {
		return 0
	}
	return l.Overhead + perTokens(n, l.Prefill)
}

// Delay is the time a server takes to answer a request of this usage:
// overhead + prompt tokens / prefill + completion tokens / decode.
func (l Latency) Delay(u openai.Usage) time.Duration {
	if l == (Latency{}) {
		return 0
	}
	return l.FirstToken(u.PromptTokens) + perTokens(u.CompletionTokens, l.Decode)
}

// perTokens is the time n tokens take at rate tokens a second.
func perTokens(n int, rate float64) time.Duration {
	if n <= 0 || rate <= 0 {
		return 0
	}
	return time.Duration(float64(n) / rate * float64(time.Second))
}

// WithLatency delays every reply as a server of that latency would.
func WithLatency(l Latency) Option { return func(m *Model) { m.latency = l } }
