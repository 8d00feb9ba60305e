package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa/ui"
)

// MaxHTMLTraces bounds the traces an HTML report embeds per run: those of
// the first failed questions, so that the page stays small enough to open.
const MaxHTMLTraces = 300

// HTMLReport is the data of the HTML report (see WriteHTML): the report,
// and per run the result lines it draws distributions, transitions and the
// failure table from.
type HTMLReport struct {
	// Report is the report as `parog eval report --json` writes it.
	Report Report `json:"report"`
	// Runs holds the lines of each run, in the order of Report.Runs.
	Runs []HTMLRun `json:"runs"`
}

// HTMLRun is the result lines of one run.
type HTMLRun struct {
	// Rows are the run's result lines.
	Rows []HTMLRow `json:"rows"`
	// TracesOmitted counts failed lines whose trace was left out (over
	// MaxHTMLTraces).
	TracesOmitted int `json:"traces_omitted,omitempty"`
}

// HTMLRow is one result line as the report page reads it (the field names
// of Result).
type HTMLRow struct {
	ID           string          `json:"id,omitempty"`
	Question     string          `json:"question"`
	Type         string          `json:"type,omitempty"`
	Prediction   string          `json:"prediction,omitempty"`
	Gold         []string        `json:"gold,omitempty"`
	Hit          bool            `json:"hit"`
	TentativeHit *bool           `json:"tentative_hit,omitempty"`
	Error        string          `json:"error,omitempty"`
	ErrorKind    string          `json:"error_kind,omitempty"`
	CallNum      int             `json:"call_num"`
	TotalToken   int             `json:"total_token"`
	Trace        json.RawMessage `json:"trace,omitempty"`
	// PoGHit is the outcome under PoG's rule, shown beside the strict one.
	PoGHit *bool `json:"pog_hit,omitempty"`
	// ReasoningChains are a PoG row's chains of triples.
	ReasoningChains json.RawMessage `json:"reasoning_chains,omitempty"`
}

// NewHTMLReport pairs rep with the lines of runs (the ResultSets rep was
// built from, in the same order). Only failed lines keep their trace, at
// most MaxHTMLTraces per run.
func NewHTMLReport(rep Report, runs []ResultSet) HTMLReport {
	h := HTMLReport{Report: rep, Runs: make([]HTMLRun, len(runs))}
	for i, run := range runs {
		traces := 0
		for _, r := range run.Results {
			row := HTMLRow{ID: r.ID, Question: r.Question, Type: r.Type, Prediction: r.Prediction, Gold: r.Gold,
				Hit: r.Hit, TentativeHit: r.TentativeHit, Error: r.Error, ErrorKind: r.ErrorKind,
				CallNum: r.CallNum, TotalToken: r.TotalToken, PoGHit: r.PoGHit, ReasoningChains: run.Chains[r.Question]}
			if row.Prediction == "" && run.Format == "pog" {
				row.Prediction = r.Results
			}
			if !r.Hit && len(r.Trace) > 0 {
				if traces < MaxHTMLTraces {
					row.Trace = r.Trace
					traces++
				} else {
					h.Runs[i].TracesOmitted++
				}
			}
			h.Runs[i].Rows = append(h.Runs[i].Rows, row)
		}
	}
	return h
}

// WriteHTML writes h as one self-contained page: per-type Hits@1 with
// confidence intervals, the distributions of calls and tokens per question
// (each run's, PoG's beside ours when a PoG file is among the runs),
// refinement transitions and a failure table that opens each question's
// trace. It draws with the trace viewer's code.
func (h HTMLReport) WriteHTML(w io.Writer) error {
	title := "PARoG evaluation report"
	switch h.Report.Dataset {
	case "":
	case "mixed":
		var names []string
		for _, r := range h.Report.Runs {
			if r.Dataset != "" && !slices.Contains(names, r.Dataset) {
				names = append(names, r.Dataset)
			}
		}
		title += ": mixed datasets (" + strings.Join(names, ", ") + ")"
	default:
		title += ": " + h.Report.Dataset
	}
	if err := ui.WriteReport(w, title, h); err != nil {
		return fmt.Errorf("dataset: html report: %w", err)
	}
	return nil
}
