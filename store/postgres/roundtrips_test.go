package postgres_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/store/postgres"
	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// roundTrips counts what a store sends the database that waits for an
// answer: each query, each pipelined batch, each COPY.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (r *roundTrips) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}

// TestRoundTripsPerImport pins how many round trips an import takes: the
// breakdown of issue 22, which a change that adds one must justify here.
// (Before issue 22: 6, 16 and 8.)
//   - single import, 3: the lookup of the target, with the transaction's
//     BEGIN in front of it and the nextval of the job's id beside it; one
//     pipelined batch of the target, the job, its counters, its event and
//     the COMMIT; and the event numbering pass, one batch, shared with the
//     writers that wait for it at the same time (none here).
//   - with an Idempotency-Key, 9: also the claim and its release; the read
//     of a stored outcome before the work (its select with its BEGIN, then
//     the rollback); in the write, the key's advisory lock and the re-read
//     of its record (one batch, with the BEGIN), and the purge of expired
//     records. The record itself goes with the COMMIT.
//   - batch of 1,000 new targets, 5: as a single import, with the targets
//     sent by COPY and a nextval for a block of target ids.
func TestRoundTripsPerImport(t *testing.T) {
	trips := &roundTrips{}
	s, err := postgres.Open(t.Context(), pgtest.URL(t), &postgres.Options{Tracer: trips})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	svc := importer.New(importer.Config{Store: s})
	measure := func(name string, want int64, run func(i int) error) {
		t.Helper()
		if err := run(0); err != nil { // the first import also takes a block of target ids
			t.Fatal(err)
		}
		before := trips.n.Load()
		if err := run(1); err != nil {
			t.Fatal(err)
		}
		if got := trips.n.Load() - before; got != want {
			t.Errorf("%s: %d round trips, want %d", name, got, want)
		}
	}
	measure("single import", 3, func(i int) error {
		_, err := svc.ImportTargetJSON(t.Context(), importertest.Caller, []byte(importertest.RealisticTarget("S", i)), connect.WriteOptions{})
		return err
	})
	measure("single import with an Idempotency-Key", 9, func(i int) error {
		_, err := svc.ImportTargetJSON(t.Context(), importertest.Caller, []byte(importertest.RealisticTarget("K", i)), connect.WriteOptions{IdempotencyKey: "k" + string(rune('0'+i))})
		return err
	})
	measure("batch of 1,000", 5, func(i int) error {
		_, err := svc.ImportBatchJSON(t.Context(), importertest.Caller, importertest.RealisticBatch("B"+string(rune('0'+i)), 1000), connect.WriteOptions{})
		return err
	})
}
