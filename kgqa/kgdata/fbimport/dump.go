package fbimport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/sync/errgroup"
)

// DumpOptions configure ImportDump.
type DumpOptions struct {
	// Langs are the language tags of names and labels kept (default "en").
	Langs []string `json:"langs"`
	// Noise are the relation prefixes dropped (type.object.name is always
	// kept); the command passes the Freebase dialect's noise list.
	Noise []string `json:"noise"`
	// ShardLines is the number of input lines per output shard (default
	// 50 million, about 1 GB of compressed output or less).
	ShardLines int64 `json:"shard_lines"`
	// Workers filter blocks in parallel (default GOMAXPROCS).
	Workers int `json:"-"`
	// Level is the gzip level of the shards (default gzip.BestSpeed).
	Level int `json:"level"`
	// OnRead, when set, is called with the number of compressed input
	// bytes read, for a progress bar.
	OnRead func(n int) `json:"-"`

	create createFunc
}

// ShardReport is one completed output shard; it is also written beside the
// shard as part-NNNNN.json, which marks the shard done for a resumed run.
type ShardReport struct {
	// File is the shard's file name in the output directory.
	File string `json:"file"`
	// FirstLine is the 1-based input line the shard starts at.
	FirstLine int64 `json:"first_line"`
	// Tally counts the shard's input lines.
	Tally *Tally `json:"tally"`
}

// DumpReport is what ImportDump did.
type DumpReport struct {
	// Tally sums every shard.
	Tally *Tally `json:"tally"`
	// Shards lists the shards in input order.
	Shards []ShardReport `json:"shards"`
	// Resumed counts the shards found complete from an earlier run.
	Resumed int `json:"resumed"`
}

// settingsFile records the options a directory's shards were cut with.
const settingsFile = "import-settings.json"

// blockSize is the decompressed bytes a worker filters at a time.
const blockSize = 1 << 20

func (o *DumpOptions) defaults() {
	if len(o.Langs) == 0 {
		o.Langs = []string{"en"}
	}
	if o.ShardLines <= 0 {
		o.ShardLines = 50_000_000
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Level == 0 {
		o.Level = gzip.BestSpeed
	}
	if o.create == nil {
		o.create = os.Create
	}
}

// ImportDump streams the Freebase dump at in (gzip N-Triples) into
// filtered shards outDir/part-NNNNN.nt.gz. A shard appears only when
// complete, with its counts in part-NNNNN.json; run again after a kill and
// the shards already done are skipped. Lines that are not N-Triples are
// counted with their line numbers and left out. A truncated input or a
// full disk stops the import with an error; the shards done stay.
func ImportDump(ctx context.Context, in, outDir string, o DumpOptions) (*DumpReport, error) {
	o.defaults()
	if err := checkSettings(outDir, o); err != nil {
		return nil, err
	}
	rep := &DumpReport{Tally: newTally()}
	done, err := doneShards(outDir, rep)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(in)
	if err != nil {
		return nil, fmt.Errorf("fbimport: dump: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if o.OnRead != nil {
		r = &countingReader{r: f, on: o.OnRead}
	}
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("fbimport: dump: %s is not a gzip file: %w", in, err)
	}
	p := &pipeline{o: o, in: filepath.Base(in), outDir: outDir, rep: rep, done: done}
	if err := p.run(ctx, zr); err != nil {
		return rep, err
	}
	return rep, nil
}

// checkSettings refuses to resume shards cut with other options, and
// records the options of a fresh directory.
func checkSettings(outDir string, o DumpOptions) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("fbimport: dump: %w", diskHint(err))
	}
	path := filepath.Join(outDir, settingsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b, _ = json.MarshalIndent(o, "", "  ")
		return writeAtomicallyWith(o.create, path, 0, func(w io.Writer) error { _, err := w.Write(b); return err })
	}
	if err != nil {
		return fmt.Errorf("fbimport: dump: %w", err)
	}
	var was DumpOptions
	if err := json.Unmarshal(b, &was); err != nil {
		return fmt.Errorf("fbimport: dump: %s: %w", path, err)
	}
	if !reflect.DeepEqual(was.Langs, o.Langs) || !reflect.DeepEqual(was.Noise, o.Noise) ||
		was.ShardLines != o.ShardLines || was.Level != o.Level {
		return fmt.Errorf("fbimport: dump: %s holds shards cut with other options (%s): "+
			"use the same options to resume, or a new --out", outDir, settingsFile)
	}
	return nil
}

func shardName(i int) string { return fmt.Sprintf("part-%05d.nt.gz", i) }

func shardReportName(i int) string { return fmt.Sprintf("part-%05d.json", i) }

// doneShards reads the reports of the leading shards already complete.
func doneShards(outDir string, rep *DumpReport) (int, error) {
	for i := 0; ; i++ {
		b, err := os.ReadFile(filepath.Join(outDir, shardReportName(i)))
		if errors.Is(err, os.ErrNotExist) {
			return i, nil
		}
		if err != nil {
			return 0, fmt.Errorf("fbimport: dump: %w", err)
		}
		var s ShardReport
		if err := json.Unmarshal(b, &s); err != nil || s.Tally == nil {
			// A report that does not read marks the shard as not done.
			return i, nil //nolint:nilerr
		}
		if _, err := os.Stat(filepath.Join(outDir, s.File)); err != nil {
			return i, nil //nolint:nilerr
		}
		rep.Shards = append(rep.Shards, s)
		rep.Tally.add(s.Tally)
		rep.Resumed++
	}
}

type countingReader struct {
	r  io.Reader
	on func(int)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.on(n)
	}
	return n, err
}

// block is a stretch of whole lines of one shard.
type block struct {
	shard     int
	firstLine int64
	data      []byte
	endShard  bool
	result    chan blockResult
}

type blockResult struct {
	kept  []byte
	tally *Tally
}

type pipeline struct {
	o      DumpOptions
	in     string
	outDir string
	rep    *DumpReport
	done   int
}

// run reads blocks, filters them on o.Workers goroutines and writes the
// results in input order.
func (p *pipeline) run(ctx context.Context, zr io.Reader) error {
	eg, ctx := errgroup.WithContext(ctx)
	work := make(chan *block, p.o.Workers*2)
	ordered := make(chan *block, p.o.Workers*4)
	// A damaged input is not a failure of the group: cancelling it would
	// stop the writer before it finished the shards whose lines were all
	// read, which the error promises to keep. The reader keeps its
	// truncatedError aside and closes the channels; the workers and the
	// writer drain what it sent.
	var damaged *truncatedError
	eg.Go(func() error {
		defer close(work)
		defer close(ordered)
		err := p.read(ctx, zr, work, ordered)
		if errors.As(err, &damaged) {
			return nil
		}
		return err
	})
	f := newFilter(p.o.Langs, p.o.Noise)
	for range p.o.Workers {
		eg.Go(func() error {
			for b := range work {
				b.result <- filterBlock(f, p.in, b)
			}
			return nil
		})
	}
	eg.Go(func() error { return p.write(ctx, ordered) })
	if err := eg.Wait(); err != nil {
		return err
	}
	// The shards the writer completed are counted once it has stopped:
	// the reader, which meets the damage, runs ahead of it.
	if damaged != nil {
		return fmt.Errorf("fbimport: dump: %s is truncated or corrupt after line %d (%v); "+
			"the %d complete shard(s) are kept: fix or download the file again and rerun the same command to resume",
			p.in, damaged.line, damaged.err, len(p.rep.Shards))
	}
	return nil
}

// truncatedError is the reader's report of a damaged dump: the last line
// it read whole and the decompressor's error.
type truncatedError struct {
	line int64
	err  error
}

func (e *truncatedError) Error() string {
	return fmt.Sprintf("fbimport: dump: truncated or corrupt after line %d (%v)", e.line, e.err)
}

// filterBlock keeps the block's wanted lines.
func filterBlock(f *filter, file string, b *block) blockResult {
	t := newTally()
	kept := make([]byte, 0, len(b.data))
	var tr triple
	line := b.firstLine
	data := b.data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var l []byte
		if i < 0 {
			l, data = data, nil
		} else {
			l, data = data[:i], data[i+1:]
		}
		t.Lines++
		keep, why := f.keep(l, &tr, t)
		if why != "" {
			t.Bad.add(BadLine{File: file, Line: line, Reason: why})
		}
		if keep {
			kept = append(append(kept, l...), '\n')
		}
		line++
	}
	return blockResult{kept: kept, tally: t}
}
