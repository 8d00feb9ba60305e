package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
)

// Result is one line of a results file: the outcome of one question under
// one seed. The first fields are those of PoG's result files, so tools
// written for them read ours; the rest are PARoG's.
//
// One file holds every seed of a run; Seed tells them apart (null when the
// run passed no seed). The key of a line is (ID, Seed); when a key occurs
// twice (a failed question retried with --retry-failed) the last line wins.
type Result struct {
	// Question is the question text (PoG: "question").
	Question string `json:"question"`
	// RawQuestion repeats the text on WebQSP rows, where PoG's files and
	// its eval.py name it so (empty, and left out, elsewhere).
	RawQuestion string `json:"RawQuestion,omitempty"`
	// Results is the final answer text (PoG: "results").
	Results string `json:"results"`
	// CallNum is the number of LLM calls (PoG: "call_num").
	CallNum int `json:"call_num"`
	// TotalToken, InputToken and OutputToken count LLM tokens (PoG's
	// names; input = prompt, output = completion).
	TotalToken  int `json:"total_token"`
	InputToken  int `json:"input_token"`
	OutputToken int `json:"output_token"`
	// Time is the question's wall time in seconds (PoG: "time").
	Time float64 `json:"time"`

	// ID is the dataset's question id.
	ID string `json:"id"`
	// Seed is the sampling seed passed to the engine; nil for none.
	Seed *int `json:"seed"`
	// Type is the dataset's structure label (CWQ compositionality_type,
	// GrailQA function, demo type).
	Type string `json:"type,omitempty"`
	// Gold are the gold answers' names (ids when unnamed), for reading.
	Gold []string `json:"gold,omitempty"`
	// Prediction is the top prediction scored for Hits@1 ("" when none).
	Prediction string `json:"prediction"`
	// Entities is the ranked predicted answer set.
	Entities []score.PredEntity `json:"entities"`
	// Hit is Hits@1 under this package's matching rules.
	Hit bool `json:"hit"`
	// PoGHit is Hits@1 under PoG's scoring rule (see PoGRule); a report
	// sets it when it has PoG's gold names, a run never writes it.
	PoGHit *bool `json:"pog_hit,omitempty"`
	// ToGHit is Hits@1 under Think-on-Graph's scoring rule (score.ToGHit),
	// set for the benchmarks ToG's script scores (WebQuestions,
	// SimpleQuestions, QALD-10); a report lists it beside the strict rule.
	ToGHit *bool `json:"tog_hit,omitempty"`
	// F1 is the answer-set F1.
	F1 float64 `json:"f1"`
	// Tentative is the question's parametric (pre-retrieval) answer, and
	// TentativeHit whether it was already right; both empty when the
	// engine gave none. TentativeNames are the names scored, when the
	// engine composed them (kgqa.TentativeAnswer); a rescore reads them
	// rather than the text. TentativeNotDerivable says why a question has
	// no tentative answer (filter, compare and superlative plans).
	Tentative             string   `json:"tentative,omitempty"`
	TentativeHit          *bool    `json:"tentative_hit,omitempty"`
	TentativeNames        []string `json:"tentative_names,omitempty"`
	TentativeNotDerivable string   `json:"tentative_not_derivable,omitempty"`
	// AnsweredWithoutKG marks an answer from the model's own knowledge
	// (no topic entity in the KG, or no fact found); reports count these
	// apart.
	AnsweredWithoutKG bool `json:"answered_without_kg,omitempty"`
	// SPARQLQueries is the number of SPARQL queries sent.
	SPARQLQueries int64 `json:"sparql_queries"`
	// CertificateVerified says whether the answer's certificate query,
	// run on the KG, returned the answer (nil when the row has none);
	// CertificateCovers is its coverage (all, partial, none) and
	// CertificateSPARQL its query.
	CertificateVerified *bool  `json:"certificate_verified,omitempty"`
	CertificateCovers   string `json:"certificate_covers,omitempty"`
	CertificateSPARQL   string `json:"certificate_sparql,omitempty"`
	// CertificateEquivalent says whether the certificate's answers on the
	// KG equal the gold query's, where the question has gold SPARQL;
	// CertificateDisagreement classifies a difference (see
	// Disagreements).
	CertificateEquivalent   *bool  `json:"certificate_equivalent,omitempty"`
	CertificateDisagreement string `json:"certificate_disagreement,omitempty"`
	// Plan is the executed plan (JSON).
	Plan json.RawMessage `json:"plan,omitempty"`
	// Trace is the engine's trace (JSON).
	Trace json.RawMessage `json:"trace,omitempty"`
	// Verdicts are the per-subgoal refinement outcomes.
	Verdicts []SubgoalVerdict `json:"verdicts,omitempty"`
	// Recoveries are the judgements the engine revisited while answering
	// (kgqa.Answer.Recoveries), which the reports count.
	Recoveries []kgqa.Recovery `json:"recoveries,omitempty"`
	// Error is the failure text; a failed question is a miss.
	Error string `json:"error,omitempty"`
	// ErrorKind classifies Error for the failure report (see ErrorKind).
	ErrorKind string `json:"error_kind,omitempty"`
}

// SubgoalVerdict is what a results row keeps of one subgoal's refinement
// (a refine.Verdict reduced to what reports read).
type SubgoalVerdict struct {
	// Subgoal is the subgoal id.
	Subgoal string `json:"subgoal"`
	// Answer is true for the subgoal whose result answers the question.
	Answer bool `json:"answer,omitempty"`
	// Tentative is the parametric answer before retrieval.
	Tentative string `json:"tentative,omitempty"`
	// Aligned is the refiner's judgement that the evidence fits the
	// subgoal; nil when no refinement ran.
	Aligned *bool `json:"aligned,omitempty"`
	// Corrected is true when refinement changed the tentative answer.
	Corrected bool `json:"corrected"`
	// Final is the subgoal's answer after refinement.
	Final string `json:"final,omitempty"`
}

// Key identifies a result line: a question under a seed.
type Key struct {
	// ID is the question id.
	ID string
	// Seed is the seed, or NoSeed.
	Seed int
}

// NoSeed stands for "no seed passed" in a Key.
const NoSeed = -1 << 62

// KeyOf returns the key of r.
func (r *Result) KeyOf() Key { return MakeKey(r.ID, r.Seed) }

// MakeKey returns the key of question id under seed (nil for none).
func MakeKey(id string, seed *int) Key {
	if seed == nil {
		return Key{ID: id, Seed: NoSeed}
	}
	return Key{ID: id, Seed: *seed}
}

// ResultWriter appends result lines to a file. Each line is marshalled
// whole and written with one write(2) call on a file opened O_APPEND, then
// synced, so a process killed at any instant leaves whole lines and at most
// one torn final line (which ReadResults detects). Safe for concurrent use.
type ResultWriter struct {
	mu   sync.Mutex
	f    *os.File
	sync bool
}

// CreateResultWriter opens path for appending, creating it when missing.
// With sync set every line is fsynced before Write returns.
func CreateResultWriter(path string, sync bool) (*ResultWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dataset: results: %w", err)
	}
	return &ResultWriter{f: f, sync: sync}, nil
}

// Write appends r as one line.
func (w *ResultWriter) Write(r *Result) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("dataset: results: encode %s: %w", r.ID, err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("dataset: results: write: %w", err)
	}
	if w.sync {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("dataset: results: sync: %w", err)
		}
	}
	return nil
}

// Close closes the file.
func (w *ResultWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("dataset: results: close: %w", err)
	}
	return nil
}

// ResultFile is what ReadResults found in a results file.
type ResultFile struct {
	// Results are the well-formed lines in file order.
	Results []Result
	// Torn describes an unreadable final line (a write cut short by a
	// crash); empty when the file ends cleanly.
	Torn string
	// GoodBytes is the length of the well-formed prefix of the file.
	GoodBytes int64
}

// Latest returns the last result per key, in order of first appearance.
func (rf *ResultFile) Latest() []Result {
	idx := map[Key]int{}
	var out []Result
	for _, r := range rf.Results {
		k := r.KeyOf()
		if i, ok := idx[k]; ok {
			out[i] = r
			continue
		}
		idx[k] = len(out)
		out = append(out, r)
	}
	return out
}

// ErrBadResults is wrapped by errors about a results file's content.
var ErrBadResults = errors.New("dataset: bad results file")

// linePrefix starts every line ResultWriter writes (Question is the first
// field of Result). Only a line with this prefix is taken for a torn write;
// anything else is an error, so a file that is not ours (say an input file
// given as --out by mistake) is never truncated.
var linePrefix = []byte(`{"question":`)

// maxLine bounds one result line (plans and traces included).
const maxLine = 64 << 20

// ReadResults reads a results file. A final line of ours that is cut
// short or does not parse is reported in Torn, not as an error: a crash
// mid-write can leave one. An unreadable line anywhere else is an error naming its line
// number. A missing file, a device or a pipe reads as empty.
func ReadResults(path string) (*ResultFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &ResultFile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: results: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		// A device or a pipe (an --out forced onto one) holds no earlier
		// results: /dev/full reads as endless zeros.
		return &ResultFile{}, nil
	}
	rf, err := DecodeResults(f)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return rf, nil
}

// DecodeResults reads result lines from r (see ReadResults).
func DecodeResults(r io.Reader) (*ResultFile, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	rf := &ResultFile{}
	var pendingErr error
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line, err = readLong(br, line)
		}
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("dataset: results: line %d: %w", lineNo, err)
		}
		complete := len(line) > 0 && line[len(line)-1] == '\n'
		if pendingErr != nil {
			// The bad line was not the last one.
			return nil, pendingErr
		}
		res, perr := parseResultLine(line)
		switch {
		case perr == nil && complete:
			rf.Results = append(rf.Results, res)
			rf.GoodBytes += int64(len(line))
		case !complete && bytes.HasPrefix(line, linePrefix):
			rf.Torn = fmt.Sprintf("line %d: %d bytes without a newline (a write cut short)", lineNo, len(line))
			return rf, nil
		case !complete:
			return nil, fmt.Errorf("%w: line %d: not a result line: %v", ErrBadResults, lineNo, perr)
		case len(bytes.TrimSpace(line)) == 0:
			rf.GoodBytes += int64(len(line)) // blank line: harmless
		case !bytes.HasPrefix(line, linePrefix):
			return nil, fmt.Errorf("%w: line %d: not a result line: %v", ErrBadResults, lineNo, perr)
		default:
			// One of our lines that does not parse: torn if it is the last.
			pendingErr = fmt.Errorf("%w: line %d: %v", ErrBadResults, lineNo, perr)
			rf.Torn = fmt.Sprintf("line %d: %v", lineNo, perr)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	return rf, nil
}

func readLong(br *bufio.Reader, first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		more, err := br.ReadSlice('\n')
		buf = append(buf, more...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

func parseResultLine(line []byte) (Result, error) {
	var r Result
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return r, errors.New("blank line")
	}
	if err := json.Unmarshal(t, &r); err != nil {
		return r, err
	}
	if r.ID == "" {
		return r, errors.New(`no "id" field (a PoG result line? use it with parog eval report)`)
	}
	return r, nil
}

// PrepareResume reads path for resuming: it returns the finished keys and
// truncates a torn final line so that appending starts on a line boundary.
// The returned note describes what was truncated and how many failed
// results are run again ("" when neither). Keys whose latest line failed
// for infrastructure reasons (see InfraFailure) are not finished; with
// retryFailed, no key whose latest line has an error is.
func PrepareResume(path string, retryFailed bool) (done map[Key]bool, prior []Result, note string, err error) {
	rf, err := ReadResults(path)
	if err != nil {
		return nil, nil, "", err
	}
	if rf.Torn != "" {
		if err := os.Truncate(path, rf.GoodBytes); err != nil {
			return nil, nil, "", fmt.Errorf("dataset: results: truncate torn line: %w", err)
		}
		note = "dropped a torn final line of " + path + " (" + rf.Torn + "); its question will be run again"
	}
	done = map[Key]bool{}
	latest := rf.Latest()
	again := 0
	for _, r := range latest {
		if r.Error != "" && (retryFailed || InfraFailure(r.ErrorKind)) {
			again++
			continue
		}
		done[r.KeyOf()] = true
		prior = append(prior, r)
	}
	if again > 0 {
		if note != "" {
			note += "; "
		}
		note += fmt.Sprintf("%d earlier failed results will be run again", again)
	}
	return done, prior, note, nil
}

// InfraFailure reports whether an error kind (see ErrorKind) says the
// question never got a fair run: the model or the KG was unreachable or
// unconfigured, or the run was interrupted. Resuming runs such questions
// again; an answered question, or one that failed on its own (a timeout,
// an invalid plan), is kept.
func InfraFailure(kind string) bool {
	switch kind {
	case "llm_not_configured", "llm_unavailable", "kg_unavailable", "canceled":
		return true
	}
	return false
}

// SeedLabel renders a seed for reports ("-" for none).
func SeedLabel(seed *int) string {
	if seed == nil {
		return "-"
	}
	return strconv.Itoa(*seed)
}
