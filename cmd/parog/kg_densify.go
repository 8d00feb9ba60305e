package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/parog/parog-go/kgqa/kgdata/densify"
)

func runKGDensify(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "kg densify", "--slice FILE.nt.gz --schema DIR --out DIR [--seed N] [--target-triples N]")
	slice := fs.String("slice", "", "the real slice: an N-Triples `FILE` (gzip when it ends in .gz)")
	schema := fs.String("schema", "", "the Freebase schema `DIR` (fb_roles, fb_types, reverse_properties, properties-typeinfo.nt, type-instance-counts.tsv)")
	out := fs.String("out", "", "output `DIR` for the shards")
	seed := fs.Uint64("seed", 1, "the world's seed: the same seed gives the same world")
	target := fs.Int64("target-triples", 5_000_000, "the world's size in triples, real ones included")
	shard := fs.Int64("shard-triples", 1_000_000, "most triples per shard")
	report := fs.String("report", "", "also write the counts and hubs as JSON to `FILE`")
	quiet := fs.Bool("quiet", false, "no progress line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *slice == "" || *schema == "" || *out == "" || fs.NArg() > 0 {
		return usageError("--slice, --schema and --out are required, and nothing else")
	}
	if *target <= 0 || *shard <= 0 {
		return usageError("--target-triples and --shard-triples must be positive")
	}
	start := time.Now()
	o := densify.Options{Seed: *seed, TargetTriples: *target, ShardTriples: *shard}
	if !*quiet {
		o.Progress = func(n int64) {
			fmt.Fprintf(env.Stderr, "\rdensify: %d of %d triples written (%.0f/s)", n, *target, float64(n)/time.Since(start).Seconds())
		}
	}
	rep, err := densify.Build(ctx, *slice, *schema, *out, o)
	if !*quiet {
		fmt.Fprintln(env.Stderr)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: %d triples in %d shards: %d real (copied from %s), %d typing real entities, %d synthetic; "+
		"%d real entities, %d synthetic entities, %d synthetic mediators; %s\n",
		*out, rep.Triples, len(rep.Shards), rep.RealTriples, filepath.Base(*slice), rep.TypeTriples,
		rep.Triples-rep.RealTriples-rep.TypeTriples, rep.RealEntities, rep.SyntheticEntities, rep.Mediators,
		time.Since(start).Round(time.Second))
	for _, h := range rep.Hubs {
		fmt.Fprintf(env.Stdout, "  hub %s: %d relations, %d facts\n", h.ID, h.Relations, h.Facts)
	}
	return writeJSONReport(*report, rep)
}
