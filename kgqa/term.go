package kgqa

// Direction says which way a relation points relative to an entity.
type Direction string

// The two directions of a relation.
const (
	// Out is (e, r, ?): the entity is the subject.
	Out Direction = "out"
	// In is (?, r, e): the entity is the object.
	In Direction = "in"
)

// Relation is a relation id (dialect form, e.g. "location.location.contains"
// or "P17") together with its direction relative to an entity.
type Relation struct {
	// ID is the dialect's relation id, without prefix.
	ID string `json:"id"`
	// Dir is Out when the entity is the subject.
	Dir Direction `json:"dir"`
}

// Term is a node of the graph: an entity (ID set) or a literal.
type Term struct {
	// ID is the entity id in dialect form ("m.0f8l9c", "Q142"); empty for a
	// literal.
	ID string `json:"id,omitempty"`
	// Name is the entity's name, or the literal's lexical form.
	Name string `json:"name,omitempty"`
	// Datatype is the literal's datatype IRI (empty for entities and plain
	// strings).
	Datatype string `json:"datatype,omitempty"`
	// Lang is the literal's language tag.
	Lang string `json:"lang,omitempty"`
}

// IsEntity reports whether t is an entity rather than a literal.
func (t Term) IsEntity() bool { return t.ID != "" }

// Key identifies t for set logic: the id of an entity, or the lexical form
// of a literal.
func (t Term) Key() string {
	if t.ID != "" {
		return t.ID
	}
	return "\"" + t.Name + "\"^^" + t.Datatype
}

// Fact is one piece of evidence: Head and Tail joined by a path of one
// relation, or two when it passes through a mediator (CVT) node, so that
// such a path reads as one fact.
//
// A mediator is an n-ary fact, and which of its edges point in or out of
// it is an accident of modelling: a Freebase border node is the object of
// one country's adjoin_s and the subject of adjoins to the other. The
// second hop is therefore read in either direction, and Dir2 says which:
//
//	Dir  Dir2  edges
//	out  out   Head -Path[0]-> Mediator -Path[1]-> Tail
//	out  in    Head -Path[0]-> Mediator <-Path[1]- Tail
//	in   out   Head <-Path[0]- Mediator -Path[1]-> Tail
//	in   in    Head <-Path[0]- Mediator <-Path[1]- Tail
type Fact struct {
	// Head is the anchor entity the fact was retrieved from.
	Head Term `json:"head"`
	// Path holds the relation ids from Head to Tail: one id, or two when
	// the fact passes through Mediator.
	Path []string `json:"path"`
	// Dir is the direction of the first relation relative to Head.
	Dir Direction `json:"dir"`
	// Dir2 is the direction of the second relation relative to the
	// mediator: Out when the mediator is its subject (Freebase CVT
	// properties, Wikidata statement values and qualifiers), In when the
	// mediator is its object. Set on every two-hop fact, empty on a
	// one-hop fact; an empty Dir2 on a two-hop fact reads as Out.
	Dir2 Direction `json:"dir2,omitempty"`
	// Mediator is the id of the nameless mediator node, if any.
	Mediator string `json:"mediator,omitempty"`
	// Tail is the entity or literal reached.
	Tail Term `json:"tail"`
}

// SecondDir returns the direction of the second relation of a two-hop
// fact (Out when Dir2 is unset), or "" for a one-hop fact.
func (f Fact) SecondDir() Direction {
	switch {
	case len(f.Path) < 2:
		return ""
	case f.Dir2 == In:
		return In
	}
	return Out
}

// Entity is an entity id with its name.
type Entity struct {
	// ID is the entity id in dialect form.
	ID string `json:"id"`
	// Name is the entity's name (empty when it has none).
	Name string `json:"name"`
}
