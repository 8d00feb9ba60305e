package embedded

import (
	"errors"
	"fmt"

	"github.com/parog/parog-go/kgqa/kg/demokg"
)

// Builtin graph names accepted in config.KG.Files.
const (
	BuiltinDemoFreebase = "builtin:demo-freebase"
	BuiltinDemoWikidata = "builtin:demo-wikidata"
)

// ErrNoBuiltin is returned for a "builtin:" name that names no shipped
// graph.
var ErrNoBuiltin = errors.New("kg: unknown builtin graph")

// builtinGraph returns the N-Triples of a shipped graph.
func builtinGraph(name string) ([]byte, error) {
	switch name {
	case BuiltinDemoFreebase:
		return demokg.Freebase(), nil
	case BuiltinDemoWikidata:
		return demokg.Wikidata(), nil
	}
	return nil, fmt.Errorf("%w: %s (want %s or %s)", ErrNoBuiltin, name, BuiltinDemoFreebase, BuiltinDemoWikidata)
}
