package webhooks

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// maxReplays is how many replays and resends a subscription may have
// pending: each is delivered in turn, so more would only queue.
const maxReplays = 20

// EnableWebhookSubscription turns deliveries to a subscription of the
// caller's tenant on again. See connect.WebhookSubscriptionService.
func (s *Subscriptions) EnableWebhookSubscription(ctx context.Context, caller connect.Caller, id int64) (connect.WebhookSubscriptionInfo, error) {
	return s.integratorChange(ctx, caller, id, enable)
}

// DisableWebhookSubscription stops deliveries to a subscription of the
// caller's tenant. See connect.WebhookSubscriptionService.
func (s *Subscriptions) DisableWebhookSubscription(ctx context.Context, caller connect.Caller, id int64) (connect.WebhookSubscriptionInfo, error) {
	return s.integratorChange(ctx, caller, id, disable)
}

// integratorChange makes the operator's change fn of a subscription for an
// integrator, who needs webhooks.manage, and returns the result as the
// integrator sees it.
func (s *Subscriptions) integratorChange(ctx context.Context, caller connect.Caller, id int64, fn func(*store.Subscription, time.Time)) (connect.WebhookSubscriptionInfo, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.WebhookSubscriptionInfo{}, err
	}
	rec, err := s.change(ctx, caller.TenantID, id, fn)
	if err != nil {
		return connect.WebhookSubscriptionInfo{}, err
	}
	return info(&rec, s.now()), nil
}

// ListDeliveryAttempts returns a page of a subscription's attempts, newest
// first. See connect.WebhookSubscriptionService.
func (s *Subscriptions) ListDeliveryAttempts(ctx context.Context, caller connect.Caller, id, before int64, limit int) (connect.DeliveryAttemptPage, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.DeliveryAttemptPage{}, err
	}
	limit = connect.PageLimit(limit)
	page := connect.DeliveryAttemptPage{Attempts: []connect.DeliveryAttempt{}}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		if _, err := load(tx, caller.TenantID, id); err != nil {
			return err
		}
		list, err := tx.Attempts(caller.TenantID, id, before, limit)
		for _, a := range list {
			page.Attempts = append(page.Attempts, a.DeliveryAttempt)
		}
		return err
	})
	if n := len(page.Attempts); n == limit {
		page.Next = strconv.FormatInt(page.Attempts[n-1].ID, 10)
	}
	return page, err
}

// ReplayWebhookSubscription queues a replay of a subscription's events since
// a time or after an event. See connect.WebhookSubscriptionService.
//
// A replay covers the events of the subscription's kinds from its start up
// to the last one the live stream has reached (its cursor): later events are
// still pending live and come once, after the replay. Replays and resends are
// delivered one after the other, in the order requested, each in event order,
// before the live stream goes on; an attempt in flight when one is requested
// finishes first.
func (s *Subscriptions) ReplayWebhookSubscription(ctx context.Context, caller connect.Caller, id int64, req connect.ReplayRequest, opts connect.WriteOptions) (connect.ReplayOutcome, error) {
	return s.queueReplay(ctx, caller, id, req, opts, "replay", checkReplay(req), func(tx store.Tx, rec *store.Subscription) (store.Replay, error) {
		after, err := replayStart(tx, rec.TenantID, req)
		return store.Replay{After: after, Through: rec.Cursor, Trigger: TriggerReplay}, err
	})
}

// replayStart is the number after which a replay starts.
func replayStart(tx store.Tx, tenantID string, req connect.ReplayRequest) (int64, error) {
	if req.Since != nil {
		seq, err := tx.EventSeqAt(*req.Since)
		return seq - 1, err
	}
	e, err := event(tx, tenantID, *req.AfterEventID, "afterEventId")
	if err != nil {
		return 0, err
	}
	return e.Seq, nil
}

// ResendWebhookEvent queues one event to be delivered again to a
// subscription. See connect.WebhookSubscriptionService.
func (s *Subscriptions) ResendWebhookEvent(ctx context.Context, caller connect.Caller, id int64, req connect.ResendRequest, opts connect.WriteOptions) (connect.ReplayOutcome, error) {
	var check error
	if req.EventID == "" {
		check = connect.Errorf(connect.CodeInvalidRequest, "eventId is required")
	}
	return s.queueReplay(ctx, caller, id, req, opts, "resend", check, func(tx store.Tx, rec *store.Subscription) (store.Replay, error) {
		e, err := event(tx, rec.TenantID, req.EventID, "eventId")
		if err != nil {
			return store.Replay{}, err
		}
		if !slices.Contains(rec.Kinds, e.Kind) {
			return store.Replay{}, connect.Errorf(connect.CodeInvalidRequest,
				"eventId %s is a %s event, which webhook subscription %d does not receive", e.ID, e.Kind, rec.ID)
		}
		return store.Replay{After: e.Seq - 1, Through: e.Seq, Trigger: TriggerResend}, nil
	})
}

// queueReplay is the idempotent write of a replay or a resend: it refuses the
// request with invalid (the request's own fault, nil for none), or adds the
// range that plan returns to the subscription's replays, read afresh in the
// transaction.
func (s *Subscriptions) queueReplay(ctx context.Context, caller connect.Caller, id int64, req any, opts connect.WriteOptions, action string,
	invalid error, plan func(store.Tx, *store.Subscription) (store.Replay, error)) (connect.ReplayOutcome, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.ReplayOutcome{}, err
	}
	body, err := connect.EncodeRequest(req)
	if err != nil {
		return connect.ReplayOutcome{}, err
	}
	claim, err := store.ClaimWrite[connect.WebhookSubscriptionInfo](ctx, s.Store, s.write(caller, opts, actionOn(id, action), body))
	if err != nil {
		return connect.ReplayOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return replayOutcome(claim.Replay())
	}
	if invalid != nil {
		return replayOutcome(claim.Fail(ctx, invalid))
	}
	return replayOutcome(claim.Commit(ctx, func(tx store.Tx) (connect.WebhookSubscriptionInfo, bool, error) {
		rec, err := load(tx, caller.TenantID, id)
		if err != nil {
			return connect.WebhookSubscriptionInfo{}, false, err
		}
		r, err := plan(tx, rec)
		if err != nil {
			return connect.WebhookSubscriptionInfo{}, false, err
		}
		if len(rec.Replays) >= maxReplays {
			return connect.WebhookSubscriptionInfo{}, false, connect.Errorf(connect.CodeRateLimited,
				"webhook subscription %d has %d replays and resends pending, the most it may; retry once one was delivered", id, maxReplays)
		}
		if r.After < r.Through { // a replay of nothing adds nothing
			rec.Replays = append(rec.Replays, r)
		}
		return info(rec, s.now()), false, tx.PutSubscription(rec)
	}))
}

// checkReplay checks a replay request: exactly one start.
func checkReplay(r connect.ReplayRequest) error {
	if (r.Since == nil) == (r.AfterEventID == nil) {
		return connect.Errorf(connect.CodeInvalidRequest, "the replay request must have exactly one of since and afterEventId")
	}
	if r.AfterEventID != nil && *r.AfterEventID == "" {
		return connect.Errorf(connect.CodeInvalidRequest, "afterEventId must not be empty")
	}
	return nil
}

// event returns the tenant's event named in field, or NotFound naming it.
func event(tx store.Tx, tenantID, id, field string) (*store.Event, error) {
	e, err := tx.EventByID(tenantID, id)
	if errors.Is(err, connect.ErrNotFound) {
		return nil, connect.Errorf(connect.CodeNotFound, "%s %s names no event of tenant %q: unknown, or older than the retention period", field, connect.Quote(id), tenantID)
	}
	return e, err
}

func replayOutcome(out store.Outcome[connect.WebhookSubscriptionInfo], err error) (connect.ReplayOutcome, error) {
	return connect.ReplayOutcome{Subscription: out.Value, Replayed: out.Replayed}, err
}

// TestWebhookSubscription sends a ping to a subscription of the caller's
// tenant and records the attempt. See connect.WebhookSubscriptionService.
func (s *Subscriptions) TestWebhookSubscription(ctx context.Context, caller connect.Caller, id int64, opts connect.WriteOptions) (connect.TestOutcome, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.TestOutcome{}, err
	}
	claim, err := store.ClaimWrite[connect.DeliveryAttempt](ctx, s.Store, s.write(caller, opts, actionOn(id, "test"), nil))
	if err != nil {
		return connect.TestOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return testOutcome(claim.Replay())
	}
	var rec *store.Subscription
	err = s.Store.View(ctx, func(tx store.Tx) (err error) {
		rec, err = load(tx, caller.TenantID, id)
		return err
	})
	if err != nil {
		return testOutcome(claim.Fail(ctx, err))
	}
	next, result, err := s.ping(ctx, rec)
	if err != nil {
		return testOutcome(claim.Fail(ctx, err))
	}
	return testOutcome(claim.Commit(ctx, func(tx store.Tx) (connect.DeliveryAttempt, bool, error) {
		if _, err := load(tx, caller.TenantID, id); err != nil {
			return connect.DeliveryAttempt{}, false, err
		}
		attempt := result.attempt(rec, next, 1)
		err := tx.AppendAttempt(attempt)
		return attempt.DeliveryAttempt, false, err
	}))
}

// ping sends a ping event to rec through the delivery path.
func (s *Subscriptions) ping(ctx context.Context, rec *store.Subscription) (pending, attemptResult, error) {
	s.senderOnce.Do(func() {
		s.sender = newSender(s.URLs, cmp.Or(s.AttemptTimeout, DefaultAttemptTimeout))
	})
	e, err := ping(rec, s.now())
	if err != nil {
		return pending{}, attemptResult{}, err
	}
	next := pending{event: e, trigger: TriggerTest}
	return next, s.sender.send(ctx, rec, e, s.now), nil
}

func testOutcome(out store.Outcome[connect.DeliveryAttempt], err error) (connect.TestOutcome, error) {
	return connect.TestOutcome{Attempt: out.Value, Replayed: out.Replayed}, err
}
