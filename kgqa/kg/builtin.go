package kg

import (
	"fmt"

	"github.com/parog/parog-go/kgqa/kg/demokg"
)

// builtinGraph returns the N-Triples of a shipped graph.
func builtinGraph(name string) ([]byte, error) {
	switch name {
	case BuiltinDemoFreebase:
		return demokg.Freebase(), nil
	case BuiltinDemoWikidata:
		return demokg.Wikidata(), nil
	}
	return nil, fmt.Errorf("%w: %s (want %s or %s)", errNoBuiltin, name, BuiltinDemoFreebase, BuiltinDemoWikidata)
}
