package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKGCommands(t *testing.T) {
	fixture, err := filepath.Abs("../../kgqa/kg/testdata/fixture.nt")
	require.NoError(t, err)
	cfg := filepath.Join(t.TempDir(), "kg.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("kg:\n  backend: embedded\n  dialect: freebase\n  files: ["+fixture+"]\n"), 0o644))
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"relations", []string{"relations", "--config", cfg, "m.0345h"}, 0,
			"out\tlocation.location.adjoin_s\tlocation: adjoin s\nout\tlocation.location.area\tlocation: area\nout\tlocation.location.contains\tlocation: contains\nout\tlocation.statistical_region.gdp_nominal\tstatistical region: gdp nominal\nin\tlocation.adjoining_relationship.adjoins\tadjoining relationship: adjoins\nin\tlocation.location.containedby\tlocation: containedby\n", ""},
		{"neighbors incoming, flag after args", []string{"neighbors", "--config", cfg, "m.05l5n", "aviation.airport.serves", "--incoming"}, 0,
			"in  aviation.airport.serves  m.0gn2g3  Weeze Airport\n", ""},
		{"neighbors through a mediator pointing in", []string{"neighbors", "--config", cfg, "m.0345h", "location.adjoining_relationship.adjoins", "--incoming"}, 0,
			"in  location.adjoining_relationship.adjoins / [m.0cvt001] / ^location.location.adjoin_s  m.0f8l9c  France\n" +
				"in  location.adjoining_relationship.adjoins / [m.0cvt008] / ^location.location.adjoin_s  m.059j2   Netherlands\n" +
				"in  location.adjoining_relationship.adjoins / [m.0cvt010] / ^location.location.adjoin_s  m.0154j   Belgium\n", ""},
		{"relations of an entity not in the KG", []string{"relations", "--config", cfg, "m.0zzzzzz"}, 0,
			"", "parog kg relations: nothing found: m.0zzzzzz has no relations (or is not in the KG)\n"},
		{"neighbors none", []string{"neighbors", "--config", cfg, "m.0f8l9c", "aviation.airport.serves"}, 0,
			"", "parog kg neighbors: nothing found: no out facts of m.0f8l9c along aviation.airport.serves\n"},
		{"name", []string{"name", "--config", cfg, "m.0f8l9c"}, 0, "France\n", ""},
		{"search ignores case", []string{"search", "--config", cfg, "lou seal"}, 0, "m.0wzbt\tLou Seal\n", ""},
		{"search finds nothing", []string{"search", "--config", cfg, "Atlantis"}, 0, "", "parog kg search: nothing found: no entity is named \"Atlantis\"\n"},
		{"query", []string{"query", "--config", cfg, "SELECT ?d WHERE { <http://rdf.freebase.com/ns/m.0ds8qct> <http://rdf.freebase.com/ns/time.event.end_date> ?d }"}, 0,
			"d\n2014-10-29^^http://www.w3.org/2001/XMLSchema#date\n", ""},
		{"malformed id", []string{"relations", "--config", cfg, "m.0f8l9c> ?p"}, 2, "", "parog kg: kg: invalid freebase entity id \"m.0f8l9c> ?p\"\n"},
		{"update refused", []string{"query", "--config", cfg, "DELETE WHERE { ?s ?p ?o }"}, 1, "", "parog kg: kg: select: kg: query rejected: sparqlgate: query refused: parse error at pos 0: expected SELECT, ASK, or CONSTRUCT\n"},
		{"missing argument", []string{"neighbors", "--config", cfg, "m.0f8l9c"}, 2, "", "parog kg: want 2 argument(s): ENTITY RELATION [--incoming] [--limit N]\n"},
		{"unknown subcommand", []string{"frobnicate"}, 2, "", "parog kg: unknown subcommand \"frobnicate\" (want relations, neighbors, name, search or query)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
			code := Main(context.Background(), append([]string{"kg"}, c.args...), env)
			assert.Equal(t, c.code, code, errOut.String())
			assert.Equal(t, c.stdout, out.String())
			assert.Equal(t, c.stderr, errOut.String())
		})
	}
}
