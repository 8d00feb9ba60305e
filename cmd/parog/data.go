package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/parog/parog-go/dataset/fetch"
)

const dataUsage = `Usage: parog data get [--dir DIR] [--from URL|DIR] NAME...
       parog data list

get downloads benchmarks and knowledge graphs from their public sources
into the data directory (--dir, else $PAROG_DATA, else data/), where the
guides' commands read them. Each file is resumed where an interrupted run
left it, and checked against a sha256 pin: the catalogue's, or the hash its
first download recorded in DIR/checksums.lock. --from reads a mirror laid
out like the data directory (a URL, or a directory such as another
machine's data/). NAME "all" is every dataset but the full Freebase dump.

list names every dataset with its size, licence and source.
`

// dataCatalog is the catalogue data get reads; tests swap in one with test
// pins.
var dataCatalog = fetch.Catalog

// defaultDataDir is the data directory when neither --dir nor PAROG_DATA
// names one; .gitignore lists it.
const defaultDataDir = "data"

func runData(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "get":
			return runDataGet(ctx, env, args[1:])
		case "list":
			return runDataList(env)
		case "-h", "--help", "help":
			fmt.Fprint(env.Stdout, dataUsage)
			return flag.ErrHelp
		}
	}
	fmt.Fprint(env.Stderr, dataUsage)
	return usageError("missing command get or list")
}

func runDataList(env *Env) error {
	for _, d := range dataCatalog() {
		fmt.Fprintf(env.Stdout, "%-16s %s\n", d.Name, d.Title)
		fmt.Fprintf(env.Stdout, "%-16s size: %s; licence: %s\n", "", d.Size, d.Licence)
		if d.Use != "" {
			fmt.Fprintf(env.Stdout, "%-16s use: %s\n", "", d.Use)
		}
		for _, f := range d.Files {
			fmt.Fprintf(env.Stdout, "%-16s %s <- %s\n", "", f.Path, f.URL)
		}
	}
	return nil
}

func runDataGet(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "data get", "[--dir DIR] [--from URL|DIR] NAME...")
	dir := fs.String("dir", "", "data `DIR` to write (default $PAROG_DATA, else data/)")
	from := fs.String("from", "", "read a mirror laid out like the data directory: a `URL` or a directory")
	noProgress := fs.Bool("no-progress", false, "no progress bar (plain lines, as when stderr is not a terminal)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name at least one dataset (parog data list names them)")
	}
	sets, err := fetch.Lookup(dataCatalog(), fs.Args())
	if err != nil {
		return usageError("%v", err)
	}
	if *dir == "" {
		*dir = defaultDataDir
		if d, ok := env.Getenv("PAROG_DATA"); ok && d != "" {
			*dir = d
		}
	}
	f := &fetch.Fetcher{Dir: *dir, From: *from, Log: env.Stderr, Progress: newByteProgress(env.Stderr, *noProgress)}
	for _, d := range sets {
		fmt.Fprintf(env.Stdout, "%s: %s\n  size: %s\n  licence: %s\n", d.Name, d.Title, d.Size, d.Licence)
		if d.Use != "" {
			fmt.Fprintf(env.Stdout, "  use: %s\n", d.Use)
		}
		rs, err := f.Get(ctx, d)
		for _, r := range rs {
			note := "pinned"
			if r.Recorded {
				note = "recorded in " + fetch.LockFile
			}
			state := "fetched"
			if !r.Fetched {
				state = "present"
			}
			fmt.Fprintf(env.Stdout, "  %s %s sha256 %s (%s)\n", state, pathIn(*dir, r.Path), r.SHA256, note)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pathIn is a data file's path as the guides write it.
func pathIn(dir, rel string) string {
	return strings.TrimSuffix(dir, "/") + "/" + rel
}

// newByteProgress draws a bar on a terminal and prints plain lines (one
// per tenth, and one at the end) anywhere else, so a log file reads line by
// line.
func newByteProgress(w io.Writer, plain bool) fetch.Progress {
	if f, ok := w.(*os.File); ok && !plain && term.IsTerminal(int(f.Fd())) {
		return &barBytes{w: w}
	}
	return &lineBytes{w: w}
}

type barBytes struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (b *barBytes) Start(path string, done, total int64) {
	b.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(strings.TrimSuffix(path, ".part")),
		progressbar.OptionShowBytes(true), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100_000_000), progressbar.OptionSetWidth(30))
	_ = b.bar.Set64(done)
}

func (b *barBytes) Add(n int64) { _ = b.bar.Add64(n) }

func (b *barBytes) Finish() {
	_ = b.bar.Finish()
	fmt.Fprintln(b.w)
}

type lineBytes struct {
	w           io.Writer
	name        string
	done, total int64
	tenth       int64
	printed     bool
}

// smallFile is the size under which a download gets one line at the end
// only.
const smallFile = 8 << 20

func (l *lineBytes) Start(path string, done, total int64) {
	l.name, l.done, l.total, l.printed = strings.TrimSuffix(path, ".part"), done, total, false
	l.tenth = l.tenthOf(done)
	if done > 0 {
		fmt.Fprintf(l.w, "%s: resuming at %s\n", l.name, l.figure())
	}
}

func (l *lineBytes) tenthOf(n int64) int64 {
	if l.total <= 0 {
		return n >> 24 // a line per 16 MiB when the size is unknown
	}
	return n * 10 / l.total
}

func (l *lineBytes) Add(n int64) {
	l.done += n
	if l.total > 0 && l.total < smallFile {
		return
	}
	if t := l.tenthOf(l.done); t > l.tenth {
		l.tenth = t
		fmt.Fprintf(l.w, "%s: %s\n", l.name, l.figure())
		l.printed = l.done == l.total
	}
}

func (l *lineBytes) Finish() {
	if !l.printed {
		fmt.Fprintf(l.w, "%s: %s\n", l.name, l.figure())
	}
}

func (l *lineBytes) figure() string {
	if l.total <= 0 {
		return mib(l.done)
	}
	return fmt.Sprintf("%s of %s (%d%%)", mib(l.done), mib(l.total), l.done*100/l.total)
}

// mib writes a byte count in the unit that reads best.
func mib(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}
