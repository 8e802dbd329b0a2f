package webhooks

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Outcomes of a delivery attempt, the label of the deliveries metric.
const (
	outcomeDelivered    = "delivered"
	outcomeHTTPError    = "http_error"
	outcomeTimeout      = "timeout"
	outcomeNetworkError = "network_error"
	outcomeRefused      = "refused"
)

// leaseMargin is how much longer than one attempt a delivery lease lasts: the
// time to read the next event and record the outcome. A dispatcher that dies
// holding a lease delays its subscription by at most one attempt and this.
const leaseMargin = 30 * time.Second

// outcomes lists every outcome, so each series exists from the start.
var outcomes = []string{outcomeDelivered, outcomeHTTPError, outcomeTimeout, outcomeNetworkError, outcomeRefused}

// maxLastError bounds the error kept on a subscription.
const maxLastError = 300

// userAgent names the sender to receivers.
const userAgent = "IntegrationConnect-Webhooks/1"

// deliverAll delivers a subscription's pending events one after the other,
// until none is left, one fails, another dispatcher holds the subscription's
// delivery lease, or the dispatcher stops.
func (d *Dispatcher) deliverAll(ctx context.Context, tenantID string, id int64) {
	claimed := d.claimDeliveries(ctx, tenantID, id)
	for ctx.Err() == nil {
		sub, next, err := d.next(ctx, tenantID, id, d.leaseToken(id), claimed)
		if err != nil {
			if ctx.Err() == nil {
				d.cfg.Logger.Error("webhooks: reading the next event", "subscription", id, "cause", cause(err))
			}
			return
		}
		if next.event == nil {
			return
		}
		d.setLease(sub)
		if !d.deliver(ctx, sub, next) {
			return
		}
	}
}

// claimDeliveries takes the store claim on a subscription's deliveries, or
// reports that this dispatcher holds it already. A dispatcher keeps the claim
// from its first lease on the subscription until it stops, so getting it
// means no live dispatcher holds the lease: its holder stopped, or died — on
// PostgreSQL a replica's claims end with its database session (see
// store.Store.Claim) — and the lease may be taken over at once instead of
// when it expires. Without the claim the lease's expiry decides, as it
// always did; the lease token still fences off a late outcome.
func (d *Dispatcher) claimDeliveries(ctx context.Context, tenantID string, id int64) bool {
	d.mu.Lock()
	_, held := d.claims[id]
	d.mu.Unlock()
	if held {
		return true
	}
	release, ok, err := d.cfg.Store.Claim(ctx, "webhook-deliveries\x00"+tenantID+"\x00"+strconv.FormatInt(id, 10), claimLifetime)
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			d.cfg.Logger.Debug("webhooks: claiming a subscription's deliveries; its lease decides", "subscription", id, "error", err)
		}
		return false
	}
	d.mu.Lock()
	d.claims[id] = release
	d.mu.Unlock()
	return true
}

// claimLifetime is how long a delivery claim lasts: until the dispatcher
// releases it on Stop, or dies.
const claimLifetime = 100 * 365 * 24 * time.Hour

// pending is the next event of a subscription and why it is sent: live, or
// from the head of its replays (TriggerReplay, TriggerResend).
type pending struct {
	event   *store.Event
	trigger string
}

// The triggers of an attempt (connect.DeliveryAttempt.Trigger).
const (
	TriggerLive   = "live"
	TriggerReplay = "replay"
	TriggerResend = "resend"
	TriggerTest   = "test"
)

// next takes or renews the subscription's delivery lease and returns the
// subscription, read afresh, with its next pending event. The event is nil
// when there is none, when the subscription was removed, disabled or is
// waiting for a retry meanwhile, or when another dispatcher (of this process
// or another replica) holds an unexpired lease and is alive (claimed is
// false). token is the lease the caller holds (0 for none).
func (d *Dispatcher) next(ctx context.Context, tenantID string, id, token int64, claimed bool) (*store.Subscription, pending, error) {
	var sub *store.Subscription
	var next pending
	err := d.cfg.Store.Update(ctx, func(tx store.Tx) (err error) {
		sub, next = nil, pending{}
		now := d.cfg.Now()
		rec, err := tx.Subscription(tenantID, id)
		if err != nil || !rec.Enabled || !d.ready(rec, now) {
			return err
		}
		found, err := nextPending(tx, rec)
		if err != nil || !d.lease(rec, token, claimed, now) {
			return err
		}
		sub, next = rec, found
		return tx.PutSubscription(rec)
	})
	if errors.Is(err, connect.ErrNotFound) {
		return nil, pending{}, nil
	}
	return sub, next, err
}

// nextPending is the subscription's next event: the first of its oldest
// replay, or, when no replay is left, the live stream's next. A replay none
// of whose events is left (all pruned, or none of the subscription's kinds)
// is dropped from rec.
func nextPending(tx store.Tx, rec *store.Subscription) (pending, error) {
	for len(rec.Replays) > 0 {
		r := rec.Replays[0]
		e, err := store.NextEvent(tx, rec.TenantID, rec.Kinds, r.After)
		if err != nil && !errors.Is(err, connect.ErrNotFound) {
			return pending{}, err
		}
		if e != nil && e.Seq <= r.Through {
			return pending{event: e, trigger: r.Trigger}, nil
		}
		rec.Replays = rec.Replays[1:]
	}
	e, err := store.NextEvent(tx, rec.TenantID, rec.Kinds, rec.Cursor)
	if errors.Is(err, connect.ErrNotFound) {
		return pending{}, nil
	}
	return pending{event: e, trigger: TriggerLive}, err
}

// leaseToken returns the token of the lease this dispatcher took on a
// subscription (0 for none); it outlives the delivery goroutines, so the next
// one renews the lease instead of waiting for it to expire.
func (d *Dispatcher) leaseToken(id int64) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.leases[id].token
}

func (d *Dispatcher) setLease(sub *store.Subscription) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.leases[sub.ID] = heldLease{tenantID: sub.TenantID, token: sub.LeaseToken}
}

// lease takes rec's delivery lease for a holder of token, or renews it; it
// reports false when another holder's lease has not expired and that holder
// may be alive (the caller has not got the delivery claim). Every lease
// taken anew gets the next token, so no two holders ever share one.
func (d *Dispatcher) lease(rec *store.Subscription, token int64, claimed bool, now time.Time) bool {
	held := token != 0 && rec.LeaseToken == token
	if !held && rec.LeaseUntil.After(now) && !claimed {
		return false
	}
	if !held {
		rec.LeaseToken++
	}
	rec.LeaseUntil = now.Add(d.cfg.AttemptTimeout + leaseMargin)
	return true
}

// deliver makes one attempt and records its outcome; it reports whether the
// event was delivered. An attempt cut short by Stop is not recorded.
func (d *Dispatcher) deliver(ctx context.Context, sub *store.Subscription, next pending) bool {
	result := d.sender.send(ctx, sub, next.event, d.cfg.Now)
	if result.err != nil && ctx.Err() != nil {
		return false
	}
	d.metrics.count(result.outcome, next.trigger)
	// A delivery is recorded even when Stop comes now, so it is not repeated.
	if rerr := d.record(context.WithoutCancel(ctx), sub, next, result); rerr != nil {
		until := d.hold(sub)
		d.cfg.Logger.Error("webhooks: recording a delivery; the next attempt waits in memory",
			"subscription", sub.ID, "eventId", next.event.ID, "nextAttemptAt", until, "cause", cause(rerr))
		return false
	}
	d.unhold(sub.ID)
	return result.err == nil
}

// record writes the outcome of an attempt into the subscription, read afresh
// in the transaction, so settings changed meanwhile (a new secret, a disable)
// are kept, and stores the attempt. A removed subscription records nothing,
// and neither does a dispatcher whose lease another took over meanwhile (its
// token is fenced off): the new holder counts attempts and failures, so they
// count once.
func (d *Dispatcher) record(ctx context.Context, sub *store.Subscription, next pending, result attemptResult) error {
	var after store.Subscription
	var attempts int
	var dropped, disabled bool
	err := d.cfg.Store.Update(ctx, func(tx store.Tx) error {
		attempts, dropped, disabled = 0, false, false
		rec, err := tx.Subscription(sub.TenantID, sub.ID)
		if errors.Is(err, connect.ErrNotFound) || err == nil && rec.LeaseToken != sub.LeaseToken {
			dropped = true // removed, or delivered by another holder of the lease since
			return nil
		}
		if err != nil {
			return err
		}
		attempt := result.attempt(rec, next, rec.Attempts+1)
		if result.err == nil {
			attempts = delivered(rec, next, result.start)
		} else {
			disabled = d.failed(rec, result.start, result.err)
			rec.LeaseUntil = time.Time{} // whoever polls when the retry is due may take it
		}
		after = *rec
		if err := tx.AppendAttempt(attempt); err != nil {
			return err
		}
		return tx.PutSubscription(rec)
	})
	if err != nil || dropped {
		return err
	}
	d.report(&after, next.event, attempts, disabled, result.err)
	return nil
}

// delivered moves the subscription past the event it received: the head of
// its oldest replay, or the live stream's cursor. It clears the failure state
// and returns how many attempts the event took.
func delivered(rec *store.Subscription, next pending, at time.Time) int {
	attempts := rec.Attempts + 1
	if next.trigger == TriggerLive {
		rec.Cursor = max(rec.Cursor, next.event.Seq)
		rec.LastDeliveredEventID, rec.LastDeliveredAt = next.event.ID, &at
	} else if len(rec.Replays) > 0 {
		rec.Replays[0].After = next.event.Seq
		if rec.Replays[0].After >= rec.Replays[0].Through {
			rec.Replays = rec.Replays[1:]
		}
	}
	rec.Attempts, rec.NextAttemptAt, rec.FailingSince, rec.LastError = 0, nil, nil, ""
	return attempts
}

// failed schedules the next attempt and disables the subscription once it
// has been failing for DisableAfter; it reports whether it disabled it.
func (d *Dispatcher) failed(rec *store.Subscription, start time.Time, failure error) bool {
	now := d.cfg.Now()
	rec.Attempts++
	if rec.FailingSince == nil {
		rec.FailingSince = &start
	}
	rec.LastError = truncate(failure.Error(), maxLastError)
	next := now.Add(d.delay(rec.Attempts))
	rec.NextAttemptAt = &next
	if !rec.Enabled || now.Sub(*rec.FailingSince) < d.cfg.DisableAfter {
		return false
	}
	rec.Enabled, rec.DisabledAt, rec.DisabledBy = false, &now, connect.DisabledByFailures
	return true
}

// report logs and counts a recorded outcome; sub is the subscription as
// recorded. A failure is one line: subscription, event, attempt number, cause
// and the time of the next attempt, without a stack trace (see cause).
func (d *Dispatcher) report(sub *store.Subscription, event *store.Event, attempts int, disabled bool, failure error) {
	log := d.cfg.Logger.With("subscription", sub.ID, "tenantId", sub.TenantID, "eventId", event.ID, "type", event.Kind)
	switch {
	case failure == nil:
		d.metrics.attempts.Observe(float64(attempts))
		log.Debug("webhooks: delivered", "attempts", attempts)
	case disabled:
		log.Warn("webhooks: delivery failed; disabled the subscription, which kept failing; its events are kept until it is enabled again",
			"attempt", sub.Attempts, "cause", cause(failure), "failingFor", d.cfg.DisableAfter.String())
	default:
		log.Warn("webhooks: delivery failed; will retry",
			"attempt", sub.Attempts, "cause", cause(failure), "nextAttemptAt", sub.NextAttemptAt.Format(time.RFC3339))
	}
}

// cause is the text of err for a log line. slog writes an error value with
// %+v, which for these errors is a stack trace of about a kilobyte.
func cause(err error) string { return truncate(err.Error(), maxLastError) }

// truncate makes s valid UTF-8 and cuts it to at most n bytes on a character
// boundary, marking a cut with "…". Failure texts quote receivers (a status
// line may be in any encoding) and a subscription must stay encodable as JSON.
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, string(utf8.RuneError))
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
