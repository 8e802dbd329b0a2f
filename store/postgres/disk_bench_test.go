package postgres_test

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// diskTargets is how many targets BenchmarkDiskPerTarget imports; the
// workload of record is -disk.targets=100000 (100 batches of 1,000), as for
// bbolt (importer's BenchmarkDiskPerTarget).
var diskTargets = flag.Int("disk.targets", 10_000, "targets BenchmarkDiskPerTarget imports, in batches of 1,000")

// BenchmarkDiskPerTarget imports the disk-use workload
// (importertest.PlanningBatch) in idempotent batches of 1,000 into a new
// schema and reports the size of its tables per target: the sum of
// pg_total_relation_size (rows, indexes and TOAST) over them.
func BenchmarkDiskPerTarget(b *testing.B) {
	caller := connect.Caller{TenantID: "acme", ClientID: "erp-client", SourceSystem: "erp", Scopes: connect.AllScopes}
	const size = 1000
	for range b.N {
		url := pgtest.URL(b)
		s := mustOpen(b, url)
		svc := importer.New(importer.Config{Store: s, Now: time.Now})
		for i := range *diskTargets / size {
			prefix := fmt.Sprintf("D%d", i)
			out, err := svc.ImportBatchJSON(context.Background(), caller, importertest.PlanningBatch(prefix, size), connect.WriteOptions{IdempotencyKey: prefix})
			if err != nil || out.Result.CreatedItems != size {
				b.Fatalf("import: %v, %+v", err, out.Result.ImportCounters)
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(tablesSize(b, url))/float64(*diskTargets/size*size), "bytes/target")
	}
}

// tablesSize sums pg_total_relation_size over the tables of the schema url
// names.
func tablesSize(b *testing.B, url string) int64 {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	var total int64
	err = conn.QueryRow(context.Background(), `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace`).Scan(&total)
	if err != nil {
		b.Fatal(err)
	}
	return total
}
