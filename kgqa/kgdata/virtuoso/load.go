package virtuoso

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NameRelation is the IRI of Freebase names, which the free-text index
// covers.
const NameRelation = "http://rdf.freebase.com/ns/type.object.name"

// ReaderUser is the SPARQL user with read rights only.
const ReaderUser = "parog_reader"

// sqlText rejects what cannot go inside an SQL string literal unescaped.
func sqlText(s string) (string, error) {
	if strings.ContainsAny(s, "'\\\n\r\x00") {
		return "", fmt.Errorf("virtuoso: quote, backslash or line break in %q", s)
	}
	return s, nil
}

// ErrDirsAllowed is wrapped when a data path is outside the ini's
// DirsAllowed.
var ErrDirsAllowed = fmt.Errorf("virtuoso: data outside DirsAllowed")

// Register adds paths (N-Triples files, or directories whose *.nt and
// *.nt.gz files are taken) to DB.DBA.LOAD_LIST for graph. Files already
// listed keep their state, so a second setup loads nothing twice; files a
// killed run left half-loaded are loaded again (a triple loaded twice is
// one triple).
func (s *Server) Register(ctx context.Context, graph string, paths []string) error {
	g, err := sqlText(graph)
	if err != nil {
		return err
	}
	var script strings.Builder
	script.WriteString("UPDATE DB.DBA.LOAD_LIST SET ll_state = 0 WHERE ll_state = 1;\n")
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("virtuoso: %w", err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("virtuoso: data: %w", err)
		}
		dir := abs
		if !st.IsDir() {
			dir = filepath.Dir(abs)
		}
		if !s.Ini.AllowsDir(dir) {
			return fmt.Errorf("%w: %s is not under DirsAllowed (%s) of %s: stop the server (parog kg virtuoso stop --dir %s) "+
				"and run setup again, which writes DirsAllowed for its --data, or add the directory to DirsAllowed and restart",
				ErrDirsAllowed, dir, strings.Join(s.Ini.DataDirs, ", "), s.Ini.Path(), s.Ini.Dir)
		}
		q, err := sqlText(abs)
		if err != nil {
			return err
		}
		if st.IsDir() {
			fmt.Fprintf(&script, "ld_dir('%s', '*.nt', '%s');\nld_dir('%s', '*.nt.gz', '%s');\n", q, g, q, g)
		} else {
			fmt.Fprintf(&script, "ld_add('%s', '%s');\n", q, g)
		}
	}
	if _, err := s.ISQL(ctx, script.String()); err != nil {
		return fmt.Errorf("virtuoso: register data: %w", err)
	}
	return nil
}

// Progress is the state of a bulk load.
type Progress struct {
	// Files, Done and Failed count the LOAD_LIST entries.
	Files, Done, Failed int
	// Triples is the number of triples in the store, the relation
	// index's (RelationIndexGraph) left out; Rate the triples
	// loaded per second since the load started.
	Triples int64
	Rate    float64
	// Elapsed is the time since the load started; ETA the estimate of
	// what remains, from the files done (0 when unknown).
	Elapsed, ETA time.Duration
}

// Status reads the load list and the number of triples.
func (s *Server) Status(ctx context.Context) (Progress, error) {
	out, err := s.ISQL(ctx, "SELECT 'LL', COUNT(*), SUM(CASE WHEN ll_state = 2 THEN 1 ELSE 0 END), "+
		"SUM(CASE WHEN ll_error IS NOT NULL THEN 1 ELSE 0 END) FROM DB.DBA.LOAD_LIST;\n"+
		"SELECT 'TRIPLES', (SELECT COUNT(*) FROM DB.DBA.RDF_QUAD) - "+
		"(SELECT COUNT(*) FROM DB.DBA.RDF_QUAD WHERE G = iri_to_id('"+RelationIndexGraph+"'));\n")
	if err != nil {
		return Progress{}, err
	}
	var p Progress
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 4 && f[0] == "LL":
			p.Files, _ = strconv.Atoi(f[1])
			p.Done, _ = strconv.Atoi(f[2])
			p.Failed, _ = strconv.Atoi(f[3])
		case len(f) == 2 && f[0] == "TRIPLES":
			p.Triples, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return p, nil
}

// Load runs parallel rdf_loader_run() until every registered file is
// loaded, calling progress every interval, then checkpoints. A file that
// fails to load is an error naming it.
func (s *Server) Load(ctx context.Context, parallel int, interval time.Duration, progress func(Progress)) (Progress, error) {
	start := time.Now()
	first, err := s.Status(ctx)
	if err != nil {
		return Progress{}, err
	}
	parallel = max(parallel, 1)
	var wg sync.WaitGroup
	errs := make(chan error, parallel)
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.ISQL(ctx, "rdf_loader_run();\n"); err != nil {
				errs <- err
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	measure := func() Progress {
		p, err := s.Status(ctx)
		if err != nil {
			return p
		}
		p.Elapsed = time.Since(start)
		if secs := p.Elapsed.Seconds(); secs > 0 {
			p.Rate = float64(p.Triples-first.Triples) / secs
		}
		if done := p.Done - first.Done; done > 0 && p.Files > p.Done {
			p.ETA = time.Duration(float64(p.Elapsed) / float64(done) * float64(p.Files-p.Done))
		}
		return p
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-finished:
			running = false
		case <-tick.C:
			if progress != nil {
				progress(measure())
			}
		}
	}
	close(errs)
	if err := <-errs; err != nil {
		return Progress{}, fmt.Errorf("virtuoso: load: %w", err)
	}
	if _, err := s.ISQL(ctx, "checkpoint;\n"); err != nil {
		return Progress{}, fmt.Errorf("virtuoso: checkpoint: %w", err)
	}
	last := measure()
	if progress != nil {
		progress(last)
	}
	out, err := s.ISQL(ctx, "SELECT 'LOAD-ERROR', ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;\n")
	if err != nil {
		return last, err
	}
	if strings.Contains(out, "LOAD-ERROR") {
		return last, fmt.Errorf("virtuoso: bulk load reported errors (fix the files and run setup again):\n%s", out)
	}
	return last, nil
}

// IndexNames builds the free-text index on names (what bif:contains
// reads), and brings it up to date with what is loaded.
func (s *Server) IndexNames(ctx context.Context) error {
	script := "DB.DBA.RDF_OBJ_FT_RULE_ADD(null, '" + NameRelation + "', 'parog_names');\n" +
		"DB.DBA.VT_INC_INDEX_DB_DBA_RDF_OBJ();\n"
	if _, err := s.ISQL(ctx, script); err != nil {
		return fmt.Errorf("virtuoso: name index: %w", err)
	}
	return nil
}

// ReadOnly makes /sparql read-only: the anonymous SPARQL account loses
// SPARQL_UPDATE, and ReaderUser (for /sparql-auth) gets SPARQL_SELECT only.
func (s *Server) ReadOnly(ctx context.Context, password string) error {
	pw, err := sqlText(password)
	if err != nil {
		return err
	}
	out, err := s.ISQL(ctx, "SELECT 'USERS', COUNT(*) FROM SYS_USERS WHERE U_NAME = '"+ReaderUser+"';\n")
	if err != nil {
		return fmt.Errorf("virtuoso: read-only user: %w", err)
	}
	if strings.Contains(strings.Join(strings.Fields(out), " "), "USERS 0") {
		if _, err := s.ISQL(ctx, "DB.DBA.USER_CREATE('"+ReaderUser+"', '"+pw+"');\nGRANT SPARQL_SELECT TO \""+ReaderUser+"\";\n"); err != nil {
			return fmt.Errorf("virtuoso: read-only user: %w", err)
		}
	}
	// Revoking what was already revoked is an error worth ignoring.
	_, _ = s.ISQL(ctx, "REVOKE \"SPARQL_UPDATE\" FROM \"SPARQL\";\n")
	return nil
}

// Verification is what Verify found.
type Verification struct {
	// Names is the number of type.object.name triples /sparql sees.
	Names int64
	// UpdateRefused is true when /sparql refused an INSERT.
	UpdateRefused bool
}

// Verify asks /sparql for the number of names and checks that it refuses
// an update.
func (s *Server) Verify(ctx context.Context) (Verification, error) {
	var v Verification
	res, status, err := s.get(ctx, "SELECT (COUNT(*) AS ?n) WHERE { ?s <"+NameRelation+"> ?o }")
	if err != nil {
		return v, err
	}
	if status != http.StatusOK {
		return v, fmt.Errorf("virtuoso: verify: /sparql answered %d: %s", status, res)
	}
	var r struct {
		Results struct {
			Bindings []map[string]struct{ Value string } `json:"bindings"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res), &r); err != nil || len(r.Results.Bindings) != 1 {
		return v, fmt.Errorf("virtuoso: verify: unexpected answer %q", res)
	}
	v.Names, _ = strconv.ParseInt(r.Results.Bindings[0]["n"].Value, 10, 64)
	_, status, err = s.get(ctx, "INSERT DATA { GRAPH <urn:parog:probe> { <urn:a> <urn:b> <urn:c> } }")
	if err != nil {
		return v, err
	}
	v.UpdateRefused = status != http.StatusOK
	return v, nil
}

func (s *Server) get(ctx context.Context, query string) (string, int, error) {
	u := s.SPARQL() + "?format=" + url.QueryEscape("application/sparql-results+json") + "&query=" + url.QueryEscape(query)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", 0, fmt.Errorf("virtuoso: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("virtuoso: /sparql: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", 0, fmt.Errorf("virtuoso: /sparql: %w", err)
	}
	return string(b), resp.StatusCode, nil
}
