package kg

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sparql backend reaches Virtuoso's authenticated endpoint as a user
// that may only SELECT, the way the setup kit's read-only user is meant to
// be used; without the right password it gets nothing.
func TestVirtuosoReadOnlyUser(t *testing.T) {
	srv := virtuoso(t)
	_, err := srv.ISQL(context.Background(), "DB.DBA.USER_CREATE('parog_test_reader', 'r3ader');\nGRANT SPARQL_SELECT TO \"parog_test_reader\";\n")
	require.NoError(t, err)
	authURL := strings.Replace(srv.GraphURL(fixtureGraph), "/sparql", "/sparql-auth", 1)
	tests := []struct {
		name, user, password string
		ok                   bool
	}{
		{"read-only user", "parog_test_reader", "r3ader", true},
		{"wrong password", "parog_test_reader", "guess", false},
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
