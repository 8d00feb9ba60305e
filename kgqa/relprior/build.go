package relprior

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/parog/parog-go/kgqa/sft"
)

// ErrNoRelations means records carry no subgoal relations: they were
// written before sparql2plan recorded them, and must be written again.
var ErrNoRelations = errors.New("relprior: the records carry no subgoal_relations; write them again with parog sparql2plan")

// ErrEvalSplit means a record comes from a benchmark's dev or test split,
// or from no recorded split: a prior learned from it would leak the
// evaluation data into the engine.
var ErrEvalSplit = errors.New("relprior: record is not from a benchmark train split")

// Builder counts the associations of training subgoals.
type Builder struct {
	p Prior
	// Records and Learned count the records read and those that gave at
	// least one subgoal with relations.
	Records, Learned int
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{p: Prior{Version: Version, Words: map[string]int{}, Relations: map[string]map[string]int{},
		NameWords: map[string]map[string]int{}, NameTotals: map[string]int{}}}
}

// Learn counts one subgoal: its text and the relations its gold query
// uses. Capitalised words after the first are dropped from the text: in
// the renderings they are the names of entities ("Find the siblings of
// Justin Bieber"), which say nothing of the relation, and at run time the
// engine drops the anchors' names the same way.
func (b *Builder) Learn(text string, relations []string) {
	if len(relations) == 0 {
		return
	}
	words := Words(dropNames(text))
	if len(words) == 0 {
		return
	}
	b.p.Subgoals++
	vs := map[string]bool{}
	for _, r := range relations {
		for _, v := range nameWords(r) {
			vs[v] = true
		}
	}
	for v := range vs {
		b.p.NameTotals[v]++
	}
	for _, w := range words {
		b.p.Words[w]++
		rs := b.p.Relations[w]
		if rs == nil {
			rs = map[string]int{}
			b.p.Relations[w] = rs
		}
		for _, r := range relations {
			rs[r]++
		}
		nw := b.p.NameWords[w]
		if nw == nil {
			nw = map[string]int{}
			b.p.NameWords[w] = nw
		}
		for v := range vs {
			nw[v]++
		}
	}
}

// dropNames removes capitalised words after the first word of text.
func dropNames(text string) string {
	fs := strings.Fields(text)
	out := fs[:0]
	for i, f := range fs {
		r := []rune(f)
		if i > 0 && len(r) > 0 && unicode.IsUpper(r[0]) {
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// Record learns every subgoal of an SFT record that has relations, with
// the words of its text and of the question. It
// refuses a record from a dev or test split, or of no recorded split.
// With validation false, records of the validation split (a hash split
// of the train questions, kept to measure the prior) are skipped. It
// reports whether the record gave a subgoal to learn from.
func (b *Builder) Record(r *sft.Record, validation bool) (bool, error) {
	b.Records++
	if r.SourceSplit != sft.SourceTrain {
		split := r.SourceSplit
		if split == "" {
			split = "none recorded"
		}
		return false, fmt.Errorf("%w: %s (split %s)", ErrEvalSplit, r.ID, split)
	}
	if r.Split == sft.SplitValidation && !validation {
		return false, nil
	}
	if r.Plan == nil || len(r.SubgoalRelations) == 0 {
		return false, nil
	}
	learned := false
	for _, s := range r.Plan.Subgoals {
		if rels := r.SubgoalRelations[s.ID]; len(rels) > 0 {
			// The question's own words join the subgoal's: template
			// renderings are made of the relations' names, while the
			// question says "border" for location.location.adjoin_s,
			// as a planner's natural subgoal does.
			b.Learn(s.Text+" "+r.Question, rels)
			learned = true
		}
	}
	if learned {
		b.Learned++
	}
	return learned, nil
}

// Prior returns the prior counted so far, without the associations seen
// fewer than minCount times (a name's word seen once is noise, and the
// file stays small).
func (b *Builder) Prior(minCount int, source string) *Prior {
	p := &Prior{Version: Version, Source: source, Subgoals: b.p.Subgoals, Words: map[string]int{},
		Relations: map[string]map[string]int{}, NameWords: map[string]map[string]int{}, NameTotals: map[string]int{}}
	for w, n := range b.p.Words {
		if n >= minCount {
			p.Words[w] = n
		}
	}
	prune := func(in map[string]map[string]int) map[string]map[string]int {
		out := map[string]map[string]int{}
		for w, m := range in {
			if p.Words[w] == 0 {
				continue
			}
			for k, n := range m {
				if n < minCount {
					continue
				}
				if out[w] == nil {
					out[w] = map[string]int{}
				}
				out[w][k] = n
			}
		}
		return out
	}
	p.Relations, p.NameWords = prune(b.p.Relations), prune(b.p.NameWords)
	for v, n := range b.p.NameTotals {
		p.NameTotals[v] = n // every one: they are the base rates
	}
	return p
}

// ReadRecords learns every record of an SFT JSONL stream; progress, when
// set, is called after each record with the number read. A line that is
// not a record is an error naming its line.
func (b *Builder) ReadRecords(r io.Reader, name string, validation bool, progress func(int)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec sft.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("relprior: %s:%d: not an SFT record: %w", name, line, err)
		}
		if _, err := b.Record(&rec, validation); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if progress != nil {
			progress(b.Records)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("relprior: %s: %w", name, err)
	}
	return nil
}

// Write writes the prior as JSON.
func (p *Prior) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(p); err != nil {
		return fmt.Errorf("relprior: write: %w", err)
	}
	return nil
}

// Read reads a prior written by Write.
func Read(r io.Reader) (*Prior, error) {
	var p Prior
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("relprior: read: %w", err)
	}
	if p.Version != Version {
		return nil, fmt.Errorf("relprior: read: format version %d, this build reads %d", p.Version, Version)
	}
	if p.Subgoals <= 0 || len(p.Words) == 0 {
		return nil, errors.New("relprior: read: the prior learned from no subgoal")
	}
	return &p, nil
}

// Load reads the prior file at path.
func Load(path string) (*Prior, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("relprior: %w", err)
	}
	defer func() { _ = f.Close() }()
	p, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
