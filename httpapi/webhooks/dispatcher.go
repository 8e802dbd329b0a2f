package webhooks

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Defaults of Config.
const (
	DefaultRetryMin       = 5 * time.Second
	DefaultRetryMax       = time.Hour
	DefaultAttemptTimeout = 10 * time.Second
	DefaultPollInterval   = time.Second
	DefaultDisableAfter   = 24 * time.Hour
	DefaultRetention      = 30 * 24 * time.Hour
	DefaultPruneInterval  = time.Minute
)

// pruneBatch is how many events one pruning transaction deletes at most, so
// a large backlog is pruned in short transactions.
const pruneBatch = 1000

// Config configures a Dispatcher. Zero values take the documented defaults.
type Config struct {
	// Store holds the outbox and the subscriptions. Required.
	Store store.Store
	// URLs is the rule for where deliveries may go, checked again before
	// every delivery and for the very address connected to (see URLPolicy).
	// Deliveries never follow redirects: a 3xx answer is a failure rather
	// than a delivery to wherever it points.
	URLs URLPolicy
	// RetryMin is the delay before the first retry of a failed delivery;
	// each further retry waits twice as long, up to RetryMax. Defaults 5s
	// and 1h. Each delay is shortened by a random 0-20% (see Rand).
	RetryMin time.Duration
	RetryMax time.Duration
	// AttemptTimeout bounds one delivery attempt. Default 10s.
	AttemptTimeout time.Duration
	// PollInterval is how often the outbox is read for new events. Default 1s.
	PollInterval time.Duration
	// DisableAfter disables a subscription whose deliveries failed without a
	// success for this long; its pending events are kept. Default 24h.
	DisableAfter time.Duration
	// Retention is how long events, and delivery attempts, are kept: the
	// events feed's reach, and how far back a replay goes. An event is
	// pruned when it is older, whether or not every subscription received
	// it. Default 30 days.
	Retention time.Duration
	// PruneInterval is how often expired events are pruned. Default 1 min.
	PruneInterval time.Duration
	// Now is the clock of schedules, signatures and retention; nil means
	// time.Now.
	Now func() time.Time
	// Logger receives one line per failed attempt, disabled subscription and
	// pruning; nil means slog.Default().
	Logger *slog.Logger
	// Rand returns the random numbers in [0, 1) that jitter retry delays;
	// nil means math/rand/v2.
	Rand func() float64
	// Registerer receives the dispatcher's metrics (for example the HTTP
	// handler's, httpapi.Handler.Registerer); nil registers them nowhere.
	Registerer prometheus.Registerer
}

// Dispatcher delivers the outbox's events to the subscriptions of their
// tenant. Create it with NewDispatcher, run it with Start and Stop.
//
// Every subscription has at most one delivery in flight and gets its next
// event only once the previous one was accepted with a 2xx answer, so it
// receives its events in order, each at least once (again after a failure,
// or when the dispatcher stopped between a delivery and its record). Several
// dispatchers (replicas) on one store share the work through a delivery
// lease per subscription, judged by each dispatcher's clock: their clocks
// must agree to well within AttemptTimeout plus 30 s (NTP does), or two
// could deliver to one subscription at once; outcomes stay fenced by the
// lease's token either way, so attempts and failures count once. Failed
// attempts (network errors, timeouts, other answers) are retried with
// exponential backoff, kept in memory when the store cannot record it.
// Deliveries run outside store transactions on their own goroutines, so a
// slow receiver delays nothing but its own subscription.
type Dispatcher struct {
	cfg     Config
	metrics *metrics
	sender  *sender

	mu        sync.Mutex
	busy      map[int64]bool      // subscriptions with a delivery goroutine
	held      map[int64]hold      // subscriptions whose last outcome could not be recorded
	leases    map[int64]heldLease // the delivery leases this dispatcher took
	claims    map[int64]func()    // the delivery claims it holds: their releases
	cancel    context.CancelFunc
	stopped   chan struct{}
	lastPrune time.Time
	workers   sync.WaitGroup
}

// NewDispatcher returns a stopped Dispatcher on cfg.Store.
func NewDispatcher(cfg Config) (*Dispatcher, error) {
	if cfg.Store == nil {
		return nil, errors.New("webhooks: Config needs a Store")
	}
	cfg = withDefaults(cfg)
	m := newMetrics()
	if cfg.Registerer != nil {
		if err := m.register(cfg.Registerer); err != nil {
			return nil, err
		}
	}
	return &Dispatcher{cfg: cfg, metrics: m, sender: newSender(cfg.URLs, cfg.AttemptTimeout), busy: map[int64]bool{}, held: map[int64]hold{}, leases: map[int64]heldLease{}, claims: map[int64]func(){}}, nil
}

func withDefaults(cfg Config) Config {
	defaults := []struct {
		field *time.Duration
		value time.Duration
	}{
		{&cfg.RetryMin, DefaultRetryMin}, {&cfg.RetryMax, DefaultRetryMax}, {&cfg.AttemptTimeout, DefaultAttemptTimeout},
		{&cfg.PollInterval, DefaultPollInterval}, {&cfg.DisableAfter, DefaultDisableAfter},
		{&cfg.Retention, DefaultRetention}, {&cfg.PruneInterval, DefaultPruneInterval},
	}
	for _, d := range defaults {
		if *d.field <= 0 {
			*d.field = d.value
		}
	}
	cfg.RetryMax = max(cfg.RetryMax, cfg.RetryMin)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	return cfg
}

// Start starts delivering in the background until Stop is called or ctx is
// done. Starting a running dispatcher is an error.
func (d *Dispatcher) Start(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		return errors.New("webhooks: the dispatcher is already running")
	}
	ctx, d.cancel = context.WithCancel(ctx)
	d.stopped = make(chan struct{})
	go d.loop(ctx, d.stopped)
	return nil
}

// Stop stops delivering and returns once nothing runs any more. Deliveries
// in flight are abandoned and not recorded, so their events are delivered
// again by the next Start, in this process or after a restart.
func (d *Dispatcher) Stop() {
	d.mu.Lock()
	cancel, stopped := d.cancel, d.stopped
	d.cancel = nil
	d.mu.Unlock()
	if cancel != nil {
		cancel()
		<-stopped
	}
}

// loop polls the outbox until ctx is done, then waits for the deliveries.
func (d *Dispatcher) loop(ctx context.Context, stopped chan struct{}) {
	defer close(stopped)
	defer d.releaseLeases(context.WithoutCancel(ctx))
	defer d.workers.Wait()
	ticker := time.NewTicker(d.cfg.PollInterval)
	defer ticker.Stop()
	for {
		d.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// releaseLeases gives up the delivery leases this dispatcher holds, and then
// its delivery claims, so another replica takes its subscriptions over at
// once instead of when the leases expire. It runs when every delivery
// goroutine has ended.
func (d *Dispatcher) releaseLeases(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d.mu.Lock()
	leases, claims := d.leases, d.claims
	d.leases, d.claims = map[int64]heldLease{}, map[int64]func(){}
	d.mu.Unlock()
	defer func() {
		for _, release := range claims {
			release()
		}
	}()
	for id, l := range leases {
		err := d.cfg.Store.Update(ctx, func(tx store.Tx) error {
			rec, err := tx.Subscription(l.tenantID, id)
			if errors.Is(err, connect.ErrNotFound) || err == nil && rec.LeaseToken != l.token {
				return nil
			}
			if err != nil {
				return err
			}
			rec.LeaseUntil = time.Time{}
			return tx.PutSubscription(rec)
		})
		if err != nil {
			d.cfg.Logger.Warn("webhooks: releasing a delivery lease; it expires by itself", "subscription", id, "error", err)
		}
	}
}

// poll starts a delivery goroutine for every enabled subscription that has a
// pending event and is due, updates the gauges and prunes.
func (d *Dispatcher) poll(ctx context.Context) {
	heads, err := d.heads(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Error("webhooks: reading the outbox", "cause", cause(err))
		}
		return
	}
	now := d.cfg.Now()
	d.metrics.observeHeads(heads, now)
	for _, h := range heads {
		if h.sub.Enabled && h.event != nil && d.ready(&h.sub, now) {
			d.startDelivering(ctx, h.sub.TenantID, h.sub.ID)
		}
	}
	d.prune(ctx, now)
}

// heldLease is a delivery lease this dispatcher took: the subscription's
// tenant and the lease's token.
type heldLease struct {
	tenantID string
	token    int64
}

// head is a subscription with its next pending event (nil when none).
type head struct {
	sub   store.Subscription
	event *store.Event
}

func (d *Dispatcher) heads(ctx context.Context) ([]head, error) {
	var heads []head
	err := d.cfg.Store.View(ctx, func(tx store.Tx) error {
		subs, err := tx.Subscriptions("")
		if err != nil {
			return err
		}
		for _, s := range subs {
			next, err := nextPending(tx, &s) // on a copy: nothing is written here
			if err != nil {
				return err
			}
			heads = append(heads, head{sub: s, event: next.event})
		}
		return nil
	})
	return heads, err
}

func due(s *store.Subscription, now time.Time) bool {
	return s.NextAttemptAt == nil || !s.NextAttemptAt.After(now)
}

// startDelivering starts the delivery goroutine of a subscription unless it
// has one.
func (d *Dispatcher) startDelivering(ctx context.Context, tenantID string, id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy[id] {
		return
	}
	d.busy[id] = true
	d.workers.Go(func() {
		defer d.release(id)
		d.deliverAll(ctx, tenantID, id)
	})
}

func (d *Dispatcher) release(id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.busy, id)
}

// prune deletes expired events and attempts every PruneInterval; after a
// full batch it goes on at the next poll. It sets the retained events gauge.
func (d *Dispatcher) prune(ctx context.Context, now time.Time) {
	if now.Sub(d.lastPrune) < d.cfg.PruneInterval {
		return
	}
	cutoff := now.Add(-d.cfg.Retention)
	var events, attempts, retained int
	err := d.cfg.Store.Update(ctx, func(tx store.Tx) (err error) {
		if events, err = tx.PruneEvents(cutoff, pruneBatch); err != nil {
			return err
		}
		attempts, err = tx.PruneAttempts(cutoff, pruneBatch)
		return err
	})
	if err == nil { // counted once the pruning committed
		err = d.cfg.Store.View(ctx, func(tx store.Tx) (err error) { retained, err = tx.CountEvents(); return err })
	}
	switch {
	case err != nil && ctx.Err() == nil:
		d.cfg.Logger.Error("webhooks: pruning expired events", "cause", cause(err))
	case err == nil && events+attempts > 0:
		d.cfg.Logger.Info("webhooks: pruned expired events", "events", events, "attempts", attempts, "olderThan", cutoff)
	}
	if err == nil {
		d.metrics.retained.Set(float64(retained))
	}
	if err == nil && events < pruneBatch && attempts < pruneBatch {
		d.lastPrune = now
	}
}
