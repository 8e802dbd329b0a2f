package importer_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/storetest"
)

const day = 24 * time.Hour

// TestRetentionDeletesExpiredJobs: with the default retention of 90 days, a
// job is deleted once it is older than that, its targets stay, and the job
// list, its totals and the metric follow.
func TestRetentionDeletesExpiredJobs(t *testing.T) {
	now := clock
	e := newEnvWith(t, importer.Config{Now: func() time.Time { return now }})
	reg := prometheus.NewRegistry()
	r, err := importer.NewRetention(importer.RetentionConfig{Store: e.store, Now: func() time.Time { return now }, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	jobAt := map[int]int64{} // day → job id
	for _, d := range []int{0, 50, 100} {
		now = clock.Add(time.Duration(d) * day)
		jobAt[d] = e.batch(t, fmt.Sprintf(`{"targets":[%s]}`, routable(fmt.Sprintf("D%d", d), ""))).ImportJobID
	}
	steps := []struct {
		at          time.Duration
		wantDeleted int
		wantJobs    []int // days of the jobs still there
	}{
		{90 * day, 0, []int{0, 50, 100}},               // exactly 90 days old: kept
		{90*day + time.Millisecond, 1, []int{50, 100}}, // older than 90 days
		{139 * day, 0, []int{50, 100}},
		{191 * day, 2, nil},
	}
	deleted := 0
	for _, st := range steps {
		now = clock.Add(st.at)
		n, err := r.DeleteExpired(bg)
		if err != nil || n != st.wantDeleted {
			t.Errorf("day %v: deleted %d, %v; want %d", st.at/day, n, err, st.wantDeleted)
		}
		deleted += st.wantDeleted
		if got := e.jobCount(t); got != len(st.wantJobs) {
			t.Errorf("day %v: the list's total is %d, want %d", st.at/day, got, len(st.wantJobs))
		}
		for d, id := range jobAt {
			_, err := e.svc.GetJob(bg, caller, id)
			kept := false
			for _, w := range st.wantJobs {
				kept = kept || w == d
			}
			if kept != (err == nil) || (!kept && connect.ErrorCodeOf(err) != connect.CodeNotFound) {
				t.Errorf("day %v: job of day %d: %v (kept: %v)", st.at/day, d, err, kept)
			}
		}
		if got := counterValue(t, reg, "connect_import_jobs_deleted_total"); got != float64(deleted) {
			t.Errorf("day %v: connect_import_jobs_deleted_total = %v, want %d", st.at/day, got, deleted)
		}
	}
	for _, d := range []int{0, 50, 100} {
		e.target(t, "erp", fmt.Sprintf("D%d", d)) // fails the test when gone
	}
}

// TestRetentionDeletesABacklogInSmallTransactions: 250 expired jobs are all
// deleted by one DeleteExpired, 100 at most per transaction.
func TestRetentionDeletesABacklogInSmallTransactions(t *testing.T) {
	e := newEnv(t)
	seedJobs(t, e.store, 250) // created at clock
	s := &countingStore{Store: e.store}
	r, err := importer.NewRetention(importer.RetentionConfig{Store: s, JobRetention: time.Hour, Now: func() time.Time { return clock.Add(2 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.DeleteExpired(bg); err != nil || n != 250 || s.updates != 3 {
		t.Errorf("DeleteExpired = %d, %v in %d transactions; want 250 in 3", n, err, s.updates)
	}
	if n := e.jobCount(t); n != 0 {
		t.Errorf("%d jobs left, want 0", n)
	}
}

// countingStore counts the read-write transactions on a real store.
type countingStore struct {
	store.Store
	updates int
}

func (s *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	s.updates++
	return s.Store.Update(ctx, fn)
}

func TestRetentionKeepsJobsForever(t *testing.T) {
	e := newEnv(t)
	e.batch(t, `{"targets":[`+routable("F1", "")+`]}`)
	r, err := importer.NewRetention(importer.RetentionConfig{Store: e.store, JobRetention: importer.KeepJobsForever, Now: func() time.Time { return clock.Add(100 * 365 * day) }})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.DeleteExpired(bg); err != nil || n != 0 || e.jobCount(t) != 1 {
		t.Errorf("DeleteExpired = %d, %v with %d jobs left; want nothing deleted", n, err, e.jobCount(t))
	}
}

// TestRetentionRunsInTheBackground: Start deletes expired jobs at once (and
// then every Interval) and logs what it deleted; Stop ends it.
func TestRetentionRunsInTheBackground(t *testing.T) {
	e := newEnv(t)
	e.batch(t, `{"targets":[`+routable("B1", "")+`]}`)
	logged := make(chan slog.Record, 10)
	r, err := importer.NewRetention(importer.RetentionConfig{
		Store: e.store, Now: func() time.Time { return clock.Add(91 * day) },
		Interval: time.Hour, Logger: slog.New(recordHandler(logged)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(bg); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(bg); err == nil {
		t.Error("a second Start succeeded")
	}
	rec := storetest.Receive(t, logged, "the retention's log line")
	r.Stop()
	r.Stop() // stopping twice is harmless
	if rec.Message != "import jobs: deleted expired jobs" || e.jobCount(t) != 0 {
		t.Errorf("logged %q with %d jobs left; want the deletion of the one job", rec.Message, e.jobCount(t))
	}
}

func TestNewRetentionNeedsAStore(t *testing.T) {
	if _, err := importer.NewRetention(importer.RetentionConfig{}); err == nil {
		t.Error("NewRetention without a store succeeded")
	}
}

// recordHandler sends every log record to records.
type recordHandler chan slog.Record

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	h <- r
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }

// counterValue reads a counter without labels from reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
