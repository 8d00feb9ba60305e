package kg

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	"github.com/parog/parog-go/kgqa/kg/endpoint"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

// The benchmarks run on a generated Freebase-like graph of about 200,000
// triples: named, typed entities, 30 relations between them, and one
// mediator (CVT) node per entity with an entity and a literal behind it.
//
//	go test -run '^$' -bench . -benchtime 2000x ./kgqa/kg/
//
// Each benchmark reports p50 and p99 latency per call (ms); Load reports
// seconds to load the graph.

const (
	benchEntities = 18_000
	benchRels     = 30
	benchOutEdges = 6
)

var bench struct {
	once    sync.Once
	dir     string
	file    string
	triples int
	err     error

	embedOnce sync.Once
	embedded  *embedded.Store
	embedLoad time.Duration

	virtOnce sync.Once
	virt     *virtuosotest.Server
	virtLoad time.Duration
	virtErr  error
}

func benchEntity(i int) string { return fmt.Sprintf("m.0b%05d", i) }

func benchRelation(j int) string { return fmt.Sprintf("bench.type%02d.prop%02d", j%7, j) }

// benchFile writes the generated graph once per test binary.
func benchFile(b *testing.B) string {
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "parog-bench-")
		if bench.err != nil {
			return
		}
		bench.file = filepath.Join(bench.dir, "bench.nt")
		bench.triples, bench.err = writeBenchGraph(bench.file)
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.file
}

func writeBenchGraph(path string) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(1, 2))
	n := 0
	emit := func(format string, a ...any) {
		fmt.Fprintf(w, format+"\n", a...)
		n++
	}
	const ns = FreebaseNS
	for i := range benchEntities {
		e := benchEntity(i)
		emit(`<%s%s> <%stype.object.name> "Entity %d"@en .`, ns, e, ns, i)
		emit(`<%s%s> <%stype.object.type> <%sbench.type%02d> .`, ns, e, ns, ns, i%7)
		emit(`<%s%s> <%scommon.topic.description> "Generated entity number %d."@en .`, ns, e, ns, i)
		for range benchOutEdges {
			// Zipf-like targets: a few hubs get many incoming edges, as in
			// Freebase.
			t := int(float64(benchEntities) * r.Float64() * r.Float64() * r.Float64())
			emit(`<%s%s> <%s%s> <%s%s> .`, ns, e, ns, benchRelation(r.IntN(benchRels)), ns, benchEntity(t))
		}
		cvt := fmt.Sprintf("m.0c%05d", i)
		emit(`<%s%s> <%sbench.event.participation> <%s%s> .`, ns, e, ns, ns, cvt)
		emit(`<%s%s> <%sbench.participation.partner> <%s%s> .`, ns, cvt, ns, ns, benchEntity(r.IntN(benchEntities)))
		emit(`<%s%s> <%sbench.participation.year> "%d"^^<http://www.w3.org/2001/XMLSchema#gYear> .`, ns, cvt, ns, 1950+r.IntN(70))
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return n, f.Close()
}

func benchEmbedded(b *testing.B) *embedded.Store {
	file := benchFile(b)
	bench.embedOnce.Do(func() {
		start := time.Now()
		var err error
		bench.embedded, err = embedded.Open(context.Background(), "", []string{file}, "", 0)
		if err != nil {
			b.Fatal(err)
		}
		bench.embedLoad = time.Since(start)
	})
	if bench.embedded == nil {
		b.Fatal("embedded store failed to load")
	}
	return bench.embedded
}

func benchVirtuoso(b *testing.B) *virtuosotest.Server {
	virtuosotest.Require(b)
	file := benchFile(b)
	bench.virtOnce.Do(func() {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		bench.virt, bench.virtErr = virtuosotest.Start(ctx, filepath.Join(bench.dir, "virtuoso"), file)
		bench.virtLoad = time.Since(start)
	})
	if bench.virtErr != nil {
		b.Fatal(bench.virtErr)
	}
	return bench.virt
}

func benchBackends(b *testing.B) map[string]backend.Backend {
	out := map[string]backend.Backend{"embedded": benchEmbedded(b)}
	ep, err := endpoint.New(benchVirtuoso(b).SPARQL, endpoint.Options{Timeout: time.Minute, MaxConns: 32})
	if err != nil {
		b.Fatal(err)
	}
	out["virtuoso"] = ep
	return out
}

func BenchmarkLoad(b *testing.B) {
	benchEmbedded(b)
	benchVirtuoso(b)
	b.ReportMetric(float64(bench.triples), "triples")
	b.ReportMetric(bench.embedLoad.Seconds(), "embedded-load-s")
	b.ReportMetric(bench.virtLoad.Seconds(), "virtuoso-start+load-s")
}

// latencies records per-call durations and reports p50/p99.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) report(b *testing.B) {
	if len(l.d) == 0 {
		return
	}
	slices.Sort(l.d)
	pct := func(p float64) float64 {
		return float64(l.d[int(p*float64(len(l.d)-1))].Nanoseconds()) / 1e6
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

type benchOp func(ctx context.Context, g Graph, r *rand.Rand) error

func opRelations(ctx context.Context, g Graph, r *rand.Rand) error {
	rels, err := g.Relations(ctx, benchEntity(r.IntN(benchEntities)))
	if err == nil && len(rels) == 0 {
		return fmt.Errorf("no relations: the benchmark graph did not load")
	}
	return err
}

func opNeighbors(ctx context.Context, g Graph, r *rand.Rand) error {
	facts, err := g.Neighbors(ctx, benchEntity(r.IntN(benchEntities)), kgqa.Relation{ID: "bench.event.participation", Dir: kgqa.Out}, 0)
	if err == nil && len(facts) != 2 {
		return fmt.Errorf("mediator expansion gave %d facts, want 2", len(facts))
	}
	return err
}

func opIncoming(ctx context.Context, g Graph, r *rand.Rand) error {
	_, err := g.Neighbors(ctx, benchEntity(r.IntN(200)), kgqa.Relation{ID: benchRelation(r.IntN(benchRels)), Dir: kgqa.In}, 0)
	return err
}

// runBench measures op on every backend, cold (no cache, random entities)
// and cached (a warmed cache over 500 entities), serially and with 16
// concurrent callers.
func runBench(b *testing.B, op benchOp) {
	for name, exec := range benchBackends(b) {
		for _, mode := range []string{"cold", "cached"} {
			for _, callers := range []int{1, 16} {
				b.Run(fmt.Sprintf("%s/%s/callers=%d", name, mode, callers), func(b *testing.B) {
					s, err := New(Freebase(DialectOptions{}), exec, Options{NeighborLimit: 200})
					if err != nil {
						b.Fatal(err)
					}
					var g Graph = s
					ctx := context.Background()
					if mode == "cached" {
						c, _ := NewCached(s, 10_000)
						g = c
						r := rand.New(rand.NewPCG(7, 7))
						for range 2000 { // warm: with 500 entities seen, later calls hit
							if err := op(ctx, g, rand.New(rand.NewPCG(uint64(r.IntN(500)), 1))); err != nil {
								b.Fatal(err)
							}
						}
					}
					var lat latencies
					var seq uint64
					var mu sync.Mutex
					next := func() *rand.Rand {
						mu.Lock()
						defer mu.Unlock()
						seq++
						if mode == "cached" {
							return rand.New(rand.NewPCG(seq%500, 1))
						}
						return rand.New(rand.NewPCG(seq, 99))
					}
					b.ResetTimer()
					work := func() {
						r := next()
						start := time.Now()
						if err := op(ctx, g, r); err != nil {
							b.Error(err)
						}
						lat.add(time.Since(start))
					}
					if callers == 1 {
						for range b.N {
							work()
						}
					} else {
						b.SetParallelism((callers + 1) / 2) // 2 CPUs: 8 x GOMAXPROCS = 16
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								work()
							}
						})
					}
					b.StopTimer()
					lat.report(b)
				})
			}
		}
	}
}

func BenchmarkRelations(b *testing.B) { runBench(b, opRelations) }

func BenchmarkNeighborsMediator(b *testing.B) { runBench(b, opNeighbors) }

func BenchmarkNeighborsIncomingHub(b *testing.B) { runBench(b, opIncoming) }
