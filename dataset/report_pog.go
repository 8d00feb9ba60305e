package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// pogLine is a line of PoG's result files. PoG names the question field
// after the dataset ("question" for CWQ and GrailQA, "RawQuestion" for
// WebQSP).
type pogLine struct {
	Question    string          `json:"question"`
	RawQuestion string          `json:"RawQuestion"`
	Results     json.RawMessage `json:"results"`
	CallNum     int             `json:"call_num"`
	TotalToken  int             `json:"total_token"`
	InputToken  int             `json:"input_token"`
	OutputToken int             `json:"output_token"`
	Time        float64         `json:"time"`
}

// LoadRun reads a results file for a report: ours (lines with an "id"), or
// PoG's (lines with "results" and "call_num" but no "id"). PoG lines are
// matched to gold questions by their text (exact, then NormalizeName) and
// scored with s; without questions their Hits@1 is unknown and counted as
// a miss, which the run's notes say. A torn final line is noted, not an
// error.
func LoadRun(path string, questions []Question, s Scorer) (ResultSet, error) {
	run := ResultSet{Name: filepath.Base(path)}
	data, err := os.ReadFile(path)
	if err != nil {
		return run, fmt.Errorf("dataset: report: %w", err)
	}
	if isPoG(data) {
		run.Format = "pog"
		return run, loadPoG(&run, data, questions, s)
	}
	run.Format = "parog"
	rf, err := DecodeResults(bytes.NewReader(data))
	if err != nil {
		return run, fmt.Errorf("%w (file %s)", err, path)
	}
	if rf.Torn != "" {
		run.Notes = append(run.Notes, "torn final line ignored: "+rf.Torn)
	}
	run.Results = rf.Latest()
	if len(run.Results) == 0 {
		return run, fmt.Errorf("%w: no result lines (file %s)", ErrBadResults, path)
	}
	return run, nil
}

// isPoG looks at the first non-blank line.
func isPoG(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) != nil {
			return false
		}
		_, hasID := m["id"]
		_, hasResults := m["results"]
		_, hasCalls := m["call_num"]
		return !hasID && hasResults && hasCalls
	}
	return false
}

func loadPoG(run *ResultSet, data []byte, questions []Question, s Scorer) error {
	exact := map[string]*Question{}
	loose := map[string]*Question{}
	for i := range questions {
		exact[questions[i].Text] = &questions[i]
		loose[NormalizeName(questions[i].Text)] = &questions[i]
	}
	br := bufio.NewReader(bytes.NewReader(data))
	unmatched := 0
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var p pogLine
			if perr := json.Unmarshal(line, &p); perr != nil {
				if errors.Is(err, io.EOF) {
					run.Notes = append(run.Notes, fmt.Sprintf("torn final line %d ignored", lineNo))
					break
				}
				return fmt.Errorf("%w: PoG line %d: %v", ErrBadResults, lineNo, perr)
			}
			r := pogResult(p, lineNo)
			q := exact[r.Question]
			if q == nil {
				q = loose[NormalizeName(r.Question)]
			}
			if q != nil {
				r.ID, r.Type, r.Gold = q.ID, q.Label, goldNames(q)
				items := AnswerItems(r.Results)
				pred := make([]PredEntity, 0, len(items))
				for _, it := range items {
					pred = append(pred, PredEntity{Name: it})
				}
				r.Entities = pred
				sc := s.Score(*q, pred)
				r.Hit, r.F1, r.Prediction = sc.Hit, sc.F1, sc.Top
			} else {
				unmatched++
			}
			run.Results = append(run.Results, r)
		}
		if err != nil {
			break
		}
	}
	if len(run.Results) == 0 {
		return fmt.Errorf("%w: no PoG result lines", ErrBadResults)
	}
	if unmatched > 0 {
		if len(questions) == 0 {
			run.Notes = append(run.Notes, "PoG results scored as misses: pass --dataset and --input to score them against the gold answers")
		} else {
			run.Notes = append(run.Notes, fmt.Sprintf("%d PoG lines match no question of the input; scored as misses", unmatched))
		}
	}
	return nil
}

func pogResult(p pogLine, lineNo int) Result {
	q := p.Question
	if q == "" {
		q = p.RawQuestion
	}
	return Result{
		Question: q, Results: resultsText(p.Results), CallNum: p.CallNum,
		TotalToken: p.TotalToken, InputToken: p.InputToken, OutputToken: p.OutputToken,
		Time: p.Time, ID: fmt.Sprintf("pog-line-%d", lineNo),
	}
}

// resultsText reads PoG's "results", a string in most files and a list in
// some.
func resultsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return "{" + strings.Join(list, "}, {") + "}"
	}
	return strings.TrimSpace(string(raw))
}
