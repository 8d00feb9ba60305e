package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parog/parog-go/kgqa/kgdata/virtuoso"
)

const kgVirtuosoHelp = `Usage: parog kg virtuoso <setup|status|stop> --dir DIR [flags]

  setup   write virtuoso.ini sized to --memory, start virtuoso-t, bulk-load --data
          with --parallel loaders (progress: files, triples/s, ETA), checkpoint,
          index names for full-text search, with --relation-index write the
          relation index (each entity's relations by direction, in graph
          urn:parog:relations, which relation listings read instead of the
          entity's facts; written in parts, each checkpointed), make /sparql
          read-only, verify. Run it again to resume or add data: nothing
          loads twice, a stopped relation index resumes at the part it was
          in, and a complete one is written again only if the data changed.
  status  the server's process, endpoint and load list
  stop    stop the server

Example:
  parog kg virtuoso setup --dir /data/virtuoso --data /data/freebase-nt --memory 64GiB --parallel 4
`

func runKGVirtuoso(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, kgVirtuosoHelp)
		return usageError("missing command (setup, status or stop)")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(env.Stdout, kgVirtuosoHelp)
		return flag.ErrHelp
	case "setup":
		return runVirtuosoSetup(ctx, env, args[1:])
	case "status", "stop":
		fs := newFlags(env, "kg virtuoso "+args[0], "--dir DIR")
		dir := fs.String("dir", "", "the server's `DIR` (as given to setup)")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		if *dir == "" || fs.NArg() > 0 {
			return usageError("--dir is required, and nothing else")
		}
		if args[0] == "stop" {
			return virtuosoStop(env, *dir)
		}
		return virtuosoStatus(ctx, env, *dir)
	}
	fmt.Fprint(env.Stderr, kgVirtuosoHelp)
	return usageError("unknown command %q (want setup, status or stop)", args[0])
}

func runVirtuosoSetup(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "kg virtuoso setup", "--dir DIR --data FILES_OR_DIR [--memory 16GiB] [--parallel N]")
	dir := fs.String("dir", "", "`DIR` for the database, log and virtuoso.ini")
	data := fs.String("data", "", "comma-separated N-Triples `FILES_OR_DIRS` (.nt, .nt.gz; a directory gives all of them)")
	memory := fs.String("memory", "2GiB", "memory for Virtuoso's buffers (`SIZE` such as 16GiB or 512MiB), sized by Virtuoso's table")
	parallel := fs.Int("parallel", 2, "rdf_loader_run() at once (about one per core)")
	sqlPort := fs.Int("sql-port", 1111, "ISQL `PORT`")
	httpPort := fs.Int("http-port", 8890, "/sparql `PORT`")
	queryMem := fs.String("query-memory", "", "memory one query may use (`SIZE`; default an eighth of --memory, 256MiB to 4GiB): MaxQueryMem")
	queryTime := fs.Duration("query-time", time.Minute, "time one public query may run: MaxQueryExecutionTime")
	maxRows := fs.Int("max-rows", 100000, "rows one public query may return: ResultSetMaxRows")
	relIndex := fs.Bool("relation-index", false, "write the relation index: listings at hubs read it instead of every fact; adds about as many triples as the data, seen by queries with an unbound predicate")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" || *data == "" || fs.NArg() > 0 {
		return usageError("--dir and --data are required, and nothing else")
	}
	mem, err := parseSize(*memory)
	if err != nil {
		return usageError("--memory: %v", err)
	}
	var qmem int64
	if *queryMem != "" {
		if qmem, err = parseSize(*queryMem); err != nil {
			return usageError("--query-memory: %v", err)
		}
	}
	if *queryTime < time.Second || *maxRows <= 0 {
		return usageError("--query-time must be at least 1s and --max-rows positive")
	}
	rep, err := virtuoso.Setup(ctx, virtuoso.SetupOptions{
		Dir: *dir, Data: splitList(*data), Memory: mem, Parallel: *parallel, SQLPort: *sqlPort, HTTPPort: *httpPort,
		MaxQueryMem: qmem, MaxQueryTime: int(queryTime.Seconds()), MaxRows: *maxRows, RelationIndex: *relIndex,
		Detach: true, Progress: func(p virtuoso.Progress) { fmt.Fprintln(env.Stderr, progressLine(p)) },
		IndexProgress: func(p virtuoso.IndexProgress) {
			fmt.Fprintf(env.Stderr, "relation index: part %d/%d, %d/%d data triples, elapsed %s\n",
				p.Part, p.Parts, p.Triples, p.Data, p.Elapsed.Round(time.Second))
		},
	})
	if err != nil {
		return err
	}
	how := "started"
	if !rep.Started {
		how = "already running"
	}
	fmt.Fprintf(env.Stdout, "virtuoso %s (pid %d), SPARQL at %s\n", how, rep.Server.PID, rep.Server.SPARQL())
	fmt.Fprintf(env.Stdout, "loaded %d/%d files, %d triples in the store, in %s (%.0f triples/s)\n",
		rep.Load.Done, rep.Load.Files, rep.Load.Triples, rep.LoadTime.Round(time.Second), rep.Load.Rate)
	switch ri := rep.Relations; {
	case !*relIndex:
	case ri.Built:
		fmt.Fprintf(env.Stdout, "relation index: written for %d triples: %d outgoing and %d incoming (entity, relation) pairs, "+
			"%d predicates (%d of them written by an earlier, stopped run), in %s\n",
			ri.Data, ri.Out, ri.In, ri.Predicates, ri.Resumed, ri.Time.Round(time.Second))
	default:
		fmt.Fprintf(env.Stdout, "relation index: already complete for %d triples (%d index triples), checked in %s\n",
			ri.Data, ri.Triples, ri.Time.Round(time.Millisecond))
	}
	fmt.Fprintf(env.Stdout, "verified: %d names; /sparql read-only: %v; stop with: parog kg virtuoso stop --dir %s\n",
		rep.Verified.Names, rep.Verified.UpdateRefused, *dir)
	return nil
}

func progressLine(p virtuoso.Progress) string {
	eta := "-"
	if p.ETA > 0 {
		eta = p.ETA.Round(time.Second).String()
	}
	return fmt.Sprintf("files %d/%d (%d failed), %d triples, %.0f triples/s, elapsed %s, ETA %s",
		p.Done, p.Files, p.Failed, p.Triples, p.Rate, p.Elapsed.Round(time.Second), eta)
}

func virtuosoStatus(ctx context.Context, env *Env, dir string) error {
	ini, err := virtuoso.ReadIni(dir)
	if err != nil {
		return err
	}
	s, ok := virtuoso.Attach(ini)
	if !ok {
		fmt.Fprintf(env.Stdout, "not running (start it with parog kg virtuoso setup --dir %s --data ...)\n", dir)
		return nil
	}
	p, err := s.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "running (pid %d), SPARQL at %s\nfiles %d/%d loaded (%d failed), %d triples\n",
		s.PID, s.SPARQL(), p.Done, p.Files, p.Failed, p.Triples)
	return nil
}

func virtuosoStop(env *Env, dir string) error {
	ini, err := virtuoso.ReadIni(dir)
	if err != nil {
		return err
	}
	s, ok := virtuoso.Attach(ini)
	if !ok {
		fmt.Fprintln(env.Stdout, "not running")
		return nil
	}
	if err := s.Stop(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "stopped (pid %d)\n", s.PID)
	return nil
}

// parseSize reads sizes such as 16GiB, 512MiB, 2G or a byte count.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"GB", 1e9}, {"MB", 1e6}, {"G", 1 << 30}, {"M", 1 << 20}}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a size such as 16GiB or 512MiB, not %q", s)
	}
	return int64(n * float64(mult)), nil
}
