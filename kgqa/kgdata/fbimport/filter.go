package fbimport

import (
	"bytes"
	"strings"
)

// Well-known namespaces of the dump's non-Freebase predicates.
const (
	rdfNS  = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	rdfsNS = "http://www.w3.org/2000/01/rdf-schema#"
	owlNS  = "http://www.w3.org/2002/07/owl#"
	keyNS  = "http://rdf.freebase.com/key/"
	label  = rdfsNS + "label"
)

// Reasons a well-formed line is dropped.
const (
	DropNoise    = "noise domain"
	DropLanguage = "language not kept"
	DropOutside  = "predicate outside ns:"
	DropObject   = "object outside ns:"
	DropSubject  = "subject outside ns:"
)

// Count is what was kept and dropped of one domain.
type Count struct {
	// Kept and Dropped are line counts.
	Kept    int64 `json:"kept"`
	Dropped int64 `json:"dropped"`
}

// Tally counts a stretch of lines: per domain, per drop reason, bad lines.
type Tally struct {
	// Lines counts every input line, Kept those written.
	Lines int64 `json:"lines"`
	Kept  int64 `json:"kept"`
	// Domains maps the first segment of a Freebase relation ("film"), or
	// the namespace of another predicate ("rdf", "owl", "key"), to counts.
	Domains map[string]*Count `json:"domains"`
	// Dropped counts the well-formed lines left out, per reason.
	Dropped map[string]int64 `json:"dropped"`
	// Blank counts empty and comment lines.
	Blank int64 `json:"blank"`
	// Bad are the lines that are not N-Triples.
	Bad Problems `json:"bad"`
}

func newTally() *Tally {
	return &Tally{Domains: map[string]*Count{}, Dropped: map[string]int64{}}
}

// add merges u, which covers later lines, into t.
func (t *Tally) add(u *Tally) {
	t.Lines += u.Lines
	t.Kept += u.Kept
	t.Blank += u.Blank
	for d, c := range u.Domains {
		tc := t.Domains[d]
		if tc == nil {
			tc = &Count{}
			t.Domains[d] = tc
		}
		tc.Kept += c.Kept
		tc.Dropped += c.Dropped
	}
	for r, n := range u.Dropped {
		t.Dropped[r] += n
	}
	t.Bad.Count += u.Bad.Count
	for _, b := range u.Bad.Examples {
		if len(t.Bad.Examples) < maxExamples {
			t.Bad.Examples = append(t.Bad.Examples, b)
		}
	}
}

func (t *Tally) domain(d []byte, kept bool) {
	c := t.Domains[string(d)]
	if c == nil {
		c = &Count{}
		t.Domains[string(d)] = c
	}
	if kept {
		c.Kept++
	} else {
		c.Dropped++
	}
}

// filter decides which dump lines to keep.
type filter struct {
	langs [][]byte
	noise [][]byte
}

func newFilter(langs, noise []string) *filter {
	f := &filter{}
	for _, l := range langs {
		f.langs = append(f.langs, []byte(strings.ToLower(l)))
	}
	for _, n := range noise {
		f.noise = append(f.noise, []byte(n))
	}
	return f
}

var (
	nsBytes   = []byte(NS)
	nameBytes = []byte(NameRelation)
)

// keep parses line and reports whether to write it, counting it in t. It
// returns a reason when the line is not N-Triples.
func (f *filter) keep(line []byte, tr *triple, t *Tally) (bool, string) {
	why := parseTriple(line, tr)
	if why == errSkip {
		t.Blank++
		return false, ""
	}
	if why != "" {
		return false, why
	}
	domain, drop := f.judge(tr)
	t.domain(domain, drop == "")
	if drop != "" {
		t.Dropped[drop]++
		return false, ""
	}
	t.Kept++
	return true, ""
}

// judge returns the line's domain and why it is dropped ("" to keep it).
func (f *filter) judge(tr *triple) ([]byte, string) {
	if !bytes.HasPrefix(tr.p, nsBytes) {
		domain := foreignDomain(tr.p)
		if string(tr.p) == label && !tr.sBlank && bytes.HasPrefix(tr.s, nsBytes) && tr.oKind == objLiteral && f.langKept(tr.lang) {
			return domain, ""
		}
		if string(tr.p) == label {
			return domain, DropLanguage
		}
		return domain, DropOutside
	}
	rel := tr.p[len(nsBytes):]
	domain := rel
	if i := bytes.IndexByte(rel, '.'); i >= 0 {
		domain = rel[:i]
	}
	if tr.sBlank || !bytes.HasPrefix(tr.s, nsBytes) {
		return domain, DropSubject
	}
	if !bytes.Equal(rel, nameBytes) {
		for _, n := range f.noise {
			if bytes.HasPrefix(rel, n) {
				return domain, DropNoise
			}
		}
	}
	switch tr.oKind {
	case objIRI:
		if !bytes.HasPrefix(tr.o, nsBytes) {
			return domain, DropObject
		}
	case objLiteral:
		if len(tr.lang) > 0 && !f.langKept(tr.lang) {
			return domain, DropLanguage
		}
	}
	return domain, ""
}

// langKept reports whether tag (empty for none) is one of the kept
// languages or a region of one ("en-GB" for "en").
func (f *filter) langKept(tag []byte) bool {
	if len(tag) == 0 {
		return true
	}
	for _, l := range f.langs {
		if len(tag) >= len(l) && bytes.EqualFold(tag[:len(l)], l) && (len(tag) == len(l) || tag[len(l)] == '-') {
			return true
		}
	}
	return false
}

// The domains of the predicates outside ns:, made once: foreignDomain is
// called on every such line of the dump.
var (
	rdfDomain   = []byte("(rdf)")
	rdfsDomain  = []byte("(rdfs)")
	owlDomain   = []byte("(owl)")
	keyDomain   = []byte("(key)")
	otherDomain = []byte("(other)")
)

// foreignDomain names the namespace of a predicate outside ns:.
func foreignDomain(p []byte) []byte {
	switch {
	case bytes.HasPrefix(p, []byte(rdfNS)):
		return rdfDomain
	case bytes.HasPrefix(p, []byte(rdfsNS)):
		return rdfsDomain
	case bytes.HasPrefix(p, []byte(owlNS)):
		return owlDomain
	case bytes.HasPrefix(p, []byte(keyNS)):
		return keyDomain
	}
	return otherDomain
}
