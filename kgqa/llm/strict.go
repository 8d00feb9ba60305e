package llm

import "encoding/json"

// StrictCompatible reports whether schema fits OpenAI's strict structured
// outputs: every object lists all its properties as required and forbids
// others. Strict mode is requested only for such schemas, since a server
// that enforces the rule rejects any other schema outright; vLLM and others
// constrain decoding to the schema either way.
func StrictCompatible(schema json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return false
	}
	return strictNode(v)
}

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
