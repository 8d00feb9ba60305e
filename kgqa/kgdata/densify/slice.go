package densify

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// NS is the Freebase namespace of every IRI in the slice and the world.
const NS = "http://rdf.freebase.com/ns/"

const nameProp = "type.object.name"

// entity is one node of the real slice.
type entity struct {
	id string
	// named nodes are topics; unnamed ones are the slice's mediators.
	named bool
	// degree counts the real triples the node is in (names aside).
	degree int
	// types are the types the node's real relations imply.
	types map[string]bool
	// rels are the real relations at the node, as "+p" (out) and "-p" (in).
	rels map[string]bool
}

// slice is what densify keeps of the real slice: its nodes and the set of
// relations it uses, which stay closed for real entities.
type slice struct {
	nodes map[string]*entity
	// used holds every predicate of the slice and its reverse.
	used    map[string]bool
	triples int64
}

// readSlice copies the slice's lines to emit unchanged and records its
// nodes, relations and implied types.
func readSlice(path string, s *Schema, emit func(line string) error) (*slice, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("densify: slice: %w", err)
	}
	defer func() { _ = f.Close() }()
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("densify: slice %s: %w", path, err)
		}
		defer func() { _ = gz.Close() }()
		r = gz
	}
	sl := &slice{nodes: map[string]*entity{}, used: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		subj, pred, obj, ok := splitTriple(line)
		if !ok {
			return nil, fmt.Errorf("densify: slice %s: line %d: not an N-Triples line of Freebase IRIs: %.120q", path, n, line)
		}
		if err := emit(line); err != nil {
			return nil, err
		}
		sl.triples++
		sl.add(s, subj, pred, obj)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("densify: slice %s: %w", path, err)
	}
	if len(sl.nodes) == 0 {
		return nil, fmt.Errorf("densify: slice %s holds no triple", path)
	}
	return sl, nil
}

// splitTriple returns the local names of a line's subject and predicate,
// and its object's local name ("" for a literal).
func splitTriple(line string) (subj, pred, obj string, ok bool) {
	f := strings.SplitN(line, " ", 3)
	if len(f) < 3 {
		f = strings.SplitN(line, "\t", 3)
	}
	if len(f) < 3 {
		return "", "", "", false
	}
	subj, ok1 := local(f[0])
	pred, ok2 := local(f[1])
	if !ok1 || !ok2 {
		return "", "", "", false
	}
	o := strings.TrimSpace(f[2])
	if strings.HasPrefix(o, "<") {
		end := strings.IndexByte(o, '>')
		if end < 0 {
			return "", "", "", false
		}
		if obj, ok = local(o[:end+1]); !ok {
			return "", "", "", false
		}
	}
	return subj, pred, obj, true
}

func local(iri string) (string, bool) {
	if !strings.HasPrefix(iri, "<"+NS) || !strings.HasSuffix(iri, ">") {
		return "", false
	}
	return iri[len(NS)+1 : len(iri)-1], true
}

func (sl *slice) node(id string) *entity {
	e := sl.nodes[id]
	if e == nil {
		e = &entity{id: id, types: map[string]bool{}, rels: map[string]bool{}}
		sl.nodes[id] = e
	}
	return e
}

func (sl *slice) add(s *Schema, subj, pred, obj string) {
	sl.used[pred] = true
	e := sl.node(subj)
	if pred == nameProp {
		e.named = true
		return
	}
	e.degree++
	e.rels["+"+pred] = true
	p := s.Props[pred]
	if p != nil {
		e.types[p.Domain] = true
		if p.Reverse != "" {
			sl.used[p.Reverse] = true
		}
	}
	if obj == "" {
		return
	}
	o := sl.node(obj)
	o.degree++
	o.rels["-"+pred] = true
	if p != nil && !p.Literal() {
		o.types[p.Range] = true
	}
}

// realEntities lists the named nodes of the slice by id.
func (sl *slice) realEntities() []*entity {
	var es []*entity
	for _, e := range sl.nodes {
		if e.named {
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].id < es[j].id })
	return es
}
