package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
)

const benchKGSynopsis = `kg --config FILE --hubs ID,ID,... [--ordinary N] [--rounds N]

Times each KG primitive (relations, neighbours, count, name, search by
name) on the configured KG, with its cache off, at the hub entities given
and at N ordinary named entities drawn from the KG, and prints p50, p99
and max per primitive and class.`

// primitiveTimes holds the latencies of each primitive for one class of
// entities.
type primitiveTimes map[string][]time.Duration

func runBenchKG(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "bench kg", benchKGSynopsis)
	cf := addConfigFlags(fs)
	hubs := fs.String("hubs", "", "comma-separated hub entity `IDs` (such as the Hubs of parog kg densify's report)")
	ordinary := fs.Int("ordinary", 50, "ordinary named entities drawn from the KG")
	rounds := fs.Int("rounds", 3, "times each entity's primitives are run")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *hubs == "" || *ordinary < 0 || *rounds <= 0 || fs.NArg() > 0 {
		return usageError("--hubs is required; --ordinary >= 0 and --rounds > 0")
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	cfg.KG.CacheSize = 0
	a, err := openApp(ctx, cfg, env, graphOnly())
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	others, err := ordinaryEntities(ctx, a.Graph, *ordinary)
	if err != nil {
		return err
	}
	for _, class := range []struct {
		name string
		ids  []string
	}{{"hub", strings.Split(*hubs, ",")}, {"ordinary", others}} {
		times := primitiveTimes{}
		for r := 0; r < *rounds; r++ {
			for _, id := range class.ids {
				if err := timePrimitives(ctx, a.Graph, strings.TrimSpace(id), times); err != nil {
					return err
				}
			}
		}
		printTimes(env.Stdout, class.name, len(class.ids), times)
	}
	return nil
}

// ordinaryEntities draws n named entities spread over the KG's names.
func ordinaryEntities(ctx context.Context, g kg.Graph, n int) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	res, err := g.Select(ctx, "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?e WHERE { ?e ns:type.object.name ?n . } LIMIT 20000")
	if err != nil {
		return nil, fmt.Errorf("bench kg: %w", err)
	}
	var ids []string
	for _, row := range res.Rows {
		ids = append(ids, row["e"].ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var out []string
	for i := 0; i < n && len(ids) > 0; i++ {
		out = append(out, ids[i*len(ids)/n])
	}
	return out, nil
}

// timePrimitives runs each primitive once at entity id: its relations,
// the neighbours and count along its middle relation, its name and a
// search by that name.
func timePrimitives(ctx context.Context, g kg.Graph, id string, times primitiveTimes) error {
	timed := func(name string, fn func() error) error {
		start := time.Now()
		err := fn()
		times[name] = append(times[name], time.Since(start))
		if err != nil {
			return fmt.Errorf("bench kg: %s of %s: %w", name, id, err)
		}
		return nil
	}
	var rels []kgqa.Relation
	if err := timed("relations", func() (err error) { rels, err = g.Relations(ctx, id); return err }); err != nil {
		return err
	}
	if len(rels) > 0 {
		rel := rels[len(rels)/2]
		if err := timed("neighbors", func() error { _, err := g.Neighbors(ctx, id, rel, 0); return err }); err != nil {
			return err
		}
		if err := timed("count", func() error { _, err := g.Count(ctx, id, rel); return err }); err != nil {
			return err
		}
	}
	var name string
	if err := timed("name", func() (err error) { name, err = g.Name(ctx, id); return err }); err != nil {
		return err
	}
	if name == "" {
		return nil
	}
	return timed("search", func() error { _, err := g.Search(ctx, name, 10); return err })
}

func printTimes(w io.Writer, class string, n int, times primitiveTimes) {
	for _, p := range []string{"relations", "neighbors", "count", "name", "search"} {
		d := times[p]
		if len(d) == 0 {
			continue
		}
		slices.Sort(d)
		q := func(f float64) time.Duration { return d[min(len(d)-1, int(f*float64(len(d))))] }
		fmt.Fprintf(w, "%-8s (%d entities) %-9s n=%-4d p50 %8.2fms  p99 %8.2fms  max %8.2fms\n",
			class, n, p, len(d), ms(q(0.5)), ms(q(0.99)), ms(d[len(d)-1]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
