package fbimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"
)

// read cuts the decompressed dump into blocks of whole lines that never
// straddle a shard, skipping the shards already done, and hands each block
// to the workers and, in order, to the writer. A damaged input ends the
// reading with a *truncatedError after the whole lines before the damage
// were handed on.
func (p *pipeline) read(ctx context.Context, zr io.Reader, work, ordered chan<- *block) error {
	line := int64(1) // the next line's number
	shard, inShard := 0, int64(0)
	var carry []byte
	for {
		buf := make([]byte, len(carry), len(carry)+blockSize)
		copy(buf, carry)
		n, err := fill(zr, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		eof := errors.Is(err, io.EOF)
		// The whole lines read before damage still go out, so that a
		// shard they complete is kept.
		damaged := err != nil && !eof
		for len(buf) > 0 {
			cut, lines := cutLines(buf, p.o.ShardLines-inShard, eof)
			if cut == 0 {
				break // a partial line: read on
			}
			b := &block{shard: shard, firstLine: line, data: buf[:cut]}
			buf = buf[cut:]
			line += lines
			inShard += lines
			b.endShard = inShard == p.o.ShardLines || (eof && len(buf) == 0)
			if shard >= p.done {
				if err := send(ctx, b, work, ordered); err != nil {
					return err
				}
			}
			if inShard == p.o.ShardLines {
				shard, inShard = shard+1, 0
			}
		}
		carry = buf
		if damaged {
			return &truncatedError{line: line - 1, err: err}
		}
		if eof {
			return nil
		}
	}
}

// cutLines returns the length of the leading whole lines of buf, at most
// max of them, and how many there are. At the end of the input an
// unterminated last line counts as a line.
func cutLines(buf []byte, max int64, eof bool) (int, int64) {
	n := int64(bytes.Count(buf, []byte{'\n'}))
	if n < max {
		if eof {
			if buf[len(buf)-1] != '\n' {
				n++
			}
			return len(buf), n
		}
		return bytes.LastIndexByte(buf, '\n') + 1, n
	}
	cut := 0
	for range max {
		cut += bytes.IndexByte(buf[cut:], '\n') + 1
	}
	return cut, max
}

func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func send(ctx context.Context, b *block, work, ordered chan<- *block) error {
	b.result = make(chan blockResult, 1)
	for _, ch := range []chan<- *block{ordered, work} {
		select {
		case ch <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// write appends the filtered blocks, in input order, to their shards.
func (p *pipeline) write(ctx context.Context, ordered <-chan *block) error {
	var cur *shardWriter
	defer func() {
		if cur != nil {
			cur.abort()
		}
	}()
	for b := range ordered {
		var res blockResult
		select {
		case res = <-b.result:
		case <-ctx.Done():
			return ctx.Err()
		}
		if cur == nil {
			var err error
			if cur, err = p.openShard(b.shard, b.firstLine); err != nil {
				return err
			}
		}
		if err := cur.write(res); err != nil {
			return err
		}
		if b.endShard {
			if err := p.finishShard(cur); err != nil {
				return err
			}
			cur = nil
		}
	}
	return nil
}

// shardWriter writes one shard into a temporary file.
type shardWriter struct {
	index int
	path  string
	f     *os.File
	zw    *gzip.Writer
	rep   ShardReport
}

func (p *pipeline) openShard(i int, firstLine int64) (*shardWriter, error) {
	path := filepath.Join(p.outDir, shardName(i))
	f, err := p.o.create(path + ".tmp")
	if err != nil {
		return nil, fmt.Errorf("fbimport: dump: create %s: %w", path, diskHint(err))
	}
	zw, err := gzip.NewWriterLevel(f, p.o.Level)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("fbimport: dump: %w", err)
	}
	return &shardWriter{index: i, path: path, f: f, zw: zw,
		rep: ShardReport{File: shardName(i), FirstLine: firstLine, Tally: newTally()}}, nil
}

func (s *shardWriter) write(res blockResult) error {
	s.rep.Tally.add(res.tally)
	if _, err := s.zw.Write(res.kept); err != nil {
		return fmt.Errorf("fbimport: dump: write %s: %w", s.path, diskHint(err))
	}
	return nil
}

// abort removes the unfinished shard.
func (s *shardWriter) abort() {
	_ = s.f.Close()
	_ = os.Remove(s.path + ".tmp")
}

// finishShard closes the shard, renames it into place, then writes its
// report, which is what marks it done.
func (p *pipeline) finishShard(s *shardWriter) error {
	fail := func(err error) error {
		s.abort()
		return fmt.Errorf("fbimport: dump: write %s: %w", s.path, diskHint(err))
	}
	if err := s.zw.Close(); err != nil {
		return fail(err)
	}
	if err := s.f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(s.path+".tmp", s.path); err != nil {
		return fail(err)
	}
	b, err := json.MarshalIndent(s.rep, "", "  ")
	if err != nil {
		return fmt.Errorf("fbimport: dump: %w", err)
	}
	if err := writeAtomicallyWith(p.o.create, filepath.Join(p.outDir, shardReportName(s.index)), 0, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}); err != nil {
		return err
	}
	p.rep.Shards = append(p.rep.Shards, s.rep)
	p.rep.Tally.add(s.rep.Tally)
	return nil
}
