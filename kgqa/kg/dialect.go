package kg

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
)

// Namespaces of the two dialects.
const (
	// FreebaseNS is the ns: prefix of Freebase entities and relations.
	FreebaseNS = "http://rdf.freebase.com/ns/"
	// WikidataEntityNS is the wd: prefix of Wikidata items.
	WikidataEntityNS = "http://www.wikidata.org/entity/"
	// WikidataDirectNS is the wdt: prefix of Wikidata truthy claims.
	WikidataDirectNS = "http://www.wikidata.org/prop/direct/"
	// WikidataClaimNS is the p: prefix linking an item to its statements.
	WikidataClaimNS = "http://www.wikidata.org/prop/"
	// WikidataStatementNS is the ps: prefix of a statement's main value.
	WikidataStatementNS = "http://www.wikidata.org/prop/statement/"
	// WikidataQualifierNS is the pq: prefix of statement qualifiers.
	WikidataQualifierNS = "http://www.wikidata.org/prop/qualifier/"

	rdfsLabel = "http://www.w3.org/2000/01/rdf-schema#label"
)

// DialectOptions tune a dialect.
type DialectOptions struct {
	// Language is the language tag of names and labels ("en" when empty).
	Language string
	// NoiseRelations replaces the dialect's default noise list when not
	// empty. Freebase entries are prefixes ("common."), Wikidata entries are
	// property ids ("P646").
	NoiseRelations []string
}

// expansion says how a dialect turns a two-hop path into one fact.
type expansion int

const (
	// expandMediator expands nameless entities (Freebase CVT nodes).
	expandMediator expansion = iota
	// expandQualifier reads statement qualifiers (Wikidata p:/ps:/pq:).
	expandQualifier
)

// vocab is everything the query builder needs to know about a dialect.
type vocab struct {
	name      string
	entityNS  string
	relNS     string
	namePred  string
	lang      string
	expansion expansion
}

// dialect is the concrete Dialect of both vocabularies; the grammar and the
// noise rule are what differ.
type dialect struct {
	v           vocab
	entityRE    *regexp.Regexp
	relationRE  *regexp.Regexp
	noise       []string
	noisePrefix bool
	readable    func(string) string
}

var (
	freebaseEntityRE   = regexp.MustCompile(`^[mg]\.[0-9a-z_]{1,24}$`)
	freebaseRelationRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}(\.[a-z0-9_]{1,64}){2,4}$`)
	wikidataEntityRE   = regexp.MustCompile(`^Q[1-9][0-9]{0,11}$`)
	wikidataRelationRE = regexp.MustCompile(`^P[1-9][0-9]{0,11}$`)
	langTagRE          = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)
)

// DefaultFreebaseNoise are the relation prefixes Freebase exploration drops:
// schema bookkeeping, topic boilerplate and links to other datasets.
// Predicates outside ns: (rdf:type, owl:sameAs, rdfs:label) are never
// relations of the dialect and are dropped as well. base.* is kept: user
// domains hold real facts that benchmark answers use.
var DefaultFreebaseNoise = []string{
	"type.object.", "type.type.", "type.property.", "type.content",
	"common.", "freebase.", "kg.", "dataworld.", "user.", "imdb.", "source.",
	"base.ontologies.", "base.schemastaging.context_name",
}

// DefaultWikidataNoise are Wikidata properties that are identifiers or media
// rather than facts.
var DefaultWikidataNoise = []string{"P18", "P373", "P646", "P910", "P1343", "P2671", "P8408"}

// Freebase returns the Freebase dialect: ns: ids, names from
// type.object.name in opts.Language, nameless mediator (CVT) nodes expanded
// one hop.
func Freebase(opts DialectOptions) Dialect {
	noise := opts.NoiseRelations
	if len(noise) == 0 {
		noise = DefaultFreebaseNoise
	}
	return &dialect{
		v: vocab{
			name: "freebase", entityNS: FreebaseNS, relNS: FreebaseNS,
			namePred: FreebaseNS + "type.object.name", lang: language(opts.Language),
			expansion: expandMediator,
		},
		entityRE: freebaseEntityRE, relationRE: freebaseRelationRE,
		noise: noise, noisePrefix: true, readable: readableFreebase,
	}
}

// Wikidata returns the Wikidata dialect: wd:/wdt: ids, labels from
// rdfs:label in opts.Language, relations from truthy edges and from
// statements, statements (p:/ps:/pq:) read as two-hop facts through the
// statement node: from the subject, the main value and the qualifiers;
// from the main value, the subject and the qualifiers. Deprecated
// statements are left out, and a statement with no qualifier that repeats
// a truthy edge gives no fact of its own (statement.go has the rules).
func Wikidata(opts DialectOptions) Dialect {
	noise := opts.NoiseRelations
	if len(noise) == 0 {
		noise = DefaultWikidataNoise
	}
	return &dialect{
		v: vocab{
			name: "wikidata", entityNS: WikidataEntityNS, relNS: WikidataDirectNS,
			namePred: rdfsLabel, lang: language(opts.Language), expansion: expandQualifier,
		},
		entityRE: wikidataEntityRE, relationRE: wikidataRelationRE,
		noise: noise, readable: readableWikidata,
	}
}

// NewDialect returns the dialect cfg names, with its language and noise list.
func NewDialect(cfg config.KG) (Dialect, error) {
	if cfg.Language != "" && !langTagRE.MatchString(cfg.Language) {
		return nil, fmt.Errorf("kg: kg.language: invalid language tag %q", cfg.Language)
	}
	opts := DialectOptions{Language: cfg.Language, NoiseRelations: cfg.NoiseRelations}
	switch strings.ToLower(cfg.Dialect) {
	case "freebase", "":
		return Freebase(opts), nil
	case "wikidata":
		return Wikidata(opts), nil
	}
	return nil, fmt.Errorf("kg: kg.dialect: unknown dialect %q (want freebase or wikidata)", cfg.Dialect)
}

// language returns a safe language tag: tags that do not fit BCP 47's shape
// fall back to "en" so they can never reach a query.
func language(tag string) string {
	if tag == "" || !langTagRE.MatchString(tag) {
		return "en"
	}
	return strings.ToLower(tag)
}

// Name implements Dialect.
func (d *dialect) Name() string { return d.v.name }

// ValidEntity implements Dialect.
func (d *dialect) ValidEntity(id string) bool { return d.entityRE.MatchString(id) }

// ValidRelation implements Dialect.
func (d *dialect) ValidRelation(id string) bool { return d.relationRE.MatchString(id) }

// Noise implements Dialect.
func (d *dialect) Noise(rel string) bool {
	if strings.Contains(strings.ToLower(rel), "sameas") {
		return true
	}
	for _, n := range d.noise {
		if rel == n || (d.noisePrefix && strings.HasPrefix(rel, n)) {
			return true
		}
	}
	return false
}

// Readable implements Dialect.
func (d *dialect) Readable(rel string) string { return d.readable(rel) }

func (d *dialect) checkEntity(id string) error {
	if !d.ValidEntity(id) {
		return &IDError{Kind: "entity", Value: id, Dialect: d.v.name}
	}
	return nil
}

func (d *dialect) checkRelation(rel kgqa.Relation) error {
	if !d.ValidRelation(rel.ID) {
		return &IDError{Kind: "relation", Value: rel.ID, Dialect: d.v.name}
	}
	if rel.Dir != kgqa.Out && rel.Dir != kgqa.In {
		return &IDError{Kind: "direction", Value: string(rel.Dir), Dialect: d.v.name}
	}
	return nil
}

// localID maps an IRI of the dialect's entity namespace to its id; other
// IRIs keep their full form.
func (d *dialect) localID(iri string) string {
	if rest, ok := strings.CutPrefix(iri, d.v.entityNS); ok && rest != "" {
		return rest
	}
	return iri
}

// relationID maps a predicate IRI to a relation id, or reports false when it
// is not a relation of the dialect (rdf:type, owl:sameAs, rdfs:label, ...).
func (d *dialect) relationID(iri string) (string, bool) {
	rest, ok := strings.CutPrefix(iri, d.v.relNS)
	if !ok || !d.ValidRelation(rest) {
		return "", false
	}
	return rest, true
}

// readableFreebase renders "sports.sports_team.team_mascot" as
// "sports team: team mascot": the type names the subject, the property what
// is asked about.
func readableFreebase(rel string) string {
	parts := strings.Split(rel, ".")
	if len(parts) < 3 {
		return strings.ReplaceAll(rel, "_", " ")
	}
	typ := strings.ReplaceAll(parts[len(parts)-2], "_", " ")
	prop := strings.ReplaceAll(parts[len(parts)-1], "_", " ")
	return typ + ": " + prop
}

// wikidataLabels names the properties most questions touch; others read as
// their id, which the LLM still recognises.
var wikidataLabels = map[string]string{
	"P17": "country", "P19": "place of birth", "P20": "place of death", "P22": "father",
	"P25": "mother", "P26": "spouse", "P27": "country of citizenship", "P31": "instance of",
	"P36": "capital", "P35": "head of state", "P6": "head of government", "P37": "official language",
	"P38": "currency", "P40": "child", "P47": "shares border with", "P50": "author",
	"P57": "director", "P69": "educated at", "P106": "occupation", "P108": "employer",
	"P112": "founded by", "P131": "located in the administrative territorial entity",
	"P150": "contains the administrative territorial entity", "P161": "cast member",
	"P166": "award received", "P279": "subclass of", "P30": "continent",
	"P39": "position held", "P54": "member of sports team", "P569": "date of birth",
	"P570": "date of death", "P571": "inception", "P577": "publication date",
	"P580": "start time", "P582": "end time", "P585": "point in time", "P1082": "population",
	"P2046": "area", "P2044": "elevation above sea level", "P495": "country of origin",
	"P527": "has part", "P361": "part of", "P710": "participant", "P1346": "winner",
	"P159": "headquarters location", "P176": "manufacturer", "P264": "record label",
	"P136": "genre", "P175": "performer", "P86": "composer", "P800": "notable work",
	"P931": "place served by transport hub", "P1376": "capital of", "P238": "IATA airport code",
	"P276": "location", "P625": "coordinate location", "P1448": "official name", "P2048": "height",
	"P2043": "length", "P4614": "drainage basin", "P974": "tributary", "P403": "mouth of the watercourse",
	"P115": "home venue", "P286": "head coach", "P118": "league", "P1923": "participating team",
	"P1411": "nominated for", "P1441": "present in work", "P162": "producer", "P58": "screenwriter",
	"P272": "production company", "P364": "original language of film or TV show", "P407": "language of work or name",
	"P793": "significant event", "P1830": "owner of", "P127": "owned by", "P749": "parent organization",
	"P355": "has subsidiary", "P452": "industry", "P1128": "employees", "P2139": "total revenue",
	"P1120": "number of deaths", "P1174": "visitors per year", "P2131": "nominal GDP", "P1081": "Human Development Index",
	"P421": "located in time zone", "P206": "located in or next to body of water", "P706": "located in/on physical feature",
	"P610": "highest point", "P1589": "lowest point", "P3373": "sibling", "P1038": "relative",
	"P463": "member of", "P102": "member of political party", "P140": "religion or worldview", "P1412": "languages spoken, written or signed",
	"P103": "native language", "P21": "sex or gender", "P734": "family name", "P735": "given name",
	"P1449": "nickname", "P2031": "work period (start)", "P2032": "work period (end)", "P512": "academic degree",
	"P812": "academic major", "P803": "professorship", "P184": "doctoral advisor", "P185": "doctoral student",
	"P1344": "participant in", "P1027": "conferred by", "P642": "of", "P1545": "series ordinal",
	"P1686": "for work", "P3831": "object has role", "P2868": "subject has role", "P453": "character role",
	"P674": "characters", "P155": "follows", "P156": "followed by", "P1365": "replaces", "P1366": "replaced by",
	"P1001": "applies to jurisdiction", "P1308": "officeholder", "P122": "basic form of government",
	"P194": "legislative body", "P208": "executive body", "P530": "diplomatic relation",
}

func readableWikidata(rel string) string {
	if l := wikidataLabels[rel]; l != "" {
		return l + " (" + rel + ")"
	}
	return rel
}
