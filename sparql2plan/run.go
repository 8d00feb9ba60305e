package sparql2plan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/parog/parog-go/kgqa/sft"
	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"
)

// RunOptions configures Run.
type RunOptions struct {
	// Questions loads the benchmark's questions: the caller reads the
	// file (parog sparql2plan with package dataset). Run calls it once,
	// after it has read the output it resumes; malformed is the number of
	// records the loader left out, which the stats count.
	Questions func(ctx context.Context) (qs []Pair, malformed int, err error)
	// Out is the JSONL file records are appended to. Ids already in it
	// are skipped (resume).
	Out string
	// Teacher, when set, renders subgoals with an LLM.
	Teacher *Teacher
	// SourceSplit is the benchmark split of Input (train, dev or test),
	// recorded in every record.
	SourceSplit string
	// UseBackTranslation trains on the back-translated question.
	UseBackTranslation bool
	// MinConsistency drops teacher-rendered records whose back-translation
	// consistency (token F1 with the original question) is below it; 0
	// keeps all.
	MinConsistency float64
	// Concurrency bounds teacher calls in flight (default 4).
	Concurrency int
	// Rate bounds teacher questions started per second (0: unlimited).
	Rate float64
	// ValidationPercent of ids go to the validation split (default 5).
	ValidationPercent int
	// Progress, when set, is told the total and each finished question.
	Progress Progress
}

// Progress receives progress updates.
type Progress interface {
	// Start announces the number of questions.
	Start(total int)
	// Done is called once per question handled.
	Done()
}

// Run converts a benchmark's questions into SFT records appended to
// opts.Out and returns the run's stats. A crash loses at most the records
// in flight: each record is one write of one line, and a torn last line
// left by a crash is cut off when the next run resumes.
func Run(ctx context.Context, opts RunOptions) (*Stats, error) {
	if opts.Questions == nil {
		return nil, errors.New("sparql2plan: run: no questions to load")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.ValidationPercent == 0 {
		opts.ValidationPercent = 5
	}
	stats := NewStats()
	stats.MinConsistency = opts.MinConsistency
	dedup := NewDeduper()
	done, err := resumeState(opts.Out, dedup, stats)
	if err != nil {
		return nil, err
	}
	qs, malformed, err := opts.Questions(ctx)
	if err != nil {
		return nil, err
	}
	stats.Malformed = malformed
	if opts.Progress != nil {
		opts.Progress.Start(len(qs))
	}
	out, err := os.OpenFile(opts.Out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sparql2plan: open output: %w", err)
	}
	defer out.Close()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	r := &runner{opts: opts, w: &recordWriter{f: out, stats: stats}, done: done, dedup: dedup, g: g, gctx: gctx}
	if opts.Rate > 0 {
		r.limiter = rate.NewLimiter(rate.Limit(opts.Rate), 1)
	}
	derr := r.each(qs)
	werr := g.Wait()
	if derr != nil {
		return stats, derr
	}
	return stats, werr
}

// runner handles the questions of one Run as the decoder yields them.
type runner struct {
	opts    RunOptions
	w       *recordWriter
	done    map[string]bool
	dedup   *Deduper
	limiter *rate.Limiter
	g       *errgroup.Group
	gctx    context.Context
}

func (r *runner) tick() {
	if r.opts.Progress != nil {
		r.opts.Progress.Done()
	}
}

// each hands the questions to question in order, and stops when the run's
// context is done or a question fails.
func (r *runner) each(qs []Pair) error {
	for _, q := range qs {
		if err := r.gctx.Err(); err != nil {
			return fmt.Errorf("sparql2plan: run: %w", err)
		}
		if err := r.question(q); err != nil {
			return err
		}
	}
	return nil
}

// question converts q and writes its record: at once with the template
// rendering, or on the errgroup once the teacher has rendered it.
func (r *runner) question(q Pair) error {
	c := r.convert(q)
	if c == nil {
		r.tick()
		return nil
	}
	if r.opts.Teacher == nil {
		defer r.tick()
		return r.w.write(q, c, nil, r.opts)
	}
	r.g.Go(func() error {
		defer r.tick()
		if r.limiter != nil {
			if err := r.limiter.Wait(r.gctx); err != nil {
				return err
			}
		}
		tr, _ := r.opts.Teacher.Render(r.gctx, q, c) // a failure is kept in tr.Err
		if r.gctx.Err() != nil {
			return r.gctx.Err()
		}
		return r.w.write(q, c, tr, r.opts)
	})
	return nil
}

// convert counts q and returns its conversion, or nil when q was written
// by an earlier run, does not convert, or repeats an earlier question. A
// question an earlier run wrote is converted again (conversion is cheap and
// deterministic) so that a resumed run's figures cover every question, as
// one uninterrupted run's would.
func (r *runner) convert(q Pair) *Conversion {
	stats := r.w.stats
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	stats.Input++
	c, err := Convert(q)
	if err != nil {
		stats.AddFailure(err)
		return nil
	}
	agree, checked := LabelAgrees(q.Source, q.Label, c.Plan)
	stats.AddConversion(c, q.Label, agree, checked)
	if r.done[q.ID] {
		stats.Resumed++
		return nil
	}
	if r.dedup.Seen(q.ID, q.Text) {
		stats.Duplicates++
		return nil
	}
	return c
}

type recordWriter struct {
	mu    sync.Mutex
	f     io.Writer
	stats *Stats
}

func (w *recordWriter) write(q Pair, c *Conversion, tr *TeacherRendering, opts RunOptions) error {
	if tr != nil && tr.Err == "" && tr.Consistency < opts.MinConsistency {
		w.mu.Lock()
		w.stats.Inconsistent++
		w.mu.Unlock()
		return nil
	}
	rec, err := NewRecord(q, c, tr, opts.UseBackTranslation, opts.ValidationPercent)
	if err != nil {
		w.mu.Lock()
		w.stats.AddFailure(err)
		w.mu.Unlock()
		return nil
	}
	rec.SourceSplit = opts.SourceSplit
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("sparql2plan: encode record %s: %w", q.ID, err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("sparql2plan: write record %s: %w", q.ID, err)
	}
	w.stats.AddRecord(rec)
	return nil
}

// resumeState reads the ids and questions already written to path, counts
// those records in stats, and cuts a torn last line (a crash mid-write) so
// appends stay readable.
func resumeState(path string, dedup *Deduper, stats *Stats) (map[string]bool, error) {
	done := map[string]bool{}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sparql2plan: read output for resume: %w", err)
	}
	if n := bytes.LastIndexByte(data, '\n') + 1; n < len(data) {
		if err := os.Truncate(path, int64(n)); err != nil {
			return nil, fmt.Errorf("sparql2plan: cut torn last line: %w", err)
		}
		data = data[:n]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var r sft.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.ID == "" {
			return nil, fmt.Errorf("sparql2plan: %s line %d is not a record; refusing to append to it", path, line)
		}
		done[r.ID] = true
		dedup.Seen(r.ID, r.Question)
		stats.addFileRecord(&r)
	}
	return done, sc.Err()
}
