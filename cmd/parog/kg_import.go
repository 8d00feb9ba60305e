package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kgdata/fbimport"
)

const kgImportHelp = `Usage: parog kg import <source> [flags]

Sources:
  freebase   stream the official Freebase dump (gzip N-Triples) into filtered,
             sharded .nt.gz files for parallel bulk load
  fb15k237   FB15k-237 (train/valid/test.txt in a .tar.gz) with its names file,
             mediator (CVT) nodes rebuilt, into one N-Triples file

Examples:
  parog kg import freebase --in freebase-rdf-latest.gz --out /data/freebase-nt
  parog kg import fb15k237 --in FB15k-237.tar.gz --names FB15k_mid2name.txt --out out/fb15k237.nt.gz
`

func runKGImport(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, kgImportHelp)
		return usageError("missing source (freebase or fb15k237)")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(env.Stdout, kgImportHelp)
		return flag.ErrHelp
	case "fb15k237":
		return runImportFB15k(ctx, env, args[1:])
	case "freebase":
		return runImportFreebase(ctx, env, args[1:])
	}
	fmt.Fprint(env.Stderr, kgImportHelp)
	return usageError("unknown source %q (want freebase or fb15k237)", args[0])
}

func runImportFB15k(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "kg import fb15k237", "--in FB15k-237.tar.gz --names FB15k_mid2name.txt --out FILE.nt.gz [--report FILE]")
	in := fs.String("in", "", "the FB15k-237 `ARCHIVE` (.tar.gz holding train.txt, valid.txt, test.txt)")
	names := fs.String("names", "", "the names `FILE`: one MID<TAB>Name_With_Underscores per line")
	out := fs.String("out", "", "N-Triples output `FILE` (gzip when it ends in .gz); written only when complete")
	report := fs.String("report", "", "also write the counts as JSON to `FILE`")
	force := fs.Bool("force", false, "write --out even when it is a symbolic link or not a regular file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *in == "" || *names == "" || *out == "" || fs.NArg() > 0 {
		return usageError("--in, --names and --out are required, and nothing else")
	}
	if err := checkOut("--out", *out, false, *force); err != nil {
		return err
	}
	if err := checkOut("--report", *report, false, false); err != nil {
		return err
	}
	rep, err := fbimport.ImportFB15k237(ctx, *in, *names, *out)
	if err != nil {
		return err
	}
	printBadLines(env.Stderr, rep.Bad)
	fmt.Fprintf(env.Stdout, "%s: %d triples (%d facts, %d paths through a rebuilt mediator node, %d names); "+
		"%d entities, %d without a name; %d bad lines left out\n",
		*out, rep.Triples, rep.Facts, rep.Paths, rep.Names, rep.Entities, rep.Unnamed, rep.Bad.Count)
	return writeJSONReport(*report, rep)
}

func runImportFreebase(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "kg import freebase", "--in freebase-rdf-latest.gz --out DIR [--lang en] [--noise P1,P2] [--report FILE]")
	in := fs.String("in", "", "the Freebase dump `FILE` (gzip N-Triples, freebase-rdf-latest.gz)")
	out := fs.String("out", "", "output `DIR` for part-NNNNN.nt.gz shards; rerun with the same flags to resume")
	lang := fs.String("lang", "en", "comma-separated language `TAGS` of names and labels kept")
	noise := fs.String("noise", strings.Join(kg.DefaultFreebaseNoise, ","), "comma-separated relation `PREFIXES` dropped (type.object.name is always kept)")
	shard := fs.Int64("shard-lines", 50_000_000, "input `LINES` per output shard")
	report := fs.String("report", "", "also write the counts (per domain, per reason, bad lines) as JSON to `FILE`")
	quiet := fs.Bool("quiet", false, "no progress bar")
	force := fs.Bool("force", false, "write into --out even when it is a symbolic link")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *in == "" || *out == "" || fs.NArg() > 0 {
		return usageError("--in and --out are required, and nothing else")
	}
	if err := checkOut("--out", *out, true, *force); err != nil {
		return err
	}
	if err := checkOut("--report", *report, false, false); err != nil {
		return err
	}
	st, err := os.Stat(*in)
	if err != nil {
		return fmt.Errorf("kg import: %w", err)
	}
	o := fbimport.DumpOptions{Langs: splitList(*lang), Noise: splitList(*noise), ShardLines: *shard}
	if !*quiet {
		bar := newProgress(env, st.Size(),
			progressbar.OptionSetDescription("importing "+filepath.Base(*in)),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(500*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(env.Stderr) }),
		)
		o.OnRead = func(n int) { _ = bar.Add(n) }
	}
	start := time.Now()
	rep, err := fbimport.ImportDump(ctx, *in, *out, o)
	if err != nil {
		return err
	}
	t := rep.Tally
	printBadLines(env.Stderr, t.Bad)
	secs := time.Since(start).Seconds()
	fmt.Fprintf(env.Stdout, "%s: %d shards (%d from an earlier run); %d lines read, %d kept, %d dropped, %d bad; %.0f lines/s\n",
		*out, len(rep.Shards), rep.Resumed, t.Lines, t.Kept, t.Lines-t.Kept-t.Blank-t.Bad.Count, t.Bad.Count, float64(t.Lines)/secs)
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "domain\tkept\tdropped\t")
	for _, d := range sortedDomains(t.Domains) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", d, t.Domains[d].Kept, t.Domains[d].Dropped)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeJSONReport(*report, rep)
}

// sortedDomains orders domains by lines, most first.
func sortedDomains(m map[string]*fbimport.Count) []string {
	ds := make([]string, 0, len(m))
	for d := range m {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool {
		a, b := m[ds[i]].Kept+m[ds[i]].Dropped, m[ds[j]].Kept+m[ds[j]].Dropped
		if a != b {
			return a > b
		}
		return ds[i] < ds[j]
	})
	return ds
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// printBadLines lists the bad-line examples and says how many there were.
func printBadLines(w io.Writer, p fbimport.Problems) {
	for _, b := range p.Examples {
		fmt.Fprintf(w, "bad line %s\n", b)
	}
	if p.Count > int64(len(p.Examples)) {
		fmt.Fprintf(w, "... and %d more bad lines (all counted in the report)\n", p.Count-int64(len(p.Examples)))
	}
}

// writeJSONReport writes v as indented JSON to path, when path is set.
func writeJSONReport(path string, v any) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return writeOutBytes("--report", path, false, append(b, '\n'))
}
