package kgqa

// Verdicts of the follow-up classifier on a chat's last user message.
const (
	// VerdictNew: the message is a question that stands on its own.
	VerdictNew = "new"
	// VerdictFollowUp: the message depends on the conversation and was
	// rewritten into a standalone question.
	VerdictFollowUp = "follow_up"
	// VerdictUnsafe: the message is refused (Answer.Stop is StopRefused).
	VerdictUnsafe = "unsafe"
)

// Rewrite records how the last message of a conversation became the
// question answered: the classifier's verdict is its reason tag.
type Rewrite struct {
	// Original is the last user message as sent.
	Original string `json:"original"`
	// Question is the standalone question the engine answered (Original
	// unless Verdict is VerdictFollowUp).
	Question string `json:"question"`
	// Verdict is the reason tag: VerdictNew, VerdictFollowUp or
	// VerdictUnsafe.
	Verdict string `json:"verdict"`
	// Reason is the classifier's explanation.
	Reason string `json:"reason,omitempty"`
}
