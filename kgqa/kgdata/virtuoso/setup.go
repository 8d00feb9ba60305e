package virtuoso

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultGraph is the graph setup loads into; /sparql queries the union
// of all graphs, so queries need not name it.
const DefaultGraph = "http://rdf.freebase.com"

// SetupOptions configure Setup.
type SetupOptions struct {
	// Dir holds the database and the ini.
	Dir string
	// Data are N-Triples files or directories of them.
	Data []string
	// Memory sizes the buffers (default 2 GiB).
	Memory int64
	// Parallel is the number of rdf_loader_run() at once (default 2).
	Parallel int
	// SQLPort and HTTPPort default to Virtuoso's 1111 and 8890.
	SQLPort, HTTPPort int
	// Graph defaults to DefaultGraph.
	Graph string
	// ReaderPassword is ReaderUser's password (default: the user name).
	ReaderPassword string
	// Interval is how often progress is reported (default 10 s).
	Interval time.Duration
	// Progress receives the load's progress.
	Progress func(Progress)
	// Detach leaves the server running after the process exits.
	Detach bool
	// MaxQueryMem, MaxQueryTime (seconds) and MaxRows bound one public
	// query (see Ini; zero takes Ini's default).
	MaxQueryMem  int64
	MaxQueryTime int
	MaxRows      int
	// RelationIndex writes the relation index (IndexRelations into
	// RelationIndexGraph) after the load. It is off by default: it adds a
	// triple per (entity, relation, direction), about as many as the data
	// holds, and a query with its predicate unbound sees them; relation
	// listings read it instead of every fact of an entity, which pays at
	// hubs of hundreds of thousands of facts.
	RelationIndex bool
	// IndexPart is the number of data triples one part of the relation
	// index covers at most (default DefaultIndexPart).
	IndexPart int64
	// IndexProgress receives the relation index's progress, part by part.
	IndexProgress func(IndexProgress)
}

// SetupReport is what Setup did.
type SetupReport struct {
	// Server is the running server.
	Server *Server
	// Started is false when a server from an earlier setup was reused.
	Started bool
	// Load is the final load progress; LoadTime the time the load took.
	Load     Progress
	LoadTime time.Duration
	// Relations is what the relation index step did (IndexRelations into
	// RelationIndexGraph), when SetupOptions.RelationIndex asked for it.
	Relations RelationIndex
	// Verified is the verification query's outcome.
	Verified Verification
}

func (o *SetupOptions) defaults() error {
	if o.Dir == "" || len(o.Data) == 0 {
		return fmt.Errorf("virtuoso: setup needs a directory and data")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return fmt.Errorf("virtuoso: %w", err)
	}
	o.Dir = dir
	if o.Memory <= 0 {
		o.Memory = 2 * GiB
	}
	if o.Parallel <= 0 {
		o.Parallel = 2
	}
	if o.SQLPort == 0 {
		o.SQLPort = 1111
	}
	if o.HTTPPort == 0 {
		o.HTTPPort = 8890
	}
	if o.Graph == "" {
		o.Graph = DefaultGraph
	}
	if o.ReaderPassword == "" {
		o.ReaderPassword = ReaderUser
	}
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	return nil
}

// Setup brings a server in o.Dir up with o.Data loaded: it starts one
// (or reuses the one an earlier setup left running), registers the data,
// loads what is not loaded yet, indexes names, writes the relation index
// if asked (IndexRelations), makes /sparql read-only and verifies. Running
// it again loads nothing twice, and writes the relation index again only
// when the data changed.
func Setup(ctx context.Context, o SetupOptions) (*SetupReport, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if err := Available(); err != nil {
		return nil, err
	}
	ini := Ini{Dir: o.Dir, SQLPort: o.SQLPort, HTTPPort: o.HTTPPort, Memory: o.Memory,
		MaxQueryMem: o.MaxQueryMem, MaxQueryTime: o.MaxQueryTime, MaxRows: o.MaxRows}
	for _, d := range o.Data {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("virtuoso: %w", err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("virtuoso: data: %w", err)
		}
		if !st.IsDir() {
			abs = filepath.Dir(abs)
		}
		ini.DataDirs = append(ini.DataDirs, abs)
	}
	rep := &SetupReport{}
	if running, err := ReadIni(o.Dir); err == nil {
		if s, ok := Attach(running); ok {
			rep.Server = s
		}
	}
	if rep.Server == nil {
		s, err := Start(ctx, ini, StartOptions{Detach: o.Detach})
		if err != nil {
			return nil, err
		}
		rep.Server, rep.Started = s, true
	}
	s := rep.Server
	fail := func(err error) (*SetupReport, error) {
		if rep.Started && !o.Detach {
			_ = s.Stop()
		}
		return nil, err
	}
	if err := s.Register(ctx, o.Graph, o.Data); err != nil {
		return fail(err)
	}
	start := time.Now()
	p, err := s.Load(ctx, o.Parallel, o.Interval, o.Progress)
	if err != nil {
		return fail(err)
	}
	rep.Load, rep.LoadTime = p, time.Since(start)
	if err := s.IndexNames(ctx); err != nil {
		return fail(err)
	}
	if o.RelationIndex {
		if rep.Relations, err = s.IndexRelationsWith(ctx, o.Graph, RelationIndexGraph,
			IndexOptions{PartTriples: o.IndexPart, Progress: o.IndexProgress}); err != nil {
			return fail(err)
		}
	}
	if err := s.ReadOnly(ctx, o.ReaderPassword); err != nil {
		return fail(err)
	}
	if rep.Verified, err = s.Verify(ctx); err != nil {
		return fail(err)
	}
	return rep, nil
}

// ReadIni reads the ports and DirsAllowed of the ini a setup wrote in dir.
func ReadIni(dir string) (Ini, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Ini{}, fmt.Errorf("virtuoso: %w", err)
	}
	c := Ini{Dir: dir}
	b, err := os.ReadFile(c.Path())
	if err != nil {
		return Ini{}, fmt.Errorf("virtuoso: no server set up in %s (%w): run parog kg virtuoso setup first", dir, err)
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "ServerPort" {
			continue
		}
		v = strings.TrimSpace(v)
		port, _ := strconv.Atoi(v[strings.LastIndex(v, ":")+1:])
		switch section {
		case "[Parameters]":
			c.SQLPort = port
		case "[HTTPServer]":
			c.HTTPPort = port
		}
	}
	if c.DataDirs, err = dirsAllowed(c.Path()); err != nil {
		return Ini{}, fmt.Errorf("virtuoso: %w", err)
	}
	return c, nil
}
