package fbimport

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// FB15kReport counts what an FB15k-237 import read and wrote.
type FB15kReport struct {
	// Lines are the triple lines read per archive member (train.txt, ...).
	Lines map[string]int64 `json:"lines"`
	// Facts are lines with one relation, written as one triple.
	Facts int64 `json:"facts"`
	// Paths are lines with a two-hop path /a/b/c./d/e/f, each written as a
	// new mediator node with its two edges.
	Paths int64 `json:"paths"`
	// Names are the type.object.name triples written.
	Names int64 `json:"names"`
	// Triples is everything written.
	Triples int64 `json:"triples"`
	// Entities are the distinct entities of the facts; Unnamed those of them
	// the names file does not name.
	Entities int `json:"entities"`
	// Unnamed counts entities of the facts without a name.
	Unnamed int `json:"unnamed"`
	// Bad are the lines of the triple files and the names file left out.
	Bad Problems `json:"bad"`
}

// mediatorPrefix starts every rebuilt mediator id. Real MIDs begin with a
// digit after "m.", so these never collide with one.
const mediatorPrefix = "m.fb15k_cvt_"

// fb15kMembers are the archive members holding triples, in load order.
var fb15kMembers = []string{"train.txt", "valid.txt", "test.txt"}

// ImportFB15k237 reads the FB15k-237 archive (a .tar.gz holding
// train/valid/test.txt) and the names file (one MID<TAB>Name_With_Underscores
// per line) and writes N-Triples to out, gzip-compressed when out ends in
// .gz. The file appears only when complete; bad lines are counted in the
// report, not fatal. A truncated or unreadable archive is an error naming
// the member and line reached.
func ImportFB15k237(ctx context.Context, archive, names, out string) (*FB15kReport, error) {
	rep := &FB15kReport{Lines: map[string]int64{}}
	nameOf, err := readNames(names, rep)
	if err != nil {
		return nil, err
	}
	err = writeAtomically(out, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		seen := map[string]bool{}
		if err := readArchive(ctx, archive, rep, func(h, rel, t string) {
			seen[h], seen[t] = true, true
			writeFB15kLine(bw, rep, h, rel, t)
		}); err != nil {
			return err
		}
		rep.Entities = len(seen)
		for _, n := range nameOf.order {
			if !seen[n] {
				continue
			}
			fmt.Fprintf(bw, "<%s%s> <%s%s> \"%s\"@en .\n", NS, n, NS, NameRelation, escapeLiteral(nameOf.name[n]))
			rep.Names++
			rep.Triples++
		}
		rep.Unnamed = rep.Entities - int(rep.Names)
		return bw.Flush()
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// writeFB15kLine writes one fact, or one mediator node with its two edges
// for a collapsed path.
func writeFB15kLine(w *bufio.Writer, rep *FB15kReport, h, rel, t string) {
	first, second, isPath := strings.Cut(rel, "./")
	if !isPath {
		fmt.Fprintf(w, "<%s%s> <%s%s> <%s%s> .\n", NS, h, NS, rel, NS, t)
		rep.Facts++
		rep.Triples++
		return
	}
	rep.Paths++
	m := fmt.Sprintf("%s%d", mediatorPrefix, rep.Paths)
	fmt.Fprintf(w, "<%s%s> <%s%s> <%s%s> .\n<%s%s> <%s%s> <%s%s> .\n",
		NS, h, NS, first, NS, m, NS, m, NS, second, NS, t)
	rep.Triples += 2
}

type names struct {
	name  map[string]string
	order []string
}

// readNames reads the MID<TAB>Name file; underscores become spaces.
func readNames(file string, rep *FB15kReport) (names, error) {
	f, err := os.Open(file)
	if err != nil {
		return names{}, fmt.Errorf("fbimport: fb15k237 names: %w", err)
	}
	defer f.Close()
	n := names{name: map[string]string{}}
	base := path.Base(file)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := int64(1); sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		mid, name, ok := strings.Cut(text, "\t")
		why := ""
		switch {
		case !ok:
			why = "no tab between MID and name"
		case strings.TrimSpace(name) == "":
			why = "empty name"
		}
		id, idWhy := fb15kMID(mid)
		if why == "" {
			why = idWhy
		}
		if why != "" {
			rep.Bad.add(BadLine{File: base, Line: line, Reason: why})
			continue
		}
		if _, dup := n.name[id]; !dup {
			n.order = append(n.order, id)
		}
		n.name[id] = strings.ReplaceAll(strings.TrimSpace(name), "_", " ")
	}
	if err := sc.Err(); err != nil {
		return names{}, fmt.Errorf("fbimport: fb15k237 names: %w", err)
	}
	return n, nil
}

// readArchive calls fact for each well-formed line of the archive's triple
// members, in the order the archive holds them.
func readArchive(ctx context.Context, archive string, rep *FB15kReport, fact func(h, rel, t string)) error {
	f, err := os.Open(archive)
	if err != nil {
		return fmt.Errorf("fbimport: fb15k237: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("fbimport: fb15k237: %s is not a gzip file: %w", archive, err)
	}
	tr := tar.NewReader(zr)
	found := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("fbimport: fb15k237: %s: archive truncated or corrupt after %d member(s): %w", archive, found, err)
		}
		member := path.Base(hdr.Name)
		if !isFB15kMember(member) {
			continue
		}
		found++
		if err := readTriples(ctx, tr, member, rep, fact); err != nil {
			return fmt.Errorf("fbimport: fb15k237: %s: %w", archive, err)
		}
	}
	if found == 0 {
		return fmt.Errorf("fbimport: fb15k237: %s holds none of %s", archive, strings.Join(fb15kMembers, ", "))
	}
	return nil
}

func isFB15kMember(name string) bool {
	for _, m := range fb15kMembers {
		if name == m {
			return true
		}
	}
	return false
}

// readTriples reads one member's h<TAB>r<TAB>t lines.
func readTriples(ctx context.Context, r io.Reader, member string, rep *FB15kReport, fact func(h, rel, t string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var line int64
	for sc.Scan() {
		line++
		if line%65536 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		text := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		rep.Lines[member]++
		h, rel, t, why := fb15kTriple(string(text))
		if why != "" {
			rep.Bad.add(BadLine{File: member, Line: line, Reason: why})
			continue
		}
		fact(h, rel, t)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s truncated or unreadable after line %d: %w", member, line, err)
	}
	return nil
}

// fb15kTriple converts "/m/a<TAB>/x/y/z<TAB>/m/b" to ids and a relation in
// dotted form ("x.y.z", or "x.y.z./u/v/w" kept as a path marker).
func fb15kTriple(line string) (h, rel, t, why string) {
	f := strings.Split(line, "\t")
	if len(f) != 3 {
		return "", "", "", fmt.Sprintf("want 3 tab-separated fields, found %d", len(f))
	}
	if h, why = fb15kMID(f[0]); why != "" {
		return "", "", "", "head: " + why
	}
	if t, why = fb15kMID(f[2]); why != "" {
		return "", "", "", "tail: " + why
	}
	first, second, isPath := strings.Cut(f[1], "./")
	r1, ok := fb15kRelation(first)
	if !ok {
		return "", "", "", fmt.Sprintf("bad relation %q", f[1])
	}
	if !isPath {
		return h, r1, t, ""
	}
	r2, ok := fb15kRelation("/" + second)
	if !ok {
		return "", "", "", fmt.Sprintf("bad relation path %q", f[1])
	}
	return h, r1 + "./" + r2, t, ""
}

// fb15kMID turns "/m/06rf7" into "m.06rf7".
func fb15kMID(s string) (string, string) {
	s = strings.TrimSpace(s)
	if len(s) < 4 || s[0] != '/' || (s[1] != 'm' && s[1] != 'g') || s[2] != '/' {
		return "", fmt.Sprintf("bad MID %q (want /m/...)", clip(s))
	}
	for _, c := range []byte(s[3:]) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '_') {
			return "", fmt.Sprintf("bad MID %q (want /m/...)", clip(s))
		}
	}
	return s[1:2] + "." + s[3:], ""
}

// fb15kRelation turns "/a/b/c" into "a.b.c".
func fb15kRelation(s string) (string, bool) {
	if !strings.HasPrefix(s, "/") {
		return "", false
	}
	parts := strings.Split(s[1:], "/")
	if len(parts) < 2 {
		return "", false
	}
	for _, p := range parts {
		if p == "" {
			return "", false
		}
		for _, c := range []byte(p) {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '_') {
				return "", false
			}
		}
	}
	return strings.Join(parts, "."), true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
