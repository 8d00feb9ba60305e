package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
)

const kgHelp = `Usage: parog kg <subcommand> --config FILE [flags] ARGS

Subcommands:
  relations ENTITY               relations of ENTITY, one per line: direction, id, readable form
  neighbors ENTITY RELATION      facts along RELATION (out; --incoming for in); mediator
                                 (CVT) nodes are expanded into one fact
  name ENTITY                    the entity's name
  search NAME                    entities named NAME (exact, then case-insensitive; with
                                 kg.full_text, Virtuoso full text on the name's words)
  query 'SELECT ...'             a raw read-only SELECT, as tab-separated values
  import freebase|fb15k237       turn Freebase data into N-Triples (parog kg import --help)
  virtuoso setup|status|stop   load N-Triples into a Virtuoso server (parog kg virtuoso --help)
  densify                        a Freebase-dense world around a real slice (parog kg densify --help)

Entity and relation ids are in the dialect's form: m.0f8l9c and
location.location.contains (freebase), Q142 and P47 (wikidata).
Example: parog kg relations --config configs/demo.yaml m.0f8l9c
`

type kgSub struct {
	synopsis string
	nargs    int
	run      func(ctx context.Context, g kg.Graph, env *Env, args []string, o *kgOpts) error
}

type kgOpts struct {
	incoming bool
	limit    int
}

// kgTools are the subcommands that build a KG rather than query one; they
// take no configuration.
var kgTools = map[string]func(ctx context.Context, env *Env, args []string) error{
	"import":   runKGImport,
	"virtuoso": runKGVirtuoso,
	"densify":  runKGDensify,
}

var kgSubs = map[string]kgSub{
	"relations": {"ENTITY", 1, kgRelations},
	"neighbors": {"ENTITY RELATION [--incoming] [--limit N]", 2, kgNeighbors},
	"name":      {"ENTITY", 1, kgName},
	"search":    {"NAME [--limit N]", 1, kgSearch},
	"query":     {"'SELECT ...'", 1, kgQuery},
}

func runKG(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(env.Stdout, kgHelp)
		if len(args) == 0 {
			return usageError("missing subcommand (relations, neighbors, name, search, query)")
		}
		return flag.ErrHelp
	}
	if tool, ok := kgTools[args[0]]; ok {
		return tool(ctx, env, args[1:])
	}
	sub, ok := kgSubs[args[0]]
	if !ok {
		return usageError("unknown subcommand %q (want relations, neighbors, name, search or query)", args[0])
	}
	fs := newFlags(env, "kg "+args[0], "--config FILE "+sub.synopsis)
	cf := addConfigFlags(fs)
	o := &kgOpts{}
	if args[0] == "neighbors" {
		fs.BoolVar(&o.incoming, "incoming", false, "follow RELATION into ENTITY: (?, r, e)")
	}
	if args[0] == "neighbors" || args[0] == "search" {
		countVar(fs, &o.limit, "limit", "most results shown (0: the configured default)")
	}
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != sub.nargs {
		return usageError("want %d argument(s): %s", sub.nargs, sub.synopsis)
	}
	a, err := cf.openGraph(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	err = sub.run(ctx, a.Graph, env, pos, o)
	var ide *kg.IDError
	if errors.As(err, &ide) {
		return usageError("%v", err)
	}
	return err
}

// parseInterleaved parses flags wherever they stand among the positional
// arguments, so that "neighbors E R --incoming" works.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func kgRelations(ctx context.Context, g kg.Graph, env *Env, args []string, _ *kgOpts) error {
	w := env.Stdout
	rels, err := g.Relations(ctx, args[0])
	if err != nil {
		return err
	}
	if len(rels) == 0 {
		fmt.Fprintf(env.Stderr, "parog kg relations: nothing found: %s has no relations (or is not in the KG)\n", args[0])
	}
	d := g.Dialect()
	for _, r := range rels {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.Dir, r.ID, d.Readable(r.ID))
	}
	return nil
}

func kgNeighbors(ctx context.Context, g kg.Graph, env *Env, args []string, o *kgOpts) error {
	w := env.Stdout
	rel := kgqa.Relation{ID: args[1], Dir: kgqa.Out}
	if o.incoming {
		rel.Dir = kgqa.In
	}
	facts, err := g.Neighbors(ctx, args[0], rel, o.limit)
	if err != nil {
		return err
	}
	if len(facts) == 0 {
		fmt.Fprintf(env.Stderr, "parog kg neighbors: nothing found: no %s facts of %s along %s\n", rel.Dir, args[0], rel.ID)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range facts {
		path := strings.Join(f.Path, " / ")
		if f.Mediator != "" {
			second := strings.Join(f.Path[1:], " / ")
			if f.SecondDir() == kgqa.In {
				second = "^" + second // the mediator is its object, as in a SPARQL inverse path
			}
			path = f.Path[0] + " / [" + f.Mediator + "] / " + second
		}
		text := termText(f.Tail)
		if f.Tail.ID != "" {
			text = f.Tail.Name
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Dir, path, orDash(f.Tail.ID), text)
	}
	return tw.Flush()
}

func kgName(ctx context.Context, g kg.Graph, env *Env, args []string, _ *kgOpts) error {
	w := env.Stdout
	n, err := g.Name(ctx, args[0])
	if err != nil {
		return err
	}
	if n == "" {
		return fmt.Errorf("kg: %s has no name (unknown entity or mediator node)", args[0])
	}
	fmt.Fprintln(w, n)
	return nil
}

func kgSearch(ctx context.Context, g kg.Graph, env *Env, args []string, o *kgOpts) error {
	w := env.Stdout
	es, err := g.Search(ctx, args[0], o.limit)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		fmt.Fprintf(env.Stderr, "parog kg search: nothing found: no entity is named %q\n", args[0])
	}
	for _, e := range es {
		fmt.Fprintf(w, "%s\t%s\n", e.ID, e.Name)
	}
	return nil
}

func kgQuery(ctx context.Context, g kg.Graph, env *Env, args []string, _ *kgOpts) error {
	w := env.Stdout
	res, err := g.Select(ctx, args[0])
	if err != nil {
		return err
	}
	fmt.Fprintln(w, strings.Join(res.Vars, "\t"))
	for _, row := range res.Rows {
		cells := make([]string, len(res.Vars))
		for i, v := range res.Vars {
			if t, ok := row[v]; ok {
				cells[i] = termText(t)
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return nil
}

// termText renders a term on one line: an entity as its id (and name), a
// literal as its lexical form with its datatype or language.
func termText(t kgqa.Term) string {
	clean := strings.Join(strings.Fields(t.Name), " ")
	switch {
	case t.ID != "" && clean != "":
		return t.ID + " (" + clean + ")"
	case t.ID != "":
		return t.ID
	case t.Lang != "":
		return clean + "@" + t.Lang
	case t.Datatype != "":
		return clean + "^^" + t.Datatype
	}
	return clean
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
