package kg

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Schema is the part of the Freebase schema that types a relation's
// values: the type each property belongs to (its domain), the type of its
// values (its range), and the type hierarchy. The engine reads it to say
// what kind of entity a subgoal's answer is.
type Schema struct {
	domain, rng map[string]string
	super       map[string][]string
}

// LoadSchema reads fb_roles ("domain_type property range_type" lines) and
// fb_types ("type meta.subclassOf supertype" lines) from dir, the layout
// of the GrailQA ontology folder.
func LoadSchema(dir string) (*Schema, error) {
	s := &Schema{domain: map[string]string{}, rng: map[string]string{}, super: map[string][]string{}}
	err := eachSchemaLine(filepath.Join(dir, "fb_roles"), func(f []string) {
		// The real file has a line where two ran together: it names no
		// property cleanly, so it is left out.
		if len(f) == 3 || (len(f) == 4 && f[3] == ".") {
			s.domain[f[1]], s.rng[f[1]] = f[0], f[2]
		}
	})
	if err != nil {
		return nil, err
	}
	if len(s.rng) == 0 {
		return nil, fmt.Errorf("kg: schema %s: fb_roles holds no property", dir)
	}
	err = eachSchemaLine(filepath.Join(dir, "fb_types"), func(f []string) {
		if len(f) >= 3 && f[1] == "meta.subclassOf" && f[0] != f[2] {
			s.super[f[0]] = append(s.super[f[0]], f[2])
		}
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func eachSchemaLine(path string, fn func(f []string)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("kg: schema: %w", err)
	}
	defer func() { _ = f.Close() }()
	return readSchemaLines(f, path, fn)
}

func readSchemaLines(r io.Reader, path string, fn func(f []string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			fn(f)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("kg: schema %s: %w", path, err)
	}
	return nil
}

// Range returns the type of the values of property rel ("" when the
// schema does not know it); a literal's range is a type.* primitive such
// as type.datetime.
func (s *Schema) Range(rel string) string {
	if s == nil {
		return ""
	}
	return s.rng[rel]
}

// Domain returns the type property rel belongs to: the schema's, or, for
// a property the schema does not list, its id without the last part
// (Freebase names a property inside its type: people.person.place_of_birth
// belongs to people.person). "" when rel has no dotted type.
func (s *Schema) Domain(rel string) string {
	if s != nil {
		if d, ok := s.domain[rel]; ok {
			return d
		}
	}
	i := strings.LastIndexByte(rel, '.')
	if i <= 0 || strings.IndexByte(rel[:i], '.') < 0 {
		return ""
	}
	return rel[:i]
}

// Supertypes returns t and every type it is a subclass of, t first.
func (s *Schema) Supertypes(t string) []string {
	out := []string{t}
	if s == nil {
		return out
	}
	seen := map[string]bool{t: true}
	for i := 0; i < len(out); i++ {
		for _, u := range s.super[out[i]] {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}
