package oracle

import (
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/kgqa/prompts"
)

// Stage tells which of the engine's prompts req is: from the name of its
// reply schema ("parog_refine") when the request carries one, else from
// the header naming the stage, else from the fixed wording of the prompt
// (for an endpoint configured without JSON schemas). It returns "" when
// nothing fits; the oracle then refuses the request, loudly.
func Stage(req openai.ChatCompletionRequest, header string) string {
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		if i := strings.LastIndex(rf.JSONSchema.Name, "parog_"); i >= 0 {
			if s := rf.JSONSchema.Name[i+len("parog_"):]; slices.Contains(prompts.Names, s) {
				return s
			}
		}
	}
	if slices.Contains(prompts.Names, header) {
		return header
	}
	return stageFromText(system(req), firstUser(req))
}

// stageFromText recognises a prompt by its headings: the user message's
// section titles, then the reply shape the system message asks for.
func stageFromText(sys, user string) string {
	switch {
	case strings.Contains(user, "\nParent query: ") && strings.Contains(user, "\nChild query: "):
		return prompts.LQTMerge
	case strings.HasPrefix(user, "Conversation:") && strings.Contains(user, "\nLast user message: "):
		return prompts.FollowUp
	case strings.Contains(user, "\nQuery A: ") && strings.Contains(user, "\nQuery B: "):
		return prompts.LQTRelation
	case strings.Contains(sys, `"queries"`):
		return prompts.LQTAtoms
	case strings.Contains(user, "Offered relations"):
		return prompts.Relations
	case strings.Contains(user, "Tentative answer:"):
		return prompts.Refine
	case strings.Contains(user, "Candidates:") && strings.Contains(user, "Facts:"):
		return prompts.Select
	case strings.Contains(user, "Candidates:"):
		return prompts.Prune
	case strings.Contains(user, "Current subgoal:"):
		return prompts.Tentative
	case strings.Contains(user, "Plan:") && strings.Contains(sys, `"sufficient"`):
		return prompts.Sufficiency
	case strings.Contains(user, "Plan:"):
		return prompts.Final
	case strings.Contains(sys, `"mentions"`):
		return prompts.Mentions
	case strings.Contains(sys, "Example 1"):
		return prompts.PlanFewShot
	case strings.Contains(sys, `"subgoals"`):
		return prompts.Plan
	}
	return ""
}

func system(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			return m.Content
		}
	}
	return ""
}

// firstUser is the task: a repair turn only repeats it after the reply.
func firstUser(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			return m.Content
		}
	}
	return ""
}
