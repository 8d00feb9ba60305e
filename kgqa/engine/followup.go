package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// followUpReply is the reasoner's verdict on a conversation's last message.
type followUpReply struct {
	Reason   string `json:"reason"`
	Verdict  string `json:"verdict"`
	Question string `json:"question"`
}

// hasUserTurn reports whether history holds an earlier user message: only
// then can the last one be a follow-up, and only then is the classifier
// asked.
func hasUserTurn(history []kgqa.Message) bool {
	for _, m := range history {
		if m.Role == "user" && strings.TrimSpace(m.Content) != "" {
			return true
		}
	}
	return false
}

// classify asks the reasoner whether question, the last message of a
// conversation with history, is new, a follow-up or unsafe, records the
// verdict in the answer and returns the question to answer. A single
// question costs no call and gets no record unless screen asks for its
// safety verdict; it is never rewritten, whatever the verdict, since it
// follows nothing. refused is true for an unsafe message: the answer
// stops there (StopRefused).
func classify(ctx context.Context, r *run, question string, history []kgqa.Message, screen bool) (standalone string, refused bool, err error) {
	follows := hasUserTurn(history)
	if !follows && !screen {
		return question, false, nil
	}
	data := prompts.FollowUpData{Message: question}
	for _, m := range history {
		if (m.Role == "user" || m.Role == "assistant") && strings.TrimSpace(m.Content) != "" {
			data.History = append(data.History, prompts.Turn{Role: m.Role, Text: strings.TrimSpace(m.Content)})
		}
	}
	req, err := r.e.tmpl.Request(kgqa.Reasoner, prompts.FollowUp, data)
	if err != nil {
		return "", false, stepErr("followup", "", err)
	}
	var rep followUpReply
	check := func() error {
		switch rep.Verdict {
		case kgqa.VerdictNew, kgqa.VerdictUnsafe:
		case kgqa.VerdictFollowUp:
			if strings.TrimSpace(rep.Question) == "" {
				return fmt.Errorf("a follow_up verdict needs the standalone question")
			}
		default:
			return fmt.Errorf("verdict %q is not one of new, follow_up, unsafe", rep.Verdict)
		}
		return nil
	}
	if _, err := r.e.chat.JSON(ctx, req, &rep, check); err != nil {
		return "", false, stepErr("followup", "", err)
	}
	// Only a follow-up is rewritten: a "new" reply's question text is
	// not trusted over the user's own words.
	standalone = question
	switch {
	case rep.Verdict == kgqa.VerdictFollowUp && follows:
		standalone = strings.TrimSpace(rep.Question)
	case rep.Verdict == kgqa.VerdictFollowUp:
		// A single message follows nothing: it stands as the user wrote it.
		rep.Verdict, rep.Reason = kgqa.VerdictNew, "no earlier message to follow; the model said: "+rep.Reason
	}
	r.ans.Rewrite = &kgqa.Rewrite{Original: question, Question: standalone, Verdict: rep.Verdict, Reason: rep.Reason}
	r.ans.Question = standalone
	rw := *r.ans.Rewrite
	r.emit.send(kgqa.Event{Type: kgqa.EventRewrite, Rewrite: &rw})
	if rep.Verdict == kgqa.VerdictUnsafe {
		r.ans.Stop = kgqa.StopRefused
		return question, true, nil
	}
	return standalone, false, nil
}
