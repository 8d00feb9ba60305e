package finetune

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/parog/parog-go/internal/clip"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/sft"
)

// StagePlan is the accounting stage of planner calls, the same stage the
// engine uses when it asks the planner for a plan.
const StagePlan kgqa.Stage = "plan"

// maxReplyKept caps the reply text stored in a report for an invalid plan.
const maxReplyKept = 500

// EvalOptions configures EvaluatePlanner.
type EvalOptions struct {
	// Model and PlannerURL are recorded in the report.
	Model, PlannerURL string
	// Data names the evaluated file and DataSHA256 its hash, for the report.
	Data, DataSHA256 string
	// Concurrency bounds the questions in flight (default 8).
	Concurrency int
	// Progress, when set, is called after each question with the number
	// done and the total, from one goroutine at a time; the command draws
	// its progress bar from it.
	Progress func(done, total int)
}

// Outcome classifies one prediction.
type Outcome string

// The outcomes of one question.
const (
	// OutcomeValid is a plan that parsed and validated on the first reply.
	OutcomeValid Outcome = "valid"
	// OutcomeRepaired is a plan that became valid only after the client's
	// repair turn (the engine gets the same second chance).
	OutcomeRepaired Outcome = "repaired"
	// OutcomeInvalid is a reply that was not a valid plan even after the
	// repair turn.
	OutcomeInvalid Outcome = "invalid"
	// OutcomeError is a call that failed (endpoint down, rejected, timeout).
	OutcomeError Outcome = "error"
)

// Item is the evaluation of one question.
type Item struct {
	// ID of the record.
	ID string `json:"id"`
	// Question asked.
	Question string `json:"question"`
	// Kinds of the gold plan (the record's kinds, else derived).
	Kinds []string `json:"kinds"`
	// Label is the dataset's question-type label, if any.
	Label string `json:"label,omitempty"`
	// Outcome of the call.
	Outcome Outcome `json:"outcome"`
	// Error says why the plan is missing (invalid reply or failed call).
	Error string `json:"error,omitempty"`
	// Reply is the (truncated) reply of an invalid prediction.
	Reply string `json:"reply,omitempty"`
	// GoldSubgoals and PredSubgoals count subgoals (0 when invalid).
	GoldSubgoals int `json:"gold_subgoals"`
	PredSubgoals int `json:"pred_subgoals"`
	// OpOverlap, OpPred and OpGold are the op multiset sizes behind OpF1.
	OpOverlap int `json:"op_overlap"`
	OpPred    int `json:"op_pred"`
	OpGold    int `json:"op_gold"`
	// OpF1 is the op-kind multiset F1 (0 when invalid).
	OpF1 float64 `json:"op_f1"`
	// GraphMatch is true when the dependency graphs are isomorphic.
	GraphMatch bool `json:"graph_match"`
	// LatencyMS is the wall time of the planner call(s).
	LatencyMS float64 `json:"latency_ms"`
	// Plan is the predicted plan, when valid.
	Plan *kgqa.Plan `json:"plan,omitempty"`
}

// Valid reports whether the item has a usable plan.
func (it *Item) Valid() bool { return it.Outcome == OutcomeValid || it.Outcome == OutcomeRepaired }

// Miss is the signed subgoal-count error (predicted minus gold); ok is
// false for an item without a plan.
func (it *Item) Miss() (miss int, ok bool) {
	if !it.Valid() {
		return 0, false
	}
	return it.PredSubgoals - it.GoldSubgoals, true
}

// EvaluatePlanner asks the planner role of chat for a plan for every
// record (its system and user messages), compares each with the gold plan
// and returns the report. Every record gets an Item: an invalid reply or a
// failed call is a miss, never dropped. Only the cancellation of ctx stops
// the run early, with ctx's error.
func EvaluatePlanner(ctx context.Context, chat kgqa.Chatter, recs []*sft.Record, opts EvalOptions) (*Report, error) {
	if !chat.Has(kgqa.Planner) {
		return nil, fmt.Errorf("finetune: eval-planner: %w", kgqa.ErrModelNotConfigured)
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 8
	}
	items := make([]Item, len(recs))
	var (
		progressMu sync.Mutex
		done       int
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i, rec := range recs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			it, err := evaluateOne(gctx, chat, rec)
			if err != nil {
				return err
			}
			items[i] = it
			if opts.Progress != nil {
				progressMu.Lock()
				done++
				opts.Progress(done, len(recs))
				progressMu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("finetune: eval-planner: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("finetune: eval-planner: %w", err)
	}
	return buildReport(opts, items), nil
}

// evaluateOne scores one record; it returns an error only when ctx ended.
func evaluateOne(ctx context.Context, chat kgqa.Chatter, rec *sft.Record) (Item, error) {
	gold := rec.Gold()
	it := Item{ID: rec.ID, Question: rec.UserText(), Kinds: recordKinds(rec), Label: rec.Label, GoldSubgoals: len(gold.Subgoals)}
	prompt := rec.Prompt()
	msgs := make([]kgqa.Message, len(prompt))
	for i, m := range prompt {
		msgs[i] = kgqa.Message{Role: m.Role, Content: m.Content}
	}
	req := kgqa.ChatRequest{Role: kgqa.Planner, Stage: StagePlan, Messages: msgs, Schema: prompts.Schema(prompts.Plan), SchemaName: "parog_plan"}
	ledger := kgqa.NewLedger()
	var p kgqa.Plan
	check := func() error {
		if p.Version == 0 {
			p.Version = kgqa.PlanVersion
		}
		if p.Version != kgqa.PlanVersion {
			return fmt.Errorf("%w: version %d, want %d", kgqa.ErrInvalidPlan, p.Version, kgqa.PlanVersion)
		}
		return p.Validate()
	}
	start := time.Now()
	resp, err := chat.JSON(kgqa.WithLedger(ctx, ledger), req, &p, check)
	it.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	var se *kgqa.SchemaError
	switch {
	case err == nil:
		it.Outcome = OutcomeValid
		if len(ledger.Calls()) > 1 {
			it.Outcome = OutcomeRepaired
		}
	case ctx.Err() != nil:
		return it, ctx.Err()
	case errors.As(err, &se):
		it.Outcome, it.Error, it.Reply = OutcomeInvalid, se.Reason, clip.Text(resp.Content, maxReplyKept)
	default:
		it.Outcome, it.Error = OutcomeError, err.Error()
	}
	var pred *kgqa.Plan
	if it.Valid() {
		pred = &p
		it.Plan, it.PredSubgoals = pred, len(pred.Subgoals)
	}
	it.OpOverlap, it.OpPred, it.OpGold = OpOverlap(pred, gold)
	it.OpF1 = F1(it.OpOverlap, it.OpPred, it.OpGold)
	it.GraphMatch = SameGraph(pred, gold)
	return it, nil
}

func recordKinds(rec *sft.Record) []string {
	kinds := rec.Kinds
	if len(kinds) == 0 {
		kinds = rec.Gold().Kinds()
	}
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}
