// Package finetune turns sparql2plan's SFT records (sft.Record) into the
// files that training tools read (LLaMA-Factory, OpenAI fine-tuning, Hugging
// Face datasets), and measures how well a served planner reproduces the gold
// plans of held-out questions.
package finetune

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/parog/parog-go/kgqa/sft"
)

// maxLineBytes bounds one JSONL record; a plan of 16 subgoals with a long
// system prompt is far below it.
const maxLineBytes = 4 << 20

// LineError is a record that could not be read or validated.
type LineError struct {
	// Line is the 1-based line number in the input.
	Line int `json:"line"`
	// ID is the record id when it could be decoded.
	ID string `json:"id,omitempty"`
	// Reason says what was wrong.
	Reason string `json:"reason"`
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// ReadResult is what ReadRecords found.
type ReadResult struct {
	// Records are the valid records, in input order.
	Records []*sft.Record
	// Invalid lists the records that were rejected, in input order.
	Invalid []LineError
}

// ReadRecords reads JSONL records, validating each. Blank lines are
// skipped. A malformed or invalid record, or a repeated id, is listed in
// Invalid and the read goes on; only an I/O error stops it.
func ReadRecords(r io.Reader) (*ReadResult, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	res := &ReadResult{}
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var rec sft.Record
		if err := json.Unmarshal(text, &rec); err != nil {
			res.Invalid = append(res.Invalid, LineError{Line: line, Reason: "malformed JSON: " + err.Error()})
			continue
		}
		if err := rec.Validate(); err != nil {
			res.Invalid = append(res.Invalid, LineError{Line: line, ID: rec.ID, Reason: strings.TrimPrefix(err.Error(), sft.ErrInvalidRecord.Error()+": ")})
			continue
		}
		if first, dup := seen[rec.ID]; dup {
			res.Invalid = append(res.Invalid, LineError{Line: line, ID: rec.ID, Reason: fmt.Sprintf("duplicate id %q (first on line %d)", rec.ID, first)})
			continue
		}
		seen[rec.ID] = line
		res.Records = append(res.Records, &rec)
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("finetune: read records: line %d: %w", line+1, err)
	}
	return res, nil
}
