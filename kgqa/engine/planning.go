package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// Plan sources recorded in PlanInfo.Source.
const (
	PlanSourcePlanner  = "planner"
	PlanSourceFewShot  = "reasoner_few_shot"
	PlanSourceGiven    = "given"
	PlanSourceLQT      = "lqt"
	fewShotExplanation = "no planner endpoint is configured: the reasoner planned from a few-shot prompt"
)

// Plan asks the planner role for a plan of question, or the reasoner with a
// few-shot prompt when no planner is configured (PlanInfo says which). The
// reply is decoded strictly and validated (ids, dependencies, ops); one
// repair turn is allowed, then it fails with a *StepError wrapping
// *llm.SchemaError. An engine built WithPlanner asks that planner instead,
// and validates its plan the same way. With engine.plan_tentatives the
// prompt also asks for the tentative answers of the subgoals that read
// the graph (Subgoal.Tentative).
func (e *Engine) Plan(ctx context.Context, question string) (*kgqa.Plan, kgqa.PlanInfo, error) {
	p, info, _, err := e.plan(ctx, question, e.cfg.PlanTentatives)
	return p, info, err
}

// plan is Plan, asking for tentative answers when tentatives is set. The
// recovery, when not nil, says what the plan check did with a plan it
// questioned.
func (e *Engine) plan(ctx context.Context, question string, tentatives bool) (*kgqa.Plan, kgqa.PlanInfo, *kgqa.Recovery, error) {
	if e.planner != nil {
		p, info, err := e.planner.Plan(ctx, question)
		if err == nil {
			err = p.Validate()
		}
		if err != nil {
			return nil, info, nil, stepErr("plan", "", err)
		}
		return p, info, nil, nil
	}
	req, info, err := e.planRequest(question, tentatives)
	if err != nil {
		return nil, info, nil, stepErr("plan", "", err)
	}
	var p kgqa.Plan
	var valids []kgqa.Plan // the replies that were valid plans, in order
	var questioned error   // why the plan check sent the first back
	check := func() error {
		if err := p.CheckVersion(); err != nil {
			return err
		}
		if err := p.Validate(); err != nil {
			return err
		}
		lint := lintPlan(question, &p)
		if len(valids) == 0 {
			questioned = lint
		}
		valids = append(valids, p)
		return lint
	}
	_, err = e.chat.JSON(ctx, req, &p, check)
	var rec *kgqa.Recovery
	if questioned != nil {
		rec = &kgqa.Recovery{Kind: kgqa.RecoveryPlanCheck, From: clip(questioned.Error(), 200), To: "replanned"}
	}
	switch {
	case err != nil && len(valids) > 0 && errors.Is(err, kgqa.ErrSchema):
		// The repair did not give a plan that fits the question's words
		// either: a plan whose fault the check can mend from the plan's
		// own words runs mended (see mendPlan); else the first valid
		// plan runs as the planner wrote it (the check reads words, the
		// planner the meaning).
		p, rec.To = valids[0], ""
		if m, how := mendFirst(question, valids); m != nil {
			p, rec.To = *m, how
			info.Note = joinNotes(info.Note, "the plan check mended the plan ("+how+"): "+questioned.Error())
			break
		}
		info.Note = joinNotes(info.Note, "kept the plan the plan check questioned: "+questioned.Error())
	case err != nil:
		return nil, info, nil, stepErr("plan", "", err)
	case questioned != nil:
		info.Note = joinNotes(info.Note, "the plan check sent the first plan back: "+questioned.Error())
	}
	info.Kinds = p.Kinds()
	return &p, info, rec, nil
}

// planRequest is the planning call's request for question (asking for
// tentative answers when tentatives is set), and the plan info of the
// role that answers it.
func (e *Engine) planRequest(question string, tentatives bool) (kgqa.ChatRequest, kgqa.PlanInfo, error) {
	role, stage := kgqa.Planner, prompts.Plan
	info := kgqa.PlanInfo{Source: PlanSourcePlanner}
	if !e.chat.Has(kgqa.Planner) {
		role, stage = kgqa.Reasoner, prompts.PlanFewShot
		info = kgqa.PlanInfo{Source: PlanSourceFewShot, Note: fewShotExplanation}
	}
	ops := make([]string, len(kgqa.Ops))
	for i, o := range kgqa.Ops {
		ops[i] = string(o)
	}
	req, err := e.tmpl.Request(role, stage, prompts.PlanData{Question: question, Ops: ops, Tentatives: tentatives})
	return req, info, err
}

// replanForTopics sends plan p back to the planner once when a topic
// entity the question names is named by none of its subgoals: the plan
// has dropped a condition of the question (a conjunction's branch, a
// constraint's entity). Linking runs beside planning, so this check comes
// after both, and costs a call only on such plans. The repaired plan
// replaces p when it is valid and names every such topic; otherwise p
// stays, with a note. It reports whether it made a call. The repair asks
// for tentative answers as the first plan call did (tentatives).
func (e *Engine) replanForTopics(ctx context.Context, question string, p *kgqa.Plan, info kgqa.PlanInfo, topics []kgqa.Topic, tentatives bool) (*kgqa.Plan, kgqa.PlanInfo, bool) {
	missing := unplannedTopics(question, p, topics)
	if len(missing) == 0 {
		return p, info, false
	}
	req, _, err := e.planRequest(question, tentatives)
	prev, jerr := json.Marshal(p)
	if err != nil || jerr != nil {
		return p, info, false
	}
	why := fmt.Sprintf("the plan does not fit the question: the question names %s, which no subgoal names; plan every condition of the question", strings.Join(missing, ", "))
	req.Messages = append(req.Messages, kgqa.Message{Role: "assistant", Content: string(prev)}, kgqa.Message{Role: "user", Content: why + ". Reply with the whole corrected plan as JSON only."})
	var q kgqa.Plan
	check := func() error {
		if err := q.CheckVersion(); err != nil {
			return err
		}
		if err := q.Validate(); err != nil {
			return err
		}
		if m := unplannedTopics(question, &q, topics); len(m) > 0 {
			return fmt.Errorf("no subgoal names %s", strings.Join(m, ", "))
		}
		return lintPlan(question, &q)
	}
	if _, err := e.chat.JSON(ctx, req, &q, check); err != nil {
		info.Note = joinNotes(info.Note, "kept the plan the topic check questioned ("+why+"): "+err.Error())
		return p, info, true
	}
	info.Note = joinNotes(info.Note, "the topic check sent the plan back: "+why)
	info.Kinds = q.Kinds()
	return &q, info, true
}

// planFor is the plan of req: the plan it gives, validated, or the
// planner's, whose calls set the run's critical path so far.
func planFor(ctx context.Context, r *run, req Request) (*kgqa.Plan, kgqa.PlanInfo, error) {
	if req.Plan != nil {
		p := *req.Plan
		err := p.CheckVersion()
		if err == nil {
			err = p.Validate()
		}
		if err != nil {
			return nil, kgqa.PlanInfo{Source: "given"}, stepErr("plan", "", err)
		}
		return &p, kgqa.PlanInfo{Source: "given", Kinds: p.Kinds()}, nil
	}
	p, info, rec, err := r.e.plan(ctx, req.Question, r.b.PlanTentatives)
	if err == nil {
		r.base = planningCriticalCalls(info)
	}
	if rec != nil {
		r.recovered(rec.Kind, rec.Subgoal, rec.From, rec.To)
	}
	return p, info, err
}

// lintPlan checks a valid plan against the question it plans, for the
// errors a planner makes while its reply stays a valid plan: a step that
// uses "#k" without needing subgoal k (a dependency left out, or the
// hops put the wrong way round), a comparison or superlative whose
// direction contradicts the question's words, a number or date of the
// question that no subgoal carries (a constraint dropped), and a find
// that bundles two steps with "then", and a question asking for the
// largest or the earliest of something planned with no superlative (the
// constraint dropped). It reads only the question's text
// and the plan, so it costs no call; a plan it rejects is sent back to
// the planner once with the reason (see Engine.Plan).
func lintPlan(question string, p *kgqa.Plan) error {
	var errs []string
	dir := readDirection(question)
	for _, s := range p.Subgoals {
		anc := p.Ancestors(s.ID)
		for _, m := range refPattern.FindAllStringSubmatch(s.Text, -1) {
			if id := "s" + m[1]; id != s.ID && !anc[id] {
				errs = append(errs, fmt.Sprintf("subgoal %s uses #%s but does not need %s (list it in needs, and order the hops as the question does)", s.ID, m[1], id))
			}
		}
		if s.Op == kgqa.OpFind && thenStep.MatchString(s.Text) {
			errs = append(errs, fmt.Sprintf("subgoal %s bundles two steps (%q): give each step a subgoal of its own", s.ID, s.Text))
		}
		if e := dir.lint(s); e != "" {
			errs = append(errs, e)
		}
	}
	if e := valuesLint(question, p); e != "" {
		errs = append(errs, e)
	}
	if e := dir.extremeLint(p); e != "" {
		errs = append(errs, e)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("the plan does not fit the question: %s", strings.Join(errs, "; "))
}

var (
	thenStep = regexp.MustCompile(`(?i)(,|\band)\s+then\b|\b(and|then) find\b`)
	// The question's words for a comparison's direction, and a
	// superlative's order. Words that read both ways ("over", "first")
	// are left out: the check speaks only when the question is plain.
	moreWords = newWordSet([]string{"more", "greater", "larger", "higher", "bigger", "later", "longer", "taller", "heavier"},
		"after", "above", "exceeding", "exceeds")
	lessWords = newWordSet([]string{"less", "fewer", "smaller", "lower", "earlier", "shorter", "lighter"}, "before", "below")
	maxWords  = newWordSet(nil, "largest", "highest", "greatest", "biggest", "latest", "longest", "tallest", "heaviest", "maximum", "most recent")
	minWords  = newWordSet(nil, "smallest", "lowest", "fewest", "earliest", "shortest", "lightest", "minimum")
	// A number or date written in the question: a constraint's value.
	questionValue = regexp.MustCompile(`\b\d+\.\d+\b|\b\d{4}(-\d{2}){0,2}\b`)
)

// direction is which of the direction words a question has, read once
// per plan.
type direction struct{ more, less, hi, lo bool }

func readDirection(question string) direction {
	lower := strings.ToLower(question)
	return direction{
		more: moreWords.in(question, lower), less: lessWords.in(question, lower),
		hi: maxWords.in(question, lower), lo: minWords.in(question, lower),
	}
}

// wordSet matches, in any case, one of its words as a whole word, or one
// of its comparatives followed by " than".
type wordSet struct {
	re    *regexp.Regexp
	words []string // every word a match holds, lower case
}

func newWordSet(than []string, alone ...string) wordSet {
	alts := []string{`\b(` + strings.Join(alone, "|") + `)\b`}
	if len(than) > 0 {
		alts = append([]string{`\b(` + strings.Join(than, "|") + `) than\b`}, alts...)
	}
	return wordSet{re: regexp.MustCompile(`(?i)` + strings.Join(alts, "|")), words: append(slices.Clip(than), alone...)}
}

// in reports whether the question (and lower, its lower case) holds a
// match. An ASCII question without any of the words as a substring has
// none, which a substring scan tells for a fraction of the regexp's cost;
// a question with other letters goes to the regexp, whose case folding
// reaches beyond ASCII.
func (w wordSet) in(question, lower string) bool {
	if isASCII(question) && !slices.ContainsFunc(w.words, func(s string) bool { return strings.Contains(lower, s) }) {
		return false
	}
	return w.re.MatchString(question)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lint is the reason a compare or superlative subgoal s goes the other
// way than the question says, or "".
func (d direction) lint(s kgqa.Subgoal) string {
	switch {
	case s.Op == kgqa.OpCompare && s.Args != nil:
		up := strings.HasPrefix(s.Args.Cmp, ">")
		down := strings.HasPrefix(s.Args.Cmp, "<")
		if (d.more && !d.less && down) || (d.less && !d.more && up) {
			return fmt.Sprintf("subgoal %s compares with %q but the question asks for the other direction", s.ID, s.Args.Cmp)
		}
	case s.Op == kgqa.OpSuperlative && s.Args != nil:
		if (d.hi && !d.lo && s.Args.Order == "min") || (d.lo && !d.hi && s.Args.Order == "max") {
			return fmt.Sprintf("subgoal %s takes the %s but the question asks for the other end", s.ID, s.Args.Order)
		}
	}
	return ""
}

// valuesLint is the reason the plan lost a number or date of the
// question, or "": each must appear in some subgoal's text or arguments
// (a date may be written more fully there, 1959-05 as 1959-05-01).
func valuesLint(question string, p *kgqa.Plan) string {
	var b strings.Builder
	for _, s := range p.Subgoals {
		b.WriteString(s.Text)
		b.WriteByte(' ')
		if s.Args != nil {
			b.WriteString(s.Args.Value)
			b.WriteByte(' ')
		}
	}
	planText := b.String()
	var lost []string
	for _, v := range questionValue.FindAllString(question, -1) {
		if !strings.Contains(planText, v) {
			lost = append(lost, v)
		}
	}
	if len(lost) == 0 {
		return ""
	}
	return fmt.Sprintf("no subgoal carries the question's %s: a constraint of the question is missing", strings.Join(lost, ", "))
}

// unplannedTopics are the names of the topic entities that the question
// names and no subgoal of p does (names compared folded).
func unplannedTopics(question string, p *kgqa.Plan, topics []kgqa.Topic) []string {
	q := naming.Fold(question)
	var texts []string
	for _, s := range p.Subgoals {
		texts = append(texts, naming.Fold(s.Text))
	}
	var out []string
	for _, t := range topics {
		n := naming.Fold(t.Name)
		if n == "" || !strings.Contains(q, n) || slices.Contains(out, t.Name) {
			continue
		}
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, n) }) {
			out = append(out, t.Name)
		}
	}
	return out
}
