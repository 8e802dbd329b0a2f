package importer_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/store/bolt"
)

// diskTargets is how many targets BenchmarkDiskPerTarget imports. The default
// keeps the benchmark quick, but the file's last growth step (4 MiB) is then
// a larger share of it; the workload of record is -disk.targets=100000 (100
// batches of 1,000).
var diskTargets = flag.Int("disk.targets", 10_000, "targets BenchmarkDiskPerTarget imports, in batches of 1,000")

// BenchmarkDiskPerTarget imports targets in idempotent batches of 1,000 into
// a new bbolt file and reports the file's size per target: "planning" is the
// workload of record (importertest.PlanningBatch, about 400 bytes a target),
// "realistic" the fuller targets of the throughput benchmarks.
func BenchmarkDiskPerTarget(b *testing.B) {
	for _, w := range []struct {
		name  string
		batch func(prefix string, n int) []byte
	}{
		{"planning", importertest.PlanningBatch},
		{"realistic", importertest.RealisticBatch},
	} {
		b.Run(w.name, func(b *testing.B) {
			for range b.N {
				b.ReportMetric(diskPerTarget(b, w.batch), "bytes/target")
			}
		})
	}
}

// diskPerTarget imports *diskTargets targets made by batch into a new bbolt
// file and returns its size per target.
func diskPerTarget(b *testing.B, batch func(prefix string, n int) []byte) float64 {
	const size = 1000
	dir := b.TempDir()
	s, err := bolt.OpenDir(dir, &bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	svc := importer.New(importer.Config{Store: s, Now: time.Now})
	for i := range *diskTargets / size {
		prefix := fmt.Sprintf("D%d", i)
		out, err := svc.ImportBatchJSON(bg, importertest.Caller, batch(prefix, size), connect.WriteOptions{IdempotencyKey: prefix})
		if err != nil || out.Result.CreatedItems != size {
			b.Fatalf("import: %v, %+v", err, out.Result.ImportCounters)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, bolt.FileName))
	if err != nil {
		b.Fatal(err)
	}
	return float64(info.Size()) / float64(*diskTargets/size*size)
}
