package kgqa

// Ordering records how the branches of an intersect were ordered.
type Ordering struct {
	// Method is "cost" or "plan" (no branch could be
	// estimated, so the plan's order stands).
	Method string `json:"method"`
	// Branches are the intersected branches in the order they ran.
	Branches []BranchOrder `json:"branches"`
	// Note explains a fallback, or an order decided without estimates.
	Note string `json:"note,omitempty"`
}

// BranchOrder is one branch of a conjunction with its estimated and
// actual cardinality.
type BranchOrder struct {
	// Subgoal is the branch's id.
	Subgoal string `json:"subgoal"`
	// Relation is the relation the estimate counted along: the one whose
	// readable form shares most words with the subgoal.
	Relation *Relation `json:"relation,omitempty"`
	// Estimated is the KG's count of terms along Relation from the
	// branch's anchors; -1 when no relation matched the subgoal's words,
	// or when the order needed no estimate (a branch that follows an
	// earlier subgoal runs first).
	Estimated int `json:"estimated"`
	// Actual is the size of the branch's result (-1 until it ran).
	Actual int `json:"actual"`
	// Role is "explored" (run in full) or "verified" (its relations
	// checked against the candidates of the branch explored first).
	Role string `json:"role"`
}

// Verification records a branch run as a check of another branch's
// candidates instead of a full exploration.
type Verification struct {
	// Against is the id of the branch whose candidates were checked.
	Against string `json:"against"`
	// Candidates is the number of candidates checked.
	Candidates int `json:"candidates"`
	// Relations are the relations the model chose for the branch, along
	// which the candidates were checked.
	Relations []Relation `json:"relations,omitempty"`
	// Kept is the number of candidates a relation reaches.
	Kept int `json:"kept"`
	// Fallback is true when the check settled nothing (no relation to
	// check, or no candidate passed) and the branch was explored in full.
	Fallback bool `json:"fallback,omitempty"`
	// Note says why the check settled nothing, when it did not.
	Note string `json:"note,omitempty"`
}
