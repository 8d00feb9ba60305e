package densify

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Literal kinds: the value types of properties whose range is a
// type.* primitive. An empty Kind is an object (an entity or a mediator).
const (
	KindDatetime = "type.datetime"
	KindInt      = "type.int"
	KindFloat    = "type.float"
	KindText     = "type.text"
	KindBoolean  = "type.boolean"
	KindRaw      = "type.rawstring"
	KindEnum     = "type.enumeration"
)

var literalKinds = map[string]bool{
	KindDatetime: true, KindInt: true, KindFloat: true, KindText: true,
	KindBoolean: true, KindRaw: true, KindEnum: true,
}

// Property is one Freebase property as the schema describes it.
type Property struct {
	// ID is the dotted id, such as people.person.date_of_birth.
	ID string
	// Domain and Range are type ids; Range may be a literal kind.
	Domain, Range string
	// Unique is Freebase's single-valued flag.
	Unique bool
	// Reverse is the reverse property's id, or "".
	Reverse string
}

// Literal reports whether the property's values are literals.
func (p *Property) Literal() bool { return literalKinds[p.Range] }

// Type is one Freebase type.
type Type struct {
	// ID is the dotted id, such as people.person.
	ID string
	// Out are the properties of the type; In those whose range it is.
	Out, In []*Property
	// Count is the number of instances in the real dump (0: unknown).
	Count int64
	// Mediator is set for compound value types (CVTs): types that are
	// not topics, whose instances have no name.
	Mediator bool
	// Super are the type's supertypes (meta.subclassOf).
	Super []string
	index int
}

// Schema is the part of the real Freebase schema densify uses.
type Schema struct {
	Props map[string]*Property
	Types map[string]*Type
	// order lists the types by id, so that every walk is deterministic.
	order []*Type
}

// skippedDomains never receive synthetic facts: Freebase's own
// bookkeeping, users' scratch types, and the untyped base domains.
var skippedDomains = []string{"type.", "freebase.", "user.", "base.", "common.", "m.", "kg.", "dataworld.", "pipeline.", "topic_server."}

// Skipped reports whether facts of property or type id are never made.
func Skipped(id string) bool {
	for _, d := range skippedDomains {
		if strings.HasPrefix(id, d) {
			return true
		}
	}
	return false
}

// LoadSchema reads fb_roles, fb_types, reverse_properties,
// properties-typeinfo.nt and type-instance-counts.tsv from dir.
func LoadSchema(dir string) (*Schema, error) {
	s := &Schema{Props: map[string]*Property{}, Types: map[string]*Type{}}
	steps := []struct {
		name string
		read func(io.Reader) error
	}{
		{"fb_roles", s.readRoles},
		{"fb_types", s.readTypes},
		{"reverse_properties", s.readReverses},
		{"properties-typeinfo.nt", s.readTypeinfo},
		{"type-instance-counts.tsv", s.readCounts},
	}
	for _, st := range steps {
		if err := readFile(filepath.Join(dir, st.name), st.read); err != nil {
			return nil, err
		}
	}
	for _, t := range s.Types {
		s.order = append(s.order, t)
	}
	sort.Slice(s.order, func(i, j int) bool { return s.order[i].ID < s.order[j].ID })
	for i, t := range s.order {
		t.index = i
		sort.Slice(t.Out, func(i, j int) bool { return t.Out[i].ID < t.Out[j].ID })
		sort.Slice(t.In, func(i, j int) bool { return t.In[i].ID < t.In[j].ID })
	}
	if len(s.Props) == 0 {
		return nil, fmt.Errorf("densify: schema %s: fb_roles holds no property", dir)
	}
	return s, nil
}

func readFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("densify: schema: %w", err)
	}
	defer func() { _ = f.Close() }()
	if err := read(f); err != nil {
		return fmt.Errorf("densify: schema %s: %w", path, err)
	}
	return nil
}

func (s *Schema) typ(id string) *Type {
	t := s.Types[id]
	if t == nil {
		t = &Type{ID: id, Mediator: true}
		s.Types[id] = t
	}
	return t
}

func eachLine(r io.Reader, fn func(f []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return sc.Err()
}

func (s *Schema) readRoles(r io.Reader) error {
	return eachLine(r, func(f []string) error {
		if len(f) != 3 {
			// The real file has a line where two were run together
			// (...holes type.intbase.litcentral...): it names no
			// property cleanly, so it is left out.
			return nil
		}
		p := &Property{ID: f[1], Domain: f[0], Range: f[2]}
		s.Props[p.ID] = p
		s.typ(p.Domain).Out = append(s.typ(p.Domain).Out, p)
		if !strings.HasPrefix(p.Range, "type.") {
			s.typ(p.Range).In = append(s.typ(p.Range).In, p)
		}
		return nil
	})
}

// readTypes reads the hierarchy; a type with common.topic among its
// supertypes is a topic, every other one a mediator.
func (s *Schema) readTypes(r io.Reader) error {
	return eachLine(r, func(f []string) error {
		if len(f) < 3 || f[1] != "meta.subclassOf" {
			return nil
		}
		t := s.typ(f[0])
		if f[2] == "common.topic" {
			t.Mediator = false
		}
		for _, x := range t.Super {
			if x == f[2] {
				return nil
			}
		}
		t.Super = append(t.Super, f[2])
		return nil
	})
}

func (s *Schema) readReverses(r io.Reader) error {
	return eachLine(r, func(f []string) error {
		if len(f) != 2 {
			return nil
		}
		a, b := s.Props[f[0]], s.Props[f[1]]
		if a != nil && b != nil {
			a.Reverse, b.Reverse = b.ID, a.ID
		}
		return nil
	})
}

// readTypeinfo reads the unique flags: lines `</mid> </type.object.id>
// "/a/b/c"` name a property, `</mid> </type.property.unique> "true"` flag it.
func (s *Schema) readTypeinfo(r io.Reader) error {
	ids := map[string]string{}
	unique := map[string]bool{}
	err := eachLine(r, func(f []string) error {
		if len(f) < 3 {
			return nil
		}
		switch f[1] {
		case "</type.object.id>":
			ids[f[0]] = strings.ReplaceAll(strings.Trim(f[2], `"/`), "/", ".")
		case "</type.property.unique>":
			unique[f[0]] = f[2] == `"true"`
		}
		return nil
	})
	for mid, u := range unique {
		if p := s.Props[ids[mid]]; p != nil {
			p.Unique = u
		}
	}
	return err
}

func (s *Schema) readCounts(r io.Reader) error {
	return eachLine(r, func(f []string) error {
		if len(f) != 2 {
			return nil
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return fmt.Errorf("count %q: %w", f[1], err)
		}
		if t := s.Types[strings.Trim(f[0], "</>")]; t != nil {
			t.Count = n
		}
		return nil
	})
}
