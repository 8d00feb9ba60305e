package compile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
	"github.com/parog/parog-go/kgqa/kg"
)

// TestTypesOnEveryOp checks that a type constrains the result of any op
// (an intersection's, not only a find's), that a find with only types is
// the members of the types, and that a short number is not read as a
// year.
func TestTypesOnEveryOp(t *testing.T) {
	fb := kg.Freebase(kg.DialectOptions{})
	q := &compile.Query{Answer: "s3", Nodes: []compile.Node{
		{ID: "s1", Op: kgqa.OpFind, Types: []string{"theater.play"}},
		{ID: "s2", Op: kgqa.OpFind, Anchors: []string{"m.0yrlqjm"}, Paths: []compile.Path{{{Relation: "theater.play.productions", Dir: kgqa.In}}}},
		{ID: "s3", Op: kgqa.OpIntersect, Needs: []string{"s1", "s2"}, Types: []string{"theater.musical"}},
	}}
	out, err := compile.Compile(q, fb)
	require.NoError(t, err)
	assert.Contains(t, out, "?answer ns:type.object.type ns:theater.play .")
	assert.Contains(t, out, "?answer ns:theater.play.productions ns:m.0yrlqjm .")
	assert.Contains(t, out, "}\n?answer ns:type.object.type ns:theater.musical .", "the intersection's own type, outside its groups")

	q = &compile.Query{Answer: "s2", Nodes: []compile.Node{
		{ID: "s1", Op: kgqa.OpFind, Anchors: []string{"m.05nrg"}, Paths: []compile.Path{{{Relation: "location.location.contains", Dir: kgqa.Out}}}},
		{ID: "s2", Op: kgqa.OpFilter, Needs: []string{"s1"}, Attribute: []compile.Path{{{Relation: "location.location.area", Dir: kgqa.Out}}}, Cmp: "=", Value: "-6.0"},
	}}
	out, err = compile.Compile(q, fb)
	require.NoError(t, err, "a four-character number is a number")
	assert.Contains(t, out, `"-6"^^xsd:double`)
}
