package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
)

// TestCertificateTableFromRows: the report's certificate table counts
// the results rows by type: certificates carried, verified, equivalent.
func TestCertificateTableFromRows(t *testing.T) {
	yes, no := true, false
	rows := []eval.Result{
		{ID: "gen-time-1", Type: "time", CertificateSPARQL: "SELECT 1", CertificateCovers: "all", CertificateVerified: &yes, CertificateEquivalent: &yes},
		{ID: "gen-time-2", Type: "time", CertificateSPARQL: "SELECT 2", CertificateCovers: "all", CertificateVerified: &yes, CertificateEquivalent: &no, CertificateDisagreement: "superset"},
		{ID: "gen-time-3", Type: "time", CertificateSPARQL: "SELECT 3", CertificateCovers: "partial", CertificateVerified: &no},
		{ID: "gen-text-1", Type: "text", CertificateSPARQL: "SELECT 4", CertificateCovers: "all", CertificateVerified: &yes, CertificateEquivalent: &yes},
		{ID: "gen-text-2", Type: "text", Error: "timeout"},
	}
	cs := certificates(rows)
	require.Len(t, cs, 3)
	assert.Equal(t, []string{"all", "text", "time"}, []string{cs[0].Type, cs[1].Type, cs[2].Type})
	assert.Equal(t, 5, cs[0].Answers)
	assert.Equal(t, 4, cs[0].Certified)
	assert.Equal(t, 3, cs[2].Certified)
	assert.Equal(t, 2, cs[2].Verified)
	assert.Equal(t, 1, cs[2].Equivalent)

	md := (&Report{Name: "t", Certificates: cs}).Markdown()
	assert.Contains(t, md, "## Certificates by type (perfect oracle)")
	assert.Contains(t, md, "| all | 5 | 4 | 4 | 3 (75.0%) | 3 | 2 (66.7%) | superset 1 |\n")
	assert.Contains(t, md, "| text | 2 | 1 | 1 | 1 (100.0%) | 1 | 1 (100.0%) |  |\n")
	assert.Contains(t, md, "| time | 3 | 3 | 3 | 2 (66.7%) | 2 | 1 (50.0%) | superset 1 |\n")
}
