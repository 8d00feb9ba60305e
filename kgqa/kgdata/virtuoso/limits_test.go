package virtuoso_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kgdata/virtuoso"
)

// The ini bounds every public query in memory, time, rows and planning:
// an expression the gate let through still cannot take the server down.
func TestIniLimitsQueries(t *testing.T) {
	setting := func(text, name string) int64 {
		m := regexp.MustCompile(`(?m)^` + name + ` = (\d+)([MG]?)$`).FindStringSubmatch(text)
		require.NotNil(t, m, "%s missing from the ini", name)
		n, err := strconv.ParseInt(m[1], 10, 64)
		require.NoError(t, err)
		switch m[2] {
		case "M":
			n <<= 20
		case "G":
			n <<= 30
		}
		return n
	}
	tests := []struct {
		name    string
		ini     virtuoso.Ini
		mem     int64
		seconds int64
		rows    int64
	}{
		{"defaults for 16 GiB", virtuoso.Ini{Memory: 16 * virtuoso.GiB}, 2 * virtuoso.GiB, 60, 100000},
		{"a small server", virtuoso.Ini{Memory: 512 << 20}, 256 << 20, 60, 100000},
		{"set", virtuoso.Ini{Memory: 16 * virtuoso.GiB, MaxQueryMem: 1 << 30, MaxQueryTime: 20, MaxRows: 5000}, 1 << 30, 20, 5000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.ini.Text()
			assert.Equal(t, tt.mem, setting(text, "MaxQueryMem"))
			assert.Equal(t, tt.seconds, setting(text, "MaxQueryExecutionTime"))
			assert.Equal(t, tt.rows, setting(text, "ResultSetMaxRows"))
			assert.Positive(t, setting(text, "MaxQueryCostEstimationTime"))
		})
	}
}
