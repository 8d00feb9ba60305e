// Package llm is PARoG's OpenAI-compatible chat client: separately
// configured roles (planner, reasoner, teacher), retries, strict JSON output
// with one repair turn, and per-question accounting of every call.
package llm
