package importer

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/integration-connect/connect/store"
)

// Defaults of RetentionConfig.
const (
	// DefaultJobRetention is how long import jobs are kept: 90 days.
	DefaultJobRetention = 90 * 24 * time.Hour
	// DefaultRetentionInterval is how often expired jobs are looked for.
	DefaultRetentionInterval = time.Minute
)

// KeepJobsForever as RetentionConfig.JobRetention keeps every import job.
const KeepJobsForever time.Duration = -1

// jobsPerDelete is how many jobs one transaction deletes at most: a backlog
// of expired jobs is deleted in many short transactions, so imports never
// wait long behind one.
const jobsPerDelete = 100

// RetentionConfig configures a Retention. Zero values take the documented
// defaults.
type RetentionConfig struct {
	// Store holds the jobs. Required.
	Store store.Store
	// JobRetention is how long an import job is kept after its creation.
	// Zero means DefaultJobRetention (90 days); a negative value
	// (KeepJobsForever) keeps jobs forever.
	JobRetention time.Duration
	// Interval is how often expired jobs are deleted. Default 1 min.
	Interval time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives a line for every deletion and failure; nil means
	// slog.Default().
	Logger *slog.Logger
	// Registerer receives the connect_import_jobs_deleted_total counter (for
	// example the HTTP handler's, httpapi.Handler.Registerer); nil registers
	// it nowhere.
	Registerer prometheus.Registerer
}

// Retention deletes import jobs older than the retention, in the
// background (Start, Stop) or when asked (DeleteExpired). A deleted job
// answers NotFound and leaves the job lists and their totals; the targets
// it imported and the route suggestions made from it stay. Any number of
// processes sharing a store may run one: they never pick the same job, and
// never wait for each other's jobs.
type Retention struct {
	cfg     RetentionConfig
	deleted prometheus.Counter

	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped chan struct{}
}

// NewRetention returns a stopped Retention on cfg.Store.
func NewRetention(cfg RetentionConfig) (*Retention, error) {
	if cfg.Store == nil {
		return nil, errors.New("importer: RetentionConfig needs a Store")
	}
	if cfg.JobRetention == 0 {
		cfg.JobRetention = DefaultJobRetention
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultRetentionInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Retention{cfg: cfg, deleted: prometheus.NewCounter(prometheus.CounterOpts{
		Name: "connect_import_jobs_deleted_total",
		Help: "Import jobs deleted because they were older than the job retention.",
	})}
	if cfg.Registerer != nil {
		if err := cfg.Registerer.Register(r.deleted); err != nil {
			return nil, errors.Wrap(err, "registering the retention metrics")
		}
	}
	return r, nil
}

// DeleteExpired deletes every job created more than JobRetention ago, oldest
// first, at most 100 in one transaction, and returns how many it deleted.
// With KeepJobsForever it deletes nothing.
func (r *Retention) DeleteExpired(ctx context.Context) (int, error) {
	if r.cfg.JobRetention < 0 {
		return 0, nil
	}
	cutoff := r.cfg.Now().Add(-r.cfg.JobRetention)
	total := 0
	for {
		var n int
		err := r.cfg.Store.Update(ctx, func(tx store.Tx) (err error) {
			n, err = tx.DeleteJobsCreatedBefore(cutoff, jobsPerDelete)
			return err
		})
		if err != nil {
			return total, errors.Wrap(err, "deleting expired import jobs")
		}
		total += n
		r.deleted.Add(float64(n))
		if n < jobsPerDelete {
			return total, nil
		}
	}
}

// Start deletes expired jobs now and then every Interval, in the background,
// until Stop is called or ctx is done. Starting a running Retention is an
// error.
func (r *Retention) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		return errors.New("importer: the job retention is already running")
	}
	ctx, r.cancel = context.WithCancel(ctx)
	r.stopped = make(chan struct{})
	go r.loop(ctx, r.stopped)
	return nil
}

// Stop stops deleting and returns once nothing runs any more; a transaction
// in flight is rolled back or committed whole.
func (r *Retention) Stop() {
	r.mu.Lock()
	cancel, stopped := r.cancel, r.stopped
	r.cancel = nil
	r.mu.Unlock()
	if cancel != nil {
		cancel()
		<-stopped
	}
}

func (r *Retention) loop(ctx context.Context, stopped chan struct{}) {
	defer close(stopped)
	ticker := time.NewTicker(r.cfg.Interval)
	defer ticker.Stop()
	for {
		n, err := r.DeleteExpired(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			r.cfg.Logger.Error("import jobs: deleting expired jobs", "error", err, "deleted", n)
		case n > 0:
			r.cfg.Logger.Info("import jobs: deleted expired jobs", "count", n, "retention", r.cfg.JobRetention.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
