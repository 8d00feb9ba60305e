package sparql2plan

import (
	"testing"

	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/sft"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
		rules          []Rule
	}{
		{
			name:  "OR in the language filter",
			in:    "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ?x ns:a.b ?y . FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en')) }",
			want:  "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ?x ns:a.b ?y . FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en')) }",
			rules: []Rule{RuleBoolWords},
		},
		{
			name:  "OR inside a literal or a name is not a keyword",
			in:    `PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ?x ns:imports_and_exports.a "Oregon OR Washington" }`,
			want:  `PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ?x ns:imports_and_exports.a "Oregon OR Washington" }`,
			rules: nil,
		},
		{
			name:  "undeclared xsd with lower-case datetime cast",
			in:    "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { ?x ns:a.b ?d . } ORDER BY DESC(xsd:datetime(?d)) LIMIT 1",
			want:  "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\nPREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { ?x ns:a.b ?d . } ORDER BY DESC(xsd:dateTime(?d)) LIMIT 1",
			rules: []Rule{RuleCastCase, RulePrefixes},
		},
		{
			name:  "dotted name as a FILTER operand",
			in:    "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { FILTER (?x != ns:m.0dq9wx) ns:m.0dq9wx ns:a.b ?x . }",
			want:  "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { FILTER (?x != <http://rdf.freebase.com/ns/m.0dq9wx>) ns:m.0dq9wx ns:a.b ?x . }",
			rules: []Rule{RuleExprNames},
		},
		{
			name:  "comment header, IRI with # kept",
			in:    "#MANUAL SPARQL\nPREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { ?x ns:a.b \"1\"^^<http://www.w3.org/2001/XMLSchema#int> . # trailing\n}",
			want:  " \nPREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { ?x ns:a.b \"1\"^^<http://www.w3.org/2001/XMLSchema#int> .  \n}",
			rules: []Rule{RuleComments},
		},
		{
			name:  "less-than is not an IRI",
			in:    "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ?x ns:a.b ?n . FILTER (?n <5 AND ?n>1) }",
			want:  "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ?x ns:a.b ?n . FILTER (?n <5 && ?n>1) }",
			rules: []Rule{RuleBoolWords},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rules := Normalize(tc.in)
			assert.Equal(t, tc.want, got)
			assert.ElementsMatch(t, tc.rules, rules)
			_, err := sparqlsyntax.Parse(got)
			assert.NoError(t, err, "normalised query must parse")
		})
	}
}

// TestNormalizeIsNeeded pins the dialect problem: the raw CWQ form does
// not parse, the normalised one does.
func TestNormalizeIsNeeded(t *testing.T) {
	raw := "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x\nWHERE {\nFILTER (?x != ?c)\nFILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))\n?c ns:sports.sports_team.team_mascot ns:m.03_dwn . \n?c ns:sports.sports_team.championships ?x .\n?x ns:time.event.start_date ?sk0 .\n}\nORDER BY DESC(xsd:datetime(?sk0))\nLIMIT 1\n"
	_, err := sparqlsyntax.Parse(raw)
	require.Error(t, err)
	norm, _ := Normalize(raw)
	_, err = sparqlsyntax.Parse(norm)
	require.NoError(t, err)
}

func TestSourceSplitOf(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"../shared/data/webqsp/WebQSP.train.json", sft.SourceTrain},
		{"/data/ComplexWebQuestions_dev.json", sft.SourceDev},
		{"grailqa_v1.0_test_public.json", sft.SourceTest},
		{"grailqa_v1.0_valid.json", sft.SourceDev},
		{"../shared/data/cwq_sample.json", ""},
		{"train_vs_test.json", ""},
		{"/train/cwq.json", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			assert.Equal(t, tc.want, SourceSplitOf(tc.path))
		})
	}
}
