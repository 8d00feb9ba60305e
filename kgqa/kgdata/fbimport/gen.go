package fbimport

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// genShapes are the shapes of one generated topic, in the dump's real
// forms: tab-separated N-Triples, full IRIs, names in several languages,
// typed literals, keys, owl:sameAs, rdf:type, mediator nodes and escapes.
var genShapes = []func(w *bufio.Writer, r *rand.Rand, id, cvt string) int{
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<%stype.object.name>\t\"Topic %s\"@en\t.\n", NS, id, NS, id)
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		langs := [...]string{"fr", "de", "ja", "zh-Hant", "pt-BR"}
		fmt.Fprintf(w, "<%s%s>\t<%stype.object.name>\t\"Th\\u00E8me %s\"@%s\t.\n", NS, id, NS, id, langs[r.IntN(len(langs))])
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>\t<%sfilm.film>\t.\n", NS, id, NS)
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<%stype.object.type>\t<%sfilm.film>\t.\n", NS, id, NS, NS)
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<%sfilm.film.initial_release_date>\t\"%d\"^^<http://www.w3.org/2001/XMLSchema#gYear>\t.\n",
			NS, id, NS, 1900+r.IntN(120))
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<%stype.object.key>\t\"/wikipedia/en/Topic_$0028%s$0029\"\t.\n", NS, id, NS, id)
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<http://rdf.freebase.com/key/wikipedia.en_id>\t\"%d\"\t.\n", NS, id, r.IntN(1e8))
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<http://www.w3.org/2002/07/owl#sameAs>\t<http://dbpedia.org/resource/Topic_%s>\t.\n", NS, id, id)
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, cvt string) int {
		fmt.Fprintf(w, "<%s%s>\t<%sfilm.film.starring>\t<%s%s>\t.\n", NS, id, NS, NS, cvt)
		fmt.Fprintf(w, "<%s%s>\t<%sfilm.performance.actor>\t<%sm.0%s>\t.\n", NS, cvt, NS, NS, strconv.FormatInt(r.Int64N(1e9), 36))
		fmt.Fprintf(w, "<%s%s>\t<%sfilm.performance.character>\t<%sm.0%s>\t.\n", NS, cvt, NS, NS, strconv.FormatInt(r.Int64N(1e9), 36))
		return 3
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<%scommon.topic.description>\t\"A \\\"quoted\\\" description\\nover two lines of %s.\"@en\t.\n", NS, id, NS, id)
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<%speople.person.height_meters>\t\"1.%02d\"^^<http://www.w3.org/2001/XMLSchema#float>\t.\n", NS, id, NS, r.IntN(100))
		return 1
	},
	func(w *bufio.Writer, r *rand.Rand, id, _ string) int {
		fmt.Fprintf(w, "<%s%s>\t<%sfreebase.valuenotation.is_reviewed>\t<%stype.object.name>\t.\n", NS, id, NS, NS)
		return 1
	},
}

// GenerateDump writes at least lines lines of N-Triples in the shapes of
// the Freebase dump to w, uncompressed, deterministically for a seed.
func GenerateDump(w io.Writer, lines int64, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bw := bufio.NewWriterSize(w, 1<<20)
	var written int64
	for topic := int64(0); written < lines; topic++ {
		id := "m.0" + strconv.FormatInt(topic*7919+1000000, 36)
		cvt := "m.0" + strconv.FormatInt(topic*7919+1000001, 36) + "_"
		for _, shape := range genShapes {
			written += int64(shape(bw, r, id, cvt))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("fbimport: generate: %w", err)
	}
	return nil
}
