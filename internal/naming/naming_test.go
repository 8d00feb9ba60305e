package naming

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
)

// Real FB15k-237 names (FB15k_mid2name.txt, underscores as spaces) next to
// hand-written cases.
func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Lou Seal", "lou seal"},
		{"  St. Louis   Cardinals ", "st louis cardinals"},
		{"Côte d’Ivoire", "côte d ivoire"}, // /m/0fv4v
		{"Côte d'Ivoire", "côte d ivoire"},
		{"University of Missouri–Columbia", "university of missouri columbia"}, // /m/0187nd
		{"San José State University", "san josé state university"},             // /m/021996: accents stay
		{"New Hampshire’s 2nd congressional district", "new hampshire s 2nd congressional district"},
		{"The Killing Fields", "the killing fields"}, // articles stay
		{"U.S. Grosseto F.C.", "u s grosseto f c"},
		{"2013–14 season", "2013 14 season"},
		{"«Paris»", "paris"},
		{"Ελλάδα", "ελλάδα"},
		{"Nijmegen\u00a0Airport", "nijmegen airport"},
		{"", ""},
		{" ...", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, Fold(tc.in))
		})
	}
}

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"The Beatles!", "beatles"},
		{"  Zürich ", "zurich"},
		{"São Paulo", "sao paulo"},
		{"San José State University", "san jose state university"}, // /m/021996
		{"Zsa Zsa Gábor", "zsa zsa gabor"},                         // /m/013ybx
		{"Côte d’Ivoire", "cote divoire"},                          // /m/0fv4v
		{"Kiki's Delivery Service", "kikis delivery service"},      // /m/02gs6r
		{"The Killing Fields", "killing fields"},                   // /m/04j4tx
		{"U.S. Grosseto F.C.", "us grosseto fc"},                   // /m/088_kf
		{"L.A. Reid", "la reid"},                                   // /m/01wwvd2
		{"ﬁnal", "final"},
		{"Theater", "theater"},
		{"A Tale of Two Cities", "tale of two cities"},
		{"Don't Stop", "dont stop"},
		{"U.S.A.", "usa"},
		{"USA", "usa"},
		{"The U.S.A.", "usa"},
		{"U.S.", "us"},
		{"U.S", "us"},
		{"U.S.Army", "us army"},
		{"Washington, D.C.", "washington dc"},
		{"J.R.R. Tolkien", "jrr tolkien"},
		{"J. R. R. Tolkien", "j r r tolkien"},
		{"St.Louis", "st louis"},
		{"3.5", "3 5"},
		{"A.B.", "ab"},
		{"Alexander the Great", "alexander the great"},
		{"Romeo and a Juliet", "romeo and a juliet"},
		{"An American in Paris", "american in paris"},
		{"The", "the"},
		{"The The", "the"},
		{"the, the", "the"},
		{"", ""},
		{"  ...  ", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, Canonical(tc.in))
		})
	}
}

// TestFoldKeepsGraphNamesApart is why the engine does not use Canonical:
// over the real FB15k-237 names, Canonical gives more distinct entities
// the same key (the band The Police and the force Police, the musician
// Sting and the film The Sting), and a name that several terms of the
// evidence share no longer resolves to one of them.
func TestFoldKeepsGraphNamesApart(t *testing.T) {
	names, byFold, byCanonical := readNames(t, realdata.Path(t, "fb15k237/FB15k_mid2name.txt"))
	require.Greater(t, len(names), 14000, "the whole list was read")
	assert.Greater(t, sharedKeys(byCanonical), sharedKeys(byFold))

	for _, pair := range [][2]string{{"/m/05ws7", "/m/0frsw"}, {"/m/0lbj1", "/m/0gw7p"}, {"/m/05r5c", "/m/0_b9f"}} {
		a, b := names[pair[0]], names[pair[1]]
		require.NotEmpty(t, a, pair[0])
		require.NotEmpty(t, b, pair[1])
		assert.NotEqual(t, Fold(a), Fold(b), "%s and %s", a, b)
		assert.Equal(t, Canonical(a), Canonical(b), "%s and %s", a, b)
	}
	// What the engine must forgive: a model writing the ASCII apostrophe
	// for the graph's typographic one.
	assert.Equal(t, Fold(names["/m/0fv4v"]), Fold("Côte d'Ivoire"))
}

func TestStopword(t *testing.T) {
	for _, tc := range []struct {
		word string
		want bool
	}{{"the", true}, {"which", true}, {"find", true}, {"border", false}, {"The", false}, {"", false}} {
		t.Run(tc.word, func(t *testing.T) { assert.Equal(t, tc.want, Stopword(tc.word)) })
	}
}

// The same on the excerpt of the names in testdata (the 3,788 entities of
// the FB15k-237 excerpt), which a fresh clone has: there too Canonical
// gives more entities a key another entity has.
func TestFoldKeepsExcerptNamesApart(t *testing.T) {
	names, byFold, byCanonical := readNames(t, realdata.Excerpt(t, "fb15k237/FB15k_mid2name.txt"))
	require.Len(t, names, 3788)
	assert.Greater(t, sharedKeys(byCanonical), sharedKeys(byFold))
}

// readNames reads an FB15k name list (underscores as spaces) and keys its
// MIDs by Fold and by Canonical of their names.
func readNames(t *testing.T, path string) (names map[string]string, byFold, byCanonical map[string][]string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	names, byFold, byCanonical = map[string]string{}, map[string][]string{}, map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		mid, name, ok := strings.Cut(sc.Text(), "\t")
		require.True(t, ok, "line %q", sc.Text())
		name = strings.ReplaceAll(name, "_", " ")
		names[mid] = name
		byFold[Fold(name)] = append(byFold[Fold(name)], mid)
		byCanonical[Canonical(name)] = append(byCanonical[Canonical(name)], mid)
	}
	require.NoError(t, sc.Err())
	t.Logf("%d entities; a key shared with another entity: %d under Fold, %d under Canonical",
		len(names), sharedKeys(byFold), sharedKeys(byCanonical))
	return names, byFold, byCanonical
}

// sharedKeys counts the entities whose key another entity has too.
func sharedKeys(keys map[string][]string) int {
	n := 0
	for _, mids := range keys {
		if len(mids) > 1 {
			n += len(mids)
		}
	}
	return n
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"films":    "film",
		"directed": "direct",
		"starring": "starr",
		"genres":   "genr",
		"has":      "has", // too short to strip
		"city":     "city",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}
