package report

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

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/pogrule"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/internal/naming"
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
	// ReasoningChains are PoG's chains of triples behind the answer.
	ReasoningChains json.RawMessage `json:"reasoning_chains"`
}

// Gold is what a report scores runs against.
type Gold struct {
	// Questions are the benchmark's questions with their gold answers
	// (strict rule); nil leaves PoG files unscored.
	Questions []dataset.Question
	// Scorer is the strict rule, with its aliases.
	Scorer score.Scorer
	// PoG are the gold names of PoG's scoring rule; nil skips that rule.
	PoG pogrule.PoGGold
}

// LoadRun reads a results file for a report: ours (lines with an "id"), or
// PoG's (lines with "results" and "call_num" but no "id"). A torn final
// line is noted, not an error. PoG lines are read as PoG's own script
// reads them (one row per question text, the last line winning), matched
// to gold questions by their text (exact, then naming.Canonical) and scored
// by the strict rule and, when g.PoG is set, by PoG's rule (Result.PoGHit).
// Without gold their Hits@1 is unknown and ResultSet.Unscored is set.
func LoadRun(path string, g Gold) (ResultSet, error) {
	run := ResultSet{Name: filepath.Base(path), Dataset: DatasetFromName(path)}
	data, err := os.ReadFile(path)
	if err != nil {
		return run, fmt.Errorf("dataset: report: %w", err)
	}
	if isPoG(data) {
		run.Format = "pog"
		return run, loadPoG(&run, data, g)
	}

	run.Format = "parog"
	rf, err := eval.DecodeResults(bytes.NewReader(data))
	if err != nil {
		return run, fmt.Errorf("%w (file %s)", err, path)
	}
	if rf.Torn != "" {
		run.Notes = append(run.Notes, "torn final line ignored: "+rf.Torn)
	}
	run.Results = rf.Latest()
	if len(run.Results) == 0 {
		return run, fmt.Errorf("%w: no result lines (file %s)", eval.ErrBadResults, path)
	}
	if g := GuessDataset([]ResultSet{run}); run.Dataset == "" && g != "?" {
		run.Dataset = g
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

// readPoGLines reads PoG's lines, one per question text: a repeated
// question keeps its first position and its last line, as PoG's script
// does.
func readPoGLines(run *ResultSet, data []byte) ([]eval.Result, error) {
	var out []eval.Result
	at := map[string]int{}
	br := bufio.NewReader(bytes.NewReader(data))
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var p pogLine
			if perr := json.Unmarshal(line, &p); perr != nil {
				if errors.Is(err, io.EOF) {
					run.Notes = append(run.Notes, fmt.Sprintf("torn final line %d ignored", lineNo))
					break
				}
				return nil, fmt.Errorf("%w: PoG line %d: %v", eval.ErrBadResults, lineNo, perr)
			}
			r := pogResult(p, lineNo)
			if len(p.ReasoningChains) > 0 && string(p.ReasoningChains) != "null" {
				if run.Chains == nil {
					run.Chains = map[string]json.RawMessage{}
				}
				run.Chains[r.Question] = p.ReasoningChains
			}
			if i, ok := at[r.Question]; ok {
				r.ID = out[i].ID
				out[i] = r
			} else {
				at[r.Question] = len(out)
				out = append(out, r)
			}
		}
		if err != nil {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no PoG result lines", eval.ErrBadResults)
	}
	return out, nil
}

func loadPoG(run *ResultSet, data []byte, g Gold) error {
	rs, err := readPoGLines(run, data)
	if err != nil {
		return err
	}
	exact := map[string]*dataset.Question{}
	loose := map[string]*dataset.Question{}
	for i := range g.Questions {
		q := &g.Questions[i]
		if exact[q.Text] == nil {
			exact[q.Text] = q
		}
		if n := naming.Canonical(q.Text); loose[n] == nil {
			loose[n] = q
		}
	}
	rule := &pogrule.PoGRule{Gold: g.PoG}
	unmatched, ruleErrs := 0, 0
	for i := range rs {
		r := &rs[i]
		if g.PoG != nil {
			hit, err := rule.ScoreResults(r.Question, r.Results)
			if err != nil {
				ruleErrs++
			}
			r.PoGHit = &hit
		}
		q := exact[r.Question]
		if q == nil {
			q = loose[naming.Canonical(r.Question)]
		}
		if q == nil {
			unmatched++
			continue
		}
		r.ID, r.Type, r.Gold = q.ID, q.Label, q.GoldNames()
		for _, it := range pogrule.ParsePoGAnswer(r.Results).Answers {
			r.Entities = append(r.Entities, score.PredEntity{Name: it})
		}
		sc := g.Scorer.Score(*q, r.Entities)
		r.Hit, r.F1, r.Prediction = sc.Hit, sc.F1, sc.Top
	}
	run.Results = rs
	switch {
	case len(g.Questions) == 0:
		run.Unscored = true
		run.Notes = append(run.Notes, "PoG results not scored: give --input (the gold answers) to score them")
	case unmatched > 0:
		run.Notes = append(run.Notes, fmt.Sprintf("%d PoG lines match no question of the input; scored as misses", unmatched))
	}
	if ruleErrs > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("PoG's script would stop on %d rows (no gold record, or no answer and no earlier row); counted as misses by the pog rule", ruleErrs))
	}
	return nil
}

func pogResult(p pogLine, lineNo int) eval.Result {
	q := p.Question
	if q == "" {
		q = p.RawQuestion
	}
	return eval.Result{
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

// DatasetFromName guesses the benchmark from a file name: "cwq" or
// "complexwebquestions", "webqsp" or "wqsp", "grailqa" ("" when none or
// several appear). PoG names its files PoG_<dataset>_<model>.jsonl.
func DatasetFromName(path string) string {
	base := strings.ToLower(filepath.Base(path))
	found := ""
	for _, c := range []struct{ name, ds string }{
		{"complexwebquestions", "cwq"}, {"cwq", "cwq"}, {"webqsp", "webqsp"}, {"wqsp", "webqsp"}, {"grailqa", "grailqa"},
		{"webquestions", "webquestions"}, {"simpleqa", "simplequestions"}, {"simplequestions", "simplequestions"}, {"qald", "qald"},
	} {
		if c.ds == "webquestions" && strings.Contains(base, "complexwebquestions") {
			continue
		}
		if strings.Contains(base, c.name) {
			if found != "" && found != c.ds {
				return ""
			}
			found = c.ds
		}
	}
	return found
}
