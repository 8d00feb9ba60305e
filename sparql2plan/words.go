package sparql2plan

import "strings"

// This file turns Freebase schema ids into English: type nouns, plurals
// and relation phrases that say which way a hop runs.

// typeNoun names a Freebase type without its domain when the type repeats
// it: "sports.sports_team" -> "team", "film.film_character" -> "character",
// "location.country" -> "country", "education.university" -> "university".
func typeNoun(typeID string) string {
	parts := strings.Split(typeID, ".")
	if len(parts) < 2 {
		return readable(typeID)
	}
	domain, name := parts[len(parts)-2], parts[len(parts)-1]
	if rest, ok := strings.CutPrefix(name, domain+"_"); ok && rest != "" {
		name = rest
	}
	return strings.ReplaceAll(name, "_", " ")
}

// relationType is the type a relation belongs to, i.e. the type of its
// subject: "sports.sports_team.team_mascot" -> "sports.sports_team".
func relationType(rel string) string {
	// An IRI (a Wikidata property) has dots in its host, not a type.
	if strings.Count(rel, ".") < 2 || strings.Contains(rel, "/") {
		return ""
	}
	return relType(rel)
}

// relWords is the readable property of a relation without leading words
// that only repeat its type: "sports.sports_team.team_mascot" -> "mascot",
// "location.country.capital" -> "capital".
func relWords(rel string) string {
	words := strings.Fields(readable(rel))
	typeWords := map[string]bool{}
	for _, w := range strings.Fields(readable(relationType(rel))) {
		typeWords[w] = true
	}
	for len(words) > 1 && typeWords[words[0]] && !(len(words) == 2 && genericWords[words[1]]) {
		words = words[1:]
	}
	out := strings.Join(words, " ")
	switch out {
	case "from":
		return "start date"
	case "to":
		return "end date"
	}
	return out
}

// genericWords are too vague to stand alone once a type word is dropped
// ("release date" stays "release date", not "date").
var genericWords = map[string]bool{"date": true, "number": true, "name": true, "type": true, "id": true, "code": true, "value": true, "amount": true}

// relForm is how a relation's words read in a sentence.
type relForm int

const (
	// formNoun: "capital", "team mascot": the object is the subject's
	// <noun>.
	formNoun relForm = iota
	// formVerb: "contains", "adjoins": the subject <verb> the object.
	formVerb
	// formPassive: "contained by", "produced by", "located in": the
	// subject is <phrase> the object.
	formPassive
	// formParticiple: "works written", "periodicals edited": the object
	// is one of the subject's <noun> <participle> by it.
	formParticiple
	// formByPhrase: "costume design by": the subject has <phrase> the
	// object.
	formByPhrase
)

var verbs = map[string]bool{
	"contains": true, "adjoins": true, "includes": true, "borders": true, "partially": true, "owns": true,
	"uses": true, "has": true, "speaks": true, "produces": true, "publishes": true, "holds": true,
}

var prepositions = map[string]bool{"by": true, "in": true, "on": true, "at": true, "to": true, "from": true, "for": true, "with": true, "into": true, "of": true}

func formOf(words string) relForm {
	ws := strings.Fields(words)
	if len(ws) == 0 {
		return formNoun
	}
	if verbs[ws[0]] {
		return formVerb
	}
	last := ws[len(ws)-1]
	switch {
	case len(ws) > 1 && prepositions[last] && participle(ws[len(ws)-2]):
		return formPassive
	case len(ws) > 1 && prepositions[last]:
		return formByPhrase
	case len(ws) > 1 && participle(last):
		return formParticiple
	}
	return formNoun
}

func participle(w string) bool {
	return len(w) > 4 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en")) && w != "children"
}

// plural makes an English plural of a noun phrase's last word.
func plural(noun string) string {
	if noun == "" {
		return noun
	}
	head, last := "", noun
	if i := strings.LastIndexByte(noun, ' '); i >= 0 {
		head, last = noun[:i+1], noun[i+1:]
	}
	switch {
	case irregularPlural[last] != "":
		last = irregularPlural[last]
	case last == "series" || last == "software" || last == "equipment" || last == "information" || isPlural(last):
	case strings.HasSuffix(last, "y") && len(last) > 1 && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
		last = last[:len(last)-1] + "ies"
	case strings.HasSuffix(last, "s") || strings.HasSuffix(last, "x") || strings.HasSuffix(last, "ch") || strings.HasSuffix(last, "sh"):
		last += "es"
	default:
		last += "s"
	}
	return head + last
}

// irregularPlural are the plurals the suffix rules get wrong, among the
// nouns of Freebase types ("biology.genomic_locus").
var irregularPlural = map[string]string{
	"person": "people", "child": "children", "man": "men", "woman": "women",
	"locus": "loci", "genus": "genera", "nucleus": "nuclei", "fungus": "fungi", "alumnus": "alumni",
	"stimulus": "stimuli", "radius": "radii", "criterion": "criteria", "phenomenon": "phenomena",
	"analysis": "analyses", "thesis": "theses", "hypothesis": "hypotheses", "diagnosis": "diagnoses", "axis": "axes",
}

// isPlural guesses whether a word is already plural ("championships",
// "religions"), so "whose religions include X" reads right.
func isPlural(w string) bool {
	if w == "people" || w == "children" || w == "series" {
		return true
	}
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

// constantNames names the attribute values that queries use as constants
// without the dataset naming them (WebQSP names only topic entities).
var constantNames = map[string]string{"m.05zppz": "Male", "m.02zsn": "Female"}

// ConstantName is the name subgoal texts give a constant value the
// dataset does not name ("m.05zppz" is "Male"), "" when it has none.
func ConstantName(id string) string { return constantNames[id] }

// notableTypeNames names the Freebase notable-type ids that WebQSP and
// ComplexWebQuestions queries use (common.topic.notable_types); a dataset's
// own names take precedence.
var notableTypeNames = map[string]string{
	"m.01mp":    "country",
	"m.01y2hnl": "college",
	"m.01xljv1": "Super Bowl",
	"m.01xryvm": "book",
	"m.01nt":    "region",
	"m.01m9":    "city",
}
