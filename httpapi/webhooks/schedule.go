package webhooks

import (
	"time"

	"github.com/integration-connect/connect/store"
)

// jitter is the largest share by which a retry delay is shortened at random,
// so many subscriptions failing at once do not retry at once.
const jitter = 0.2

// delay is the wait after the nth failed attempt in a row: RetryMin doubled
// n-1 times, at most RetryMax, shortened by a random 0-20%.
func (d *Dispatcher) delay(n int) time.Duration {
	base := d.cfg.RetryMin
	for i := 1; i < n && base < d.cfg.RetryMax; i++ {
		base *= 2
	}
	base = min(base, d.cfg.RetryMax)
	return base - time.Duration(float64(base)*jitter*d.cfg.Rand())
}

// hold is the schedule of a subscription whose last outcome could not be
// recorded: the store still holds the schedule from before that attempt.
type hold struct {
	attempts int       // failed attempts in a row, recorded or not
	until    time.Time // no attempt before
}

// hold keeps sub from being attempted again before the delay a recorded
// failure would have set, and returns when it may be. Without it a store that
// refuses the record (a full disk, a record it cannot encode) would leave the
// stored schedule due, and the subscription would be retried at every poll.
// The hold lives in memory only: after a restart the stored schedule rules.
func (d *Dispatcher) hold(sub *store.Subscription) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.held[sub.ID]
	h.attempts = max(h.attempts, sub.Attempts) + 1
	h.until = d.cfg.Now().Add(d.delay(h.attempts))
	d.held[sub.ID] = h
	return h.until
}

// unhold drops the hold of a subscription whose outcome was recorded: the
// stored schedule is current again.
func (d *Dispatcher) unhold(id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.held, id)
}

// ready reports whether s may get an attempt at now: its stored schedule and
// its hold, if any, both allow it.
func (d *Dispatcher) ready(s *store.Subscription, now time.Time) bool {
	d.mu.Lock()
	h, held := d.held[s.ID]
	d.mu.Unlock()
	return due(s, now) && (!held || !h.until.After(now))
}
