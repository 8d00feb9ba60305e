package kgqa

import _ "embed"

// PlanSchema is the JSON schema (draft 2020-12) of the Plan shape. A served
// planner can be constrained to it (vLLM guided decoding, OpenAI
// response_format), and tests validate plans against it.
//
//go:embed plan.schema.json
var PlanSchema []byte
