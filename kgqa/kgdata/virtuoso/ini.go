// Package virtuoso sets up Virtuoso 7 for a Freebase-sized graph: a
// virtuoso.ini sized to the memory given, the server started and stopped,
// N-Triples bulk-loaded with ld_dir and parallel rdf_loader_run() with
// progress read from DB.DBA.LOAD_LIST, the free-text index on names, a
// read-only SPARQL endpoint, and a verification query.
package virtuoso

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Binaries of Debian's virtuoso-opensource-7-bin package.
const (
	ServerBinary = "virtuoso-t"
	ISQLBinary   = "isql-vt"
)

// InstallHint says how to get the binaries.
const InstallHint = "install Virtuoso 7: apt-get install -y virtuoso-opensource-7-bin"

// GiB is a gibibyte.
const GiB = int64(1) << 30

// Ini is what a generated virtuoso.ini depends on.
type Ini struct {
	// Dir holds the database, log and ini.
	Dir string
	// DataDirs are the directories the bulk loader may read (DirsAllowed).
	DataDirs []string
	// SQLPort is the ISQL port; HTTPPort serves /sparql.
	SQLPort, HTTPPort int
	// Memory is the memory given to Virtuoso's buffers, in bytes.
	Memory int64
	// MaxQueryTime caps one public SPARQL query, in seconds (default 60).
	MaxQueryTime int
	// MaxRows caps a public SPARQL result (default 100000).
	MaxRows int
	// MaxQueryMem caps the memory of one query's evaluation, in bytes
	// (default: an eighth of Memory, between 256 MiB and 4 GiB).
	MaxQueryMem int64
}

// maxQueryCostSeconds caps the time Virtuoso spends planning one query.
const maxQueryCostSeconds = 400

// queryMem is MaxQueryMem or its default.
func (c Ini) queryMem() int64 {
	if c.MaxQueryMem > 0 {
		return c.MaxQueryMem
	}
	return min(max(c.Memory/8, 256<<20), 4*GiB)
}

// sizing is Virtuoso's own table (the comments of its default
// virtuoso.ini): free memory -> NumberOfBuffers, MaxDirtyBuffers.
var sizing = []struct {
	mem            int64
	buffers, dirty int
}{
	{64 * GiB, 5450000, 4000000},
	{48 * GiB, 4000000, 3000000},
	{32 * GiB, 2720000, 2000000},
	{16 * GiB, 1360000, 1000000},
	{8 * GiB, 680000, 500000},
	{4 * GiB, 340000, 250000},
	{2 * GiB, 170000, 130000},
}

// Buffers returns NumberOfBuffers and MaxDirtyBuffers for mem bytes: the
// largest row of Virtuoso's table that fits, or, below 2 GiB, the same
// proportion (about two thirds of memory in 8 KiB pages, three quarters of
// them dirty at most).
func Buffers(mem int64) (buffers, dirty int) {
	for _, s := range sizing {
		if mem >= s.mem {
			return s.buffers, s.dirty
		}
	}
	buffers = max(int(float64(mem)*170000/float64(2*GiB)), 10000)
	return buffers, buffers * 3 / 4
}

// AllowsDir reports whether the ini's DirsAllowed covers dir.
func (c Ini) AllowsDir(dir string) bool {
	for _, d := range c.DataDirs {
		if rel, err := filepath.Rel(d, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// Path is the ini's location.
func (c Ini) Path() string { return filepath.Join(c.Dir, "virtuoso.ini") }

// Write writes the ini to Path.
func (c Ini) Write() error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("virtuoso: %w", err)
	}
	if err := os.WriteFile(c.Path(), []byte(c.Text()), 0o644); err != nil {
		return fmt.Errorf("virtuoso: write ini: %w", err)
	}
	return nil
}

// Text is the virtuoso.ini: everything lives in Dir, only DataDirs may be
// read by the loader, checkpoints run only when asked, and the public
// endpoint's queries are capped in memory, time, rows and planning time.
func (c Ini) Text() string {
	p := func(name string) string { return filepath.Join(c.Dir, name) }
	buffers, dirty := Buffers(c.Memory)
	maxTime, maxRows := c.MaxQueryTime, c.MaxRows
	if maxTime <= 0 {
		maxTime = 60
	}
	if maxRows <= 0 {
		maxRows = 100000
	}
	return fmt.Sprintf(`[Database]
DatabaseFile = %s
ErrorLogFile = %s
LockFile = %s
TransactionFile = %s
xa_persistent_file = %s
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = %s
TransactionFile = %s
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:%d
LiteMode = 0
DisableUnixSocket = 1
DisableTcpSocket = 0
MaxClientConnections = 32
CheckpointInterval = 0
O_DIRECT = 0
CaseMode = 2
MaxStaticCursorRows = 5000
CheckpointAuditTrail = 0
AllowOSCalls = 0
SchedulerInterval = 10
DirsAllowed = ., %s
ThreadCleanupInterval = 0
ThreadThreshold = 10
ResourcesCleanupInterval = 0
FreeTextBatchSize = 100000
SingleCPU = 0
PrefixResultNames = 0
RdfFreeTextRulesSize = 100
IndexTreeMaps = 64
NumberOfBuffers = %d
MaxDirtyBuffers = %d
MaxQueryMem = %dM

[HTTPServer]
ServerPort = 127.0.0.1:%d
ServerRoot = %s
MaxClientConnections = 32
DavRoot = DAV
EnabledDavVSP = 0
HTTPProxyEnabled = 0
TempASPXDir = 0
ServerThreads = 32
MaxKeepAlives = 32
KeepAliveTimeout = 10
HTTPThreadSize = 280000
HttpPrintWarningsInOutput = 0
Charset = UTF-8

[Client]
SQL_PREFETCH_ROWS = 100
SQL_PREFETCH_BYTES = 16000
SQL_QUERY_TIMEOUT = 0
SQL_TXN_TIMEOUT = 0

[SPARQL]
ResultSetMaxRows = %d
MaxQueryCostEstimationTime = %d
MaxQueryExecutionTime = %d
DeferInferenceRulesInit = 0
`, p("virtuoso.db"), p("virtuoso.log"), p("virtuoso.lck"), p("virtuoso.trx"), p("virtuoso.pxa"),
		p("virtuoso-temp.db"), p("virtuoso-temp.trx"), c.SQLPort, strings.Join(c.DataDirs, ", "),
		buffers, dirty, c.queryMem()>>20, c.HTTPPort, c.Dir, maxRows, maxQueryCostSeconds, maxTime)
}

// dirsAllowed reads DirsAllowed from an existing ini.
func dirsAllowed(ini string) ([]string, error) {
	b, err := os.ReadFile(ini)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "DirsAllowed" {
			var dirs []string
			for _, d := range strings.Split(v, ",") {
				if d = strings.TrimSpace(d); d != "" && d != "." {
					dirs = append(dirs, d)
				}
			}
			return dirs, nil
		}
	}
	return nil, nil
}
