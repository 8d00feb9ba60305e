package densify

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
)

// shardWriter writes N-Triples lines into part-NNNNN.nt.gz files of at
// most perShard lines each. A shard appears under its name only when it
// is complete.
type shardWriter struct {
	dir      string
	perShard int64
	f        *os.File
	gz       *gzip.Writer
	bw       *bufio.Writer
	inShard  int64
	total    int64
	shards   []string
	onLine   func(total int64)
}

func (w *shardWriter) open() error {
	name := filepath.Join(w.dir, fmt.Sprintf("part-%05d.nt.gz", len(w.shards)))
	f, err := os.Create(name + ".tmp")
	if err != nil {
		return fmt.Errorf("densify: %w", err)
	}
	w.f = f
	w.gz, _ = gzip.NewWriterLevel(f, gzip.BestSpeed)
	w.bw = bufio.NewWriterSize(w.gz, 1<<20)
	w.shards = append(w.shards, name)
	w.inShard = 0
	return nil
}

// line writes one N-Triples line (without its newline).
func (w *shardWriter) line(s string) error {
	if w.f == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	_, _ = w.bw.WriteString(s)
	if err := w.bw.WriteByte('\n'); err != nil {
		return fmt.Errorf("densify: write %s: %w", w.shards[len(w.shards)-1], err)
	}
	w.inShard++
	w.total++
	if w.onLine != nil && w.total%100_000 == 0 {
		w.onLine(w.total)
	}
	if w.inShard >= w.perShard {
		return w.closeShard()
	}
	return nil
}

// triple writes <NS+s> <NS+p> obj . where obj is already in N-Triples form.
func (w *shardWriter) triple(s, p, obj string) error {
	return w.line("<" + NS + s + "> <" + NS + p + "> " + obj + " .")
}

func (w *shardWriter) closeShard() error {
	if w.f == nil {
		return nil
	}
	name := w.shards[len(w.shards)-1]
	err := w.bw.Flush()
	if e := w.gz.Close(); err == nil {
		err = e
	}
	if e := w.f.Close(); err == nil {
		err = e
	}
	w.f = nil
	if err == nil {
		err = os.Rename(name+".tmp", name)
	}
	if err != nil {
		return fmt.Errorf("densify: write %s: %w", name, err)
	}
	return nil
}

// abort removes the shard being written.
func (w *shardWriter) abort() {
	if w.f != nil {
		_ = w.f.Close()
		_ = os.Remove(w.shards[len(w.shards)-1] + ".tmp")
		w.f = nil
	}
}
