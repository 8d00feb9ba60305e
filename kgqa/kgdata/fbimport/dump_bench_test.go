package fbimport

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"
)

// benchLines is the size of the generated dump the throughput is measured
// on; the target is at least 500,000 lines/s on two cores.
const benchLines = 5_000_000

// BenchmarkImportDump imports a generated dump of benchLines lines in the
// real dump's shapes and reports lines/s:
//
//	go test -run '^$' -bench ImportDump -benchtime 1x ./kgqa/kgdata/fbimport/
func BenchmarkImportDump(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "freebase-rdf-generated.gz")
	f, err := os.Create(in)
	require.NoError(b, err)
	zw, err := gzip.NewWriterLevel(f, gzip.DefaultCompression)
	require.NoError(b, err)
	bw := bufio.NewWriterSize(zw, 1<<20)
	require.NoError(b, GenerateDump(bw, benchLines, 1))
	require.NoError(b, bw.Flush())
	require.NoError(b, zw.Close())
	require.NoError(b, f.Close())
	st, err := os.Stat(in)
	require.NoError(b, err)
	b.Logf("generated %d lines, %d MB compressed; GOMAXPROCS %d", benchLines, st.Size()>>20, runtime.GOMAXPROCS(0))

	cpu0 := cpuSeconds(b)
	b.ResetTimer()
	var lines int64
	for i := range b.N {
		rep, err := ImportDump(context.Background(), in, filepath.Join(dir, "out", string(rune('a'+i%26))),
			DumpOptions{Noise: testNoise, ShardLines: 2_000_000})
		require.NoError(b, err)
		lines += rep.Tally.Lines
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
	// On a shared machine the wall clock counts other processes' turns;
	// lines per CPU-second of this process does not.
	b.ReportMetric(float64(lines)/(cpuSeconds(b)-cpu0), "lines/cpu-s")
}

// cpuSeconds is the user and system CPU time this process has used.
func cpuSeconds(tb testing.TB) float64 {
	var ru syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
