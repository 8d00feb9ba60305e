package kg

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sparql backend reaches Virtuoso's authenticated endpoint as a user
// that may only SELECT, the way the setup kit's read-only user is meant to
// be used; without the right password it gets nothing.
// readers numbers the users TestVirtuosoReadOnlyUser makes.
var readers int

func TestVirtuosoReadOnlyUser(t *testing.T) {
	srv := virtuoso(t)
	// The Virtuoso outlives one run of the test (go test -count=N shares
	// it), so each run makes a user of its own and drops it after.
	readers++
	user := fmt.Sprintf("parog_test_reader%d", readers)
	_, err := srv.ISQL(context.Background(), fmt.Sprintf("DB.DBA.USER_CREATE('%s', 'r3ader');\nGRANT SPARQL_SELECT TO \"%s\";\n", user, user))
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := srv.ISQL(context.Background(), fmt.Sprintf("DB.DBA.USER_DROP('%s', 1);\n", user))
		assert.NoError(t, err)
	})
	authURL := strings.Replace(srv.GraphURL(fixtureGraph), "/sparql", "/sparql-auth", 1)
	tests := []struct {
		name, user, password string
		ok                   bool
	}{
		{"read-only user", user, "r3ader", true},
		{"wrong password", user, "guess", false},
		{"no credentials", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := endpointConfig(authURL)
			cfg.CacheSize, cfg.Retries = 0, 0
			cfg.User, cfg.Password = tt.user, tt.password
			g := openFixture(t, cfg)
			name, err := g.Name(context.Background(), "m.0f8l9c")
			if !tt.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "France", name)
		})
	}
}
