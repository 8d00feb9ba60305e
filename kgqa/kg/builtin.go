package kg

import "fmt"

// builtinGraph returns the N-Triples of a shipped graph.
func builtinGraph(name string) ([]byte, error) {
	switch name {
	case BuiltinDemoFreebase, BuiltinDemoWikidata:
		return nil, fmt.Errorf("%w: %s is not built into this binary yet", errNoBuiltin, name)
	}
	return nil, fmt.Errorf("%w: %s (want %s or %s)", errNoBuiltin, name, BuiltinDemoFreebase, BuiltinDemoWikidata)
}
