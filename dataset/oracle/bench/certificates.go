package bench

import (
	"fmt"
	"strings"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/report"
)

// ShapeCertificates counts the answer certificates of one question type
// (a generated question's shape): how many answers carried one, how many
// of those from the KG verified, and how many returned what the gold
// query returns.
type ShapeCertificates struct {
	// Type is the question type ("all" for every row).
	Type string `json:"type"`
	// Answers counts the rows; Certified those whose answer carried a
	// certificate.
	Answers   int `json:"answers"`
	Certified int `json:"certified"`
	// CertificateStats counts verified and equivalent certificates, as
	// the evaluation report does.
	report.CertificateStats
}

// certificates counts the rows' certificates, overall first, then by
// type in type order.
func certificates(rs []eval.Result) []ShapeCertificates {
	return countByType(rs, func(t string) *ShapeCertificates { return &ShapeCertificates{Type: t} }, func(x *ShapeCertificates, r eval.Result) {
		x.Answers++
		if r.CertificateVerified != nil || r.CertificateSPARQL != "" {
			x.Certified++
		}
		x.Add(r)
	})
}

// certificatesMarkdown renders the certificate table.
func certificatesMarkdown(b *strings.Builder, cs []ShapeCertificates) {
	if len(cs) == 0 {
		return
	}
	b.WriteString("## Certificates by type (perfect oracle)\n\n")
	b.WriteString("An answer's certificate is the SPARQL query its plan compiles to; it verifies when, run on the KG, it returns the answer, and is equivalent when it returns what the gold query returns.\n\n")
	b.WriteString("| type | answers | with a certificate | from the KG | verified | compared with gold | equivalent | disagreements |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range cs {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %s | %d | %s | %s |\n", c.Type, c.Answers, c.Certified, c.FromKG,
			share(c.Verified, c.FromKG), c.Judged, share(c.Equivalent, c.Judged), injected(c.Disagreements))
	}
	b.WriteString("\n")
}

// share renders n of d with its percentage ("-" when d is 0).
func share(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(d))
}
