package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/prompts"
)

// Mention statuses.
const (
	mentionResolved   = "resolved"
	mentionAmbiguous  = "ambiguous"
	mentionUnresolved = "unresolved"
)

// requestedTopics validates and names the topic entities of the request.
func requestedTopics(ctx context.Context, r *run, ids []string) ([]kgqa.Topic, error) {
	d := r.e.g.Dialect()
	var out []kgqa.Topic
	for _, id := range ids {
		if !d.ValidEntity(id) {
			return nil, stepErr("link", "", fmt.Errorf("%w: %q", ErrBadTopic, id))
		}
		name, err := r.e.g.Name(ctx, id)
		if err != nil {
			return nil, stepErr("link", "", err)
		}
		out = append(out, kgqa.Topic{ID: id, Name: name, Source: "request"})
	}
	return out, nil
}

type mentionsReply struct {
	Reason   string   `json:"reason"`
	Mentions []string `json:"mentions"`
}

// linkTopics asks the reasoner for the entity mentions of question and
// resolves them by name. Ambiguous mentions keep every candidate (the
// relation filter sorts them out) and are reported; unresolved ones are
// reported and dropped.
func linkTopics(ctx context.Context, r *run, question string) ([]kgqa.Topic, []kgqa.Mention, error) {
	req, err := r.e.tmpl.Request(kgqa.Reasoner, prompts.Mentions, prompts.MentionsData{Question: question})
	if err != nil {
		return nil, nil, stepErr("link", "", err)
	}
	var rep mentionsReply
	lower := strings.ToLower(question)
	check := func() error {
		for _, m := range rep.Mentions {
			if strings.TrimSpace(m) == "" || !strings.Contains(lower, strings.ToLower(strings.TrimSpace(m))) {
				return fmt.Errorf("mention %q does not occur in the question", m)
			}
		}
		return nil
	}
	if _, err := r.e.chat.JSON(ctx, req, &rep, check); err != nil {
		return nil, nil, stepErr("link", "", err)
	}
	var topics []kgqa.Topic
	var mentions []kgqa.Mention
	seen := map[string]bool{}
	for _, m := range rep.Mentions {
		// A mention spans a line break or a tab as a space: names hold
		// neither.
		m = strings.Join(strings.Fields(m), " ")
		if seen[strings.ToLower(m)] {
			continue
		}
		seen[strings.ToLower(m)] = true
		cands, err := r.e.g.Search(ctx, m, max(r.e.searchLimit, groundLimit))
		if errors.Is(err, kg.ErrInvalidText) {
			// The model's mention, not the caller's question, is at fault
			// (the question passed kg.CheckText): no entity has that name.
			cands, err = nil, nil
		}
		if err == nil && len(cands) > 1 {
			// Homonyms, most popular first, as many as the search limit.
			cands, err = r.e.rankByPopularity(ctx, m, cands, r.e.searchLimit)
		}
		if err != nil {
			return nil, nil, stepErr("link", "", err)
		}
		mn := kgqa.Mention{Text: m, Candidates: cands}
		switch {
		case len(cands) == 0:
			mn.Status = mentionUnresolved
		case len(cands) == 1:
			mn.Status = mentionResolved
		default:
			mn.Status = mentionAmbiguous
		}
		for _, c := range cands {
			topics = append(topics, kgqa.Topic{ID: c.ID, Name: c.Name, Source: "linked", Mention: m})
		}
		mentions = append(mentions, mn)
	}
	return topics, mentions, nil
}

// rootAnchors picks the topics a subgoal without needs starts from: those
// named in its text, or all of them when it names none.
func rootAnchors(text string, topics []kgqa.Topic) []kgqa.Term {
	norm := " " + naming.Fold(text) + " "
	var named, all []kgqa.Term
	for _, t := range topics {
		term := kgqa.Term{ID: t.ID, Name: t.Name}
		all = append(all, term)
		for _, s := range []string{t.Name, t.Mention} {
			if n := naming.Fold(s); n != "" && strings.Contains(norm, " "+n+" ") {
				named = append(named, term)
				break
			}
		}
	}
	if len(named) > 0 {
		return named
	}
	return all
}
