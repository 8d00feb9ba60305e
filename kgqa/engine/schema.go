package engine

import "github.com/parog/parog-go/kgqa/prompts"

// PlanSchema is the JSON schema (draft 2020-12) of the Plan shape. A served
// planner can be constrained to it (vLLM guided decoding, OpenAI
// response_format), and tests validate plans against it. It is the reply
// schema of the planner's prompt, kept beside that prompt in kgqa/prompts.
var PlanSchema = []byte(prompts.Schema(prompts.Plan))
