package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa/kg/demokg"
)

// errUsage marks a bad command line (exit status 2).
var errUsage = errors.New("usage")

func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	return 1
}

// Run parses args, loads the question file and serves the oracle until ctx
// ends. ready, when set, is told the address listened on (tests pass
// --addr 127.0.0.1:0).
func Run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("oracle-llm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "", "question file format: webqsp, cwq, grailqa or demo")
	input := fs.String("input", "", "question `FILE` with gold SPARQL and answers (default for --format demo: the demo graph's questions)")
	addr := fs.String("addr", "127.0.0.1:8090", "listen address `HOST:PORT`")
	tentative := fs.String("tentative", "gold", "tentative answers: gold, wrong, none or mixed:P (a share P wrong)")
	rate := fs.Float64("noise", 0, "share `P` of replies corrupted, in [0, 1]")
	seed := fs.Int64("seed", 1, "noise seed")
	kinds := fs.String("noise-kinds", "", "comma-separated noise kinds or families (format, semantic, all; default format): "+joinKinds())
	latency := fs.String("latency", "", "delay each reply as a real server would: a preset ("+oracle.LatencyPresetNames()+") or prefill=TOKENS_PER_S,decode=TOKENS_PER_S,overhead=MS (default: none)")
	sufficiency := fs.String("sufficiency", oracle.SufficiencyStrict, "when to judge the question answerable early: strict (only when the evidence shown determines the answer) or never (every step of every plan runs)")
	wording := fs.String("wording", oracle.WordingGold, "how plans word their subgoals: gold (the gold plan's texts, naming its relations) or question (the question's own words only)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	f, err := dataset.ParseFormat(*format)
	if err != nil {
		return usage(stderr, err)
	}
	policy, err := oracle.ParsePolicy(*tentative)
	if err != nil {
		return usage(stderr, err)
	}
	ks, err := oracle.ParseNoiseKinds(*kinds)
	if err != nil {
		return usage(stderr, err)
	}
	suf, err := oracle.ParseSufficiency(*sufficiency)
	if err != nil {
		return usage(stderr, err)
	}
	words, err := oracle.ParseWording(*wording)
	if err != nil {
		return usage(stderr, err)
	}
	lat, err := oracle.ParseLatency(*latency)
	if err != nil {
		return usage(stderr, err)
	}
	if *rate < 0 || *rate > 1 {
		return usage(stderr, fmt.Errorf("--noise %g is not in [0, 1]", *rate))
	}
	loaded, err := loadInput(ctx, *input, f)
	if err != nil {
		if errors.Is(err, errUsage) {
			return usage(stderr, errors.New("--input FILE is required (but for --format demo, whose questions are built in)"))
		}
		return fmt.Errorf("oracle-llm: %w", err)
	}
	m, skipped := oracle.New(loaded.Questions, oracle.WithTentative(policy), oracle.WithNoise(oracle.Noise{Rate: *rate, Seed: *seed, Kinds: ks}),
		oracle.WithSufficiency(suf), oracle.WithWording(words), oracle.WithLatency(lat))
	fmt.Fprintf(stderr, "oracle-llm: %d questions, %d without a gold plan, %d malformed records; tentative %s, noise %g (seed %d, kinds %s), sufficiency %s, wording %s, latency %s\n",
		len(loaded.Questions), len(skipped), len(loaded.Skipped), policy, *rate, *seed, kindsLabel(ks), suf, words, lat)
	return serve(ctx, m, *addr, stderr, ready)
}

// loadInput loads the question file; with no file, --format demo takes
// the demo graph's own questions (kgqa/kg/demokg/questions.json, built in).
func loadInput(ctx context.Context, input string, f dataset.Format) (dataset.Loaded, error) {
	if input != "" {
		return dataset.LoadFile(ctx, input, f)
	}
	if f != dataset.Demo {
		return dataset.Loaded{}, errUsage
	}
	data, err := json.Marshal(demokg.FreebaseQuestions())
	if err != nil {
		return dataset.Loaded{}, err
	}
	var loaded dataset.Loaded
	err = dataset.Decode(ctx, bytes.NewReader(data), dataset.Demo,
		func(q dataset.Question) error { loaded.Questions = append(loaded.Questions, q); return nil },
		func(s dataset.Skipped) { loaded.Skipped = append(loaded.Skipped, s) })
	return loaded, err
}

func usage(w io.Writer, err error) error {
	fmt.Fprintf(w, "oracle-llm: %v\n", err)
	return fmt.Errorf("%w: %v", errUsage, err)
}

// kindsLabel names the noise kinds enabled for the startup line.
func kindsLabel(ks []string) string {
	if len(ks) == 0 {
		return oracle.FamilyFormat
	}
	return strings.Join(ks, ",")
}

func joinKinds() string {
	s := ""
	for i, k := range oracle.NoiseKinds {
		if i > 0 {
			s += ", "
		}
		s += k
	}
	return s
}

// serve listens on addr and serves m until ctx ends, then shuts down.
func serve(ctx context.Context, m *oracle.Model, addr string, stderr io.Writer, ready func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("oracle-llm: %w", err)
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "oracle-llm: serving http://%s/v1 (model %q)\n", ln.Addr(), oracle.ModelID)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("oracle-llm: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("oracle-llm: shutdown: %w", err)
	}
	<-errc
	st := m.Stats()
	fmt.Fprintf(stderr, "oracle-llm: answered %v; %d unrecognised prompts, %d unknown questions; errors injected %v\n", st.Calls, st.Unrecognised, st.UnknownQuestion, st.Noisy)
	return nil
}
