package importer_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

// BenchmarkImportBatch imports batches of 1,000 new realistic targets through
// the importer, on bbolt with fsync.
func BenchmarkImportBatch(b *testing.B) {
	e := newEnvWith(b, importer.Config{Now: time.Now})
	const n = 1000
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		body := importertest.RealisticBatch(fmt.Sprintf("B%d", i), n)
		b.StartTimer()
		out, err := e.svc.ImportBatchJSON(bg, importertest.Caller, body, connect.WriteOptions{})
		if err != nil || out.Result.CreatedItems != n {
			b.Fatalf("import: %v, %+v", err, out.Result.ImportCounters)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkRawBoltPut is the floor BenchmarkImportBatch is measured against:
// decode the same batch with the same JSON library and put every target, JSON
// encoded, into bbolt in one transaction with fsync. No validation, no
// lookups, no job, no idempotency.
func BenchmarkRawBoltPut(b *testing.B) {
	db, err := bbolt.Open(b.TempDir()+"/raw.db", 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const n = 1000
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		body := importertest.RealisticBatch(fmt.Sprintf("B%d", i), n)
		b.StartTimer()
		var batch connect.InboundTargetBatch
		if err := json.Unmarshal(body, &batch); err != nil {
			b.Fatal(err)
		}
		err := db.Update(func(tx *bbolt.Tx) error {
			bucket, err := tx.CreateBucketIfNotExists([]byte("targets"))
			if err != nil {
				return err
			}
			for _, t := range batch.Targets {
				data, err := json.Marshal(t)
				if err != nil {
					return err
				}
				if err := bucket.Put([]byte(t.ExternalID), data); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkImportSingleParallel imports single targets from 64 goroutines at
// once, with group commit and with one transaction (one fsync) per import.
func BenchmarkImportSingleParallel(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts bolt.Options
	}{
		{"group-commit", bolt.Options{}},
		{"tx-per-import", bolt.Options{NoGroupCommit: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			s := bolttest.OpenWith(b, &mode.opts)
			svc := importer.New(importer.Config{Store: s})
			var seq atomic.Int64
			b.SetParallelism(max(1, 64/runtimeProcs()))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					body := []byte(importertest.RealisticTarget("S", int(seq.Add(1))))
					out, err := svc.ImportTargetJSON(bg, importertest.Caller, body, connect.WriteOptions{})
					if err != nil || !out.Created {
						b.Errorf("import: %v, %+v", err, out.Result.Items)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "imports/s")
		})
	}
}

// BenchmarkListJobs lists one filtered page (take 50) from stores holding
// 1,000 and 100,000 jobs; a third of them match the filter.
func BenchmarkListJobs(b *testing.B) {
	for _, jobs := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			e := newEnvWith(b, importer.Config{})
			seedJobs(b, e.store, jobs)
			q := connect.JobQuery{Status: "Rejected", Take: ptr(50)}
			b.ResetTimer()
			for range b.N {
				list, err := e.svc.ListJobs(bg, caller, q)
				if err != nil || len(list.Jobs) != 50 {
					b.Fatalf("list: %v, %d jobs", err, len(list.Jobs))
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// seedJobs writes n one-item jobs directly through the store, in large
// transactions, cycling through the three job statuses.
func seedJobs(b testing.TB, s store.Store, n int) {
	statuses := []connect.JobStatus{connect.JobAccepted, connect.JobPartiallyAccepted, connect.JobRejected}
	for start := 0; start < n; start += 10_000 {
		err := s.Update(bg, func(tx store.Tx) error {
			for i := start; i < min(n, start+10_000); i++ {
				j := &store.Job{TenantID: caller.TenantID, ClientID: caller.ClientID}
				j.SourceSystem = "erp"
				j.Status = statuses[i%3]
				j.CreatedAtUtc = clock
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

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
