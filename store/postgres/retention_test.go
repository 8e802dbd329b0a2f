package postgres_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/postgres/pgtest"
)

var t0 = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

// TestConcurrentJobDeletion: four deleters on two replicas share a backlog
// of 300 expired jobs: every job is deleted exactly once (SKIP LOCKED hands
// each its own), none fails, and the totals end at zero.
func TestConcurrentJobDeletion(t *testing.T) {
	stores := openShared(t, 2)
	err := stores[0].Update(t.Context(), func(tx store.Tx) error {
		for i := range 300 {
			j := &store.Job{TenantID: []string{"t1", "t2"}[i%2], ClientID: "c"}
			j.SourceSystem, j.Status, j.CreatedAtUtc = "erp", connect.JobAccepted, t0.Add(time.Duration(i)*time.Second)
			if err := tx.CreateJob(j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deleted := make([]int, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range deleted {
		wg.Go(func() {
			for {
				var n int
				errs[i] = stores[i%2].Update(t.Context(), func(tx store.Tx) (err error) {
					n, err = tx.DeleteJobsCreatedBefore(t0.Add(time.Hour), 25)
					return err
				})
				deleted[i] += n
				if errs[i] != nil || n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	sum := 0
	for i := range deleted {
		if errs[i] != nil {
			t.Errorf("deleter %d: %v", i, errs[i])
		}
		sum += deleted[i]
	}
	if sum != 300 {
		t.Errorf("deleted %v jobs, %d in all; want 300", deleted, sum)
	}
	err = stores[1].View(t.Context(), func(tx store.Tx) error {
		for _, tenant := range []string{"t1", "t2"} {
			for _, f := range []store.JobFilter{{}, {Status: "accepted"}, {SourceSystem: "erp"}, {Status: "accepted", SourceSystem: "erp"}} {
				if _, total, err := tx.Jobs(tenant, f, 0, 10); err != nil || total != 0 {
					t.Errorf("%s %+v: total %d, %v; want 0", tenant, f, total, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration2DatesExistingJobs: migration 2 gives the jobs of schema 1
// their creation time from their document, so retention finds them.
func TestMigration2DatesExistingJobs(t *testing.T) {
	url := pgtest.URL(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	m, err := migrate.NewMigrator(t.Context(), conn, "connect_schema_version")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadMigrations(os.DirFS("migrations")); err != nil {
		t.Fatal(err)
	}
	if err := m.MigrateTo(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(t.Context(), `INSERT INTO jobs (id, tenant_id, status_key, source_key, doc, items) VALUES
		(1, 't1', 'accepted', 'erp', '{"id":1,"createdAtUtc":"2026-11-21T08:00:00.123Z"}', '[]')`)
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, url) // migrates to the latest schema
	defer s.Close()
	var createdNs int64
	if err := conn.QueryRow(t.Context(), `SELECT created_ns FROM jobs WHERE id = 1`).Scan(&createdNs); err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(123 * time.Millisecond).UnixNano(); createdNs != want {
		t.Errorf("created_ns = %d, want %d", createdNs, want)
	}
}
