package llm

import (
	"encoding/json"
	"sync"
)

// StrictCompatible reports whether schema fits OpenAI's strict structured
// outputs: every object lists all its properties as required and forbids
// others. Strict mode is requested only for such schemas, since a server
// that enforces the rule rejects any other schema outright; vLLM and others
// constrain decoding to the schema either way.
//
// The verdict is remembered per schema text (requests reuse a handful of
// schemas, and decoding one into a generic tree costs more than the rest of
// building the request).
func StrictCompatible(schema json.RawMessage) bool {
	strictMu.RLock()
	v, ok := strictSeen[string(schema)] // no copy of the schema for a lookup
	strictMu.RUnlock()
	if ok {
		return v
	}
	var tree any
	v = json.Unmarshal(schema, &tree) == nil && strictNode(tree)
	strictMu.Lock()
	if len(strictSeen) < maxStrictSeen {
		strictSeen[string(schema)] = v
	}
	strictMu.Unlock()
	return v
}

// maxStrictSeen bounds the remembered verdicts, should a caller build
// schemas per request.
const maxStrictSeen = 256

var (
	strictMu   sync.RWMutex
	strictSeen = map[string]bool{} // schema text -> verdict
)

func strictNode(v any) bool {
	switch n := v.(type) {
	case []any:
		for _, x := range n {
			if !strictNode(x) {
				return false
			}
		}
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok {
			if ap, ok := n["additionalProperties"].(bool); !ok || ap {
				return false
			}
			required := map[string]bool{}
			list, _ := n["required"].([]any)
			for _, r := range list {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
			for name := range props {
				if !required[name] {
					return false
				}
			}
		}
		for _, x := range n {
			if !strictNode(x) {
				return false
			}
		}
	}
	return true
}
