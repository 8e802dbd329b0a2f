package postgres_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt/bolttest"
	"github.com/integration-connect/connect/store/postgres"
	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// The benchmarks run every measurement on PostgreSQL and, where the
// measurement exists for it, on bbolt (with fsync) in the same run, so the
// figures can be quoted side by side. The throwaway cluster of pgtest runs
// without fsync; to measure a durable server, point CONNECT_TEST_DATABASE_URL
// at one (see the package documentation of pgtest).

// engines are the stores a benchmark compares: each makes a new empty store.
var engines = []struct {
	name string
	open func(b *testing.B) store.Store
}{
	{"postgres", func(b *testing.B) store.Store { return openBench(b) }},
	{"bolt", func(b *testing.B) store.Store { return bolttest.Open(b) }},
}

// benchConns is the pool size of the benchmarks' stores: enough connections
// for the 64 goroutines of BenchmarkImportSingleParallel to overlap their
// commits (pgxpool's default is 4 on this machine).
const benchConns = 32

func openBench(b *testing.B) store.Store {
	return openBenchWith(b, postgres.Options{})
}

func openBenchWith(b *testing.B, opts postgres.Options) store.Store {
	opts.MaxConns = benchConns
	s, err := postgres.Open(context.Background(), pgtest.URL(b), &opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkImportBatch imports batches of 1,000 new realistic targets through
// the importer. Compare postgres with BenchmarkRawCopy.
func BenchmarkImportBatch(b *testing.B) {
	for _, engine := range engines {
		b.Run(engine.name, func(b *testing.B) {
			svc := importer.New(importer.Config{Store: engine.open(b), Now: time.Now})
			const n = 1000
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				body := importertest.RealisticBatch(fmt.Sprintf("B%d", i), n)
				b.StartTimer()
				out, err := svc.ImportBatchJSON(context.Background(), importertest.Caller, body, connect.WriteOptions{})
				if err != nil || out.Result.CreatedItems != n {
					b.Fatalf("import: %v, %+v", err, out.Result.ImportCounters)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// BenchmarkRawCopy is the floor BenchmarkImportBatch/postgres is measured
// against: decode the same batch with the same JSON library and COPY every
// target, JSON encoded, into the targets table in one transaction. No
// validation, no lookups, no job, no idempotency, no event.
func BenchmarkRawCopy(b *testing.B) {
	url := pgtest.URL(b)
	s := mustOpen(b, url) // creates the schema
	defer s.Close()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	const n = 1000
	var id int64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		body := importertest.RealisticBatch(fmt.Sprintf("B%d", i), n)
		b.StartTimer()
		var batch connect.InboundTargetBatch
		if err := json.Unmarshal(body, &batch); err != nil {
			b.Fatal(err)
		}
		rows := make([][]any, len(batch.Targets))
		for j, t := range batch.Targets {
			data, err := json.Marshal(t)
			if err != nil {
				b.Fatal(err)
			}
			id++
			rows[j] = []any{id, importertest.Caller.TenantID, importertest.Caller.SourceSystem, t.ExternalID, data}
		}
		err := pgx.BeginFunc(context.Background(), conn, func(tx pgx.Tx) error {
			_, err := tx.CopyFrom(context.Background(), pgx.Identifier{"targets"},
				[]string{"id", "tenant_id", "source_system", "external_id", "doc"}, pgx.CopyFromRows(rows))
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkImportSingleParallel imports single targets from 64 goroutines at
// once. postgres-unordered-events measures what numbering events in commit
// order costs: every import appends an event, and those commits take turns.
func BenchmarkImportSingleParallel(b *testing.B) {
	unordered := func(b *testing.B) store.Store { return openBenchWith(b, postgres.Options{UnorderedEvents: true}) }
	for _, engine := range append(engines[:len(engines):len(engines)], struct {
		name string
		open func(b *testing.B) store.Store
	}{"postgres-unordered-events", unordered}) {
		b.Run(engine.name, func(b *testing.B) { importSinglesInParallel(b, engine.open(b), false) })
	}
}

// importSinglesInParallel imports b.N new realistic single targets from 64
// goroutines, each with an Idempotency-Key of its own when withKeys.
func importSinglesInParallel(b *testing.B, s store.Store, withKeys bool) {
	svc := importer.New(importer.Config{Store: s})
	var seq atomic.Int64
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := int(seq.Add(1))
			var opts connect.WriteOptions
			if withKeys {
				opts.IdempotencyKey = fmt.Sprintf("key-%d", n)
			}
			out, err := svc.ImportTargetJSON(context.Background(), importertest.Caller, []byte(importertest.RealisticTarget("S", n)), opts)
			if err != nil || !out.Created {
				b.Errorf("import: %v, %+v", err, out.Result.Items)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "imports/s")
}

// BenchmarkRawSingleCommit is the floor BenchmarkImportSingleParallel/postgres
// is measured against: 64 goroutines, each committing one transaction that
// inserts one decoded target row, on a pool of the same size. No validation,
// no lookups, no job, no idempotency, no event.
func BenchmarkRawSingleCommit(b *testing.B) {
	url := pgtest.URL(b)
	s := mustOpen(b, url) // creates the schema
	defer s.Close()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = benchConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	var seq atomic.Int64
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := seq.Add(1)
			var t connect.InboundTarget
			if err := json.Unmarshal([]byte(importertest.RealisticTarget("R", int(id))), &t); err != nil {
				b.Error(err)
				return
			}
			data, err := json.Marshal(t)
			if err != nil {
				b.Error(err)
				return
			}
			err = pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
				_, err := tx.Exec(context.Background(), `INSERT INTO targets (id, tenant_id, source_system, external_id, doc) VALUES ($1, $2, $3, $4, $5)`,
					id, importertest.Caller.TenantID, importertest.Caller.SourceSystem, t.ExternalID, data)
				return err
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}

// BenchmarkImportSingleParallelWithKeys is BenchmarkImportSingleParallel with
// an Idempotency-Key on every import, as careful integrators send them: each
// write claims its key, reads for a stored outcome and stores its own.
func BenchmarkImportSingleParallelWithKeys(b *testing.B) {
	for _, engine := range engines {
		b.Run(engine.name, func(b *testing.B) { importSinglesInParallel(b, engine.open(b), true) })
	}
}

// BenchmarkListJobs lists one filtered page (take 50) from stores holding
// 1,000 and 100,000 jobs; a third of them match the filter.
func BenchmarkListJobs(b *testing.B) {
	for _, engine := range engines {
		for _, jobs := range []int{1_000, 100_000} {
			b.Run(fmt.Sprintf("%s/jobs=%d", engine.name, jobs), func(b *testing.B) {
				s := engine.open(b)
				seedJobs(b, s, jobs)
				svc := importer.New(importer.Config{Store: s})
				take := 50
				q := connect.JobQuery{Status: "Rejected", Take: &take}
				b.ResetTimer()
				for range b.N {
					list, err := svc.ListJobs(context.Background(), importertest.Caller, q)
					if err != nil || len(list.Jobs) != 50 {
						b.Fatalf("list: %v, %d jobs", err, len(list.Jobs))
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			})
		}
	}
}

// seedJobs writes n one-item jobs directly through the store, in large
// transactions, cycling through the three job statuses.
func seedJobs(b *testing.B, s store.Store, n int) {
	statuses := []connect.JobStatus{connect.JobAccepted, connect.JobPartiallyAccepted, connect.JobRejected}
	for start := 0; start < n; start += 10_000 {
		err := s.Update(context.Background(), func(tx store.Tx) error {
			for i := start; i < min(n, start+10_000); i++ {
				j := &store.Job{TenantID: importertest.Caller.TenantID, ClientID: importertest.Caller.ClientID}
				j.SourceSystem = "erp"
				j.Status = statuses[i%3]
				j.CreatedAtUtc = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
				j.Items = []connect.InboundImportItemResult{{ExternalID: fmt.Sprint(i), Status: connect.ItemImported}}
				j.ImportCounters = connect.CountItems(j.Items)
				if err := tx.CreateJob(j); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRateLimiter is the cost of the shared rate limit per request: one
// Allow for one of 100 clients, from 8 goroutines.
func BenchmarkRateLimiter(b *testing.B) {
	s := mustOpen(b, pgtest.URL(b))
	defer s.Close()
	limiter := s.RateLimiter(50, 100)
	var n atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := limiter.Allow(context.Background(), fmt.Sprintf("acme\x00client-%d", n.Add(1)%100)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
}
