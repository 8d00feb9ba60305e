package virtuosotest

import (
	"fmt"
	"path/filepath"
)

// iniText is a small-footprint virtuoso.ini: everything lives in dir, the
// data directory is the only one the loader may read, and checkpoints run
// only when asked.
func iniText(dir, data string, sqlPort, httpPort int) string {
	p := func(name string) string { return filepath.Join(dir, name) }
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
NumberOfBuffers = 40000
MaxDirtyBuffers = 30000

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
ResultSetMaxRows = 100000
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime = 60
DeferInferenceRulesInit = 0
`, p("virtuoso.db"), p("virtuoso.log"), p("virtuoso.lck"), p("virtuoso.trx"), p("virtuoso.pxa"),
		p("virtuoso-temp.db"), p("virtuoso-temp.trx"), sqlPort, data, httpPort, dir)
}
