package webhooks

import (
	"context"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// operationCreate is the operation of a create: with the body, its fingerprint.
const operationCreate = "POST /webhook-subscriptions"

var _ connect.WebhookSubscriptionService = (*Subscriptions)(nil)

// CreateWebhookSubscription subscribes req.URL to req.Events of the caller's
// tenant: req's JSON, created as CreateWebhookSubscriptionJSON creates it. See
// connect.WebhookSubscriptionService.
func (s *Subscriptions) CreateWebhookSubscription(ctx context.Context, caller connect.Caller, req connect.WebhookSubscriptionRequest, opts connect.WriteOptions) (connect.WebhookSubscriptionOutcome, error) {
	body, err := connect.EncodeRequest(req)
	if err != nil {
		return connect.WebhookSubscriptionOutcome{}, err
	}
	return s.CreateWebhookSubscriptionJSON(ctx, caller, body, opts)
}

// CreateWebhookSubscriptionJSON is CreateWebhookSubscription with the body of
// POST {base_url}/webhook-subscriptions. Unknown fields are refused. The
// request is checked by the rules of Add, except that an integrator can never
// allow http on loopback.
func (s *Subscriptions) CreateWebhookSubscriptionJSON(ctx context.Context, caller connect.Caller, body []byte, opts connect.WriteOptions) (connect.WebhookSubscriptionOutcome, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.WebhookSubscriptionOutcome{}, err
	}
	claim, err := store.ClaimWrite[connect.WebhookSubscriptionWithSecret](ctx, s.Store, s.write(caller, opts, operationCreate, body))
	if err != nil {
		return connect.WebhookSubscriptionOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return subscriptionOutcome(claim.Replay())
	}
	var req connect.WebhookSubscriptionRequest
	if err := connect.DecodeObject(body, &req, "webhook subscription", json.RejectUnknownMembers(true)); err != nil {
		return subscriptionOutcome(claim.Fail(ctx, err))
	}
	rec, err := s.newRecord(ctx, connect.NewWebhookSubscription{TenantID: caller.TenantID, URL: req.URL, Kinds: req.Events}, "events")
	if err != nil {
		return subscriptionOutcome(claim.Fail(ctx, err))
	}
	return subscriptionOutcome(claim.Commit(ctx, func(tx store.Tx) (connect.WebhookSubscriptionWithSecret, bool, error) {
		created := *rec
		err := tx.CreateSubscription(&created)
		return withSecret(&created, created.CreatedAt), true, err
	}))
}

// ListWebhookSubscriptions lists the caller's tenant's subscriptions. See
// connect.WebhookSubscriptionService.
func (s *Subscriptions) ListWebhookSubscriptions(ctx context.Context, caller connect.Caller) (connect.WebhookSubscriptionList, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.WebhookSubscriptionList{}, err
	}
	list := connect.WebhookSubscriptionList{Subscriptions: []connect.WebhookSubscriptionInfo{}}
	if caller.TenantID == "" { // the store would list every tenant's
		return list, nil
	}
	now := s.now()
	err := s.Store.View(ctx, func(tx store.Tx) error {
		recs, err := tx.Subscriptions(caller.TenantID)
		for _, r := range recs {
			list.Subscriptions = append(list.Subscriptions, info(&r, now))
		}
		return err
	})
	return list, err
}

// GetWebhookSubscription returns one subscription of the caller's tenant. See
// connect.WebhookSubscriptionService.
func (s *Subscriptions) GetWebhookSubscription(ctx context.Context, caller connect.Caller, id int64) (connect.WebhookSubscriptionInfo, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.WebhookSubscriptionInfo{}, err
	}
	var got connect.WebhookSubscriptionInfo
	err := s.Store.View(ctx, func(tx store.Tx) error {
		rec, err := load(tx, caller.TenantID, id)
		if err == nil {
			got = info(rec, s.now())
		}
		return err
	})
	return got, err
}

// DeleteWebhookSubscription removes a subscription of the caller's tenant.
// See connect.WebhookSubscriptionService.
func (s *Subscriptions) DeleteWebhookSubscription(ctx context.Context, caller connect.Caller, id int64) error {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return err
	}
	return s.Remove(ctx, caller.TenantID, id)
}

// RotateWebhookSubscriptionSecret gives a subscription of the caller's tenant
// a new secret, idempotently. See connect.WebhookSubscriptionService.
func (s *Subscriptions) RotateWebhookSubscriptionSecret(ctx context.Context, caller connect.Caller, id int64, opts connect.WriteOptions) (connect.WebhookSubscriptionOutcome, error) {
	if err := caller.RequireScope(connect.Required.ManageWebhooks); err != nil {
		return connect.WebhookSubscriptionOutcome{}, err
	}
	claim, err := store.ClaimWrite[connect.WebhookSubscriptionWithSecret](ctx, s.Store, s.write(caller, opts, actionOn(id, "rotate-secret"), nil))
	if err != nil {
		return connect.WebhookSubscriptionOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return subscriptionOutcome(claim.Replay())
	}
	secret, err := newSecret()
	if err != nil {
		return subscriptionOutcome(claim.Fail(ctx, err))
	}
	return subscriptionOutcome(claim.Commit(ctx, func(tx store.Tx) (connect.WebhookSubscriptionWithSecret, bool, error) {
		rec, err := load(tx, caller.TenantID, id)
		if err != nil {
			return connect.WebhookSubscriptionWithSecret{}, false, err
		}
		now := s.now()
		s.rotate(rec, secret, now)
		return withSecret(rec, now), false, tx.PutSubscription(rec)
	}))
}

// actionOn is the operation, for the idempotent write path, of a POST of
// action on subscription id.
func actionOn(id int64, action string) string {
	return "POST /webhook-subscriptions/" + strconv.FormatInt(id, 10) + "/" + action
}

// write describes a write of an integrator for the idempotent write path.
func (s *Subscriptions) write(caller connect.Caller, opts connect.WriteOptions, operation string, body []byte) store.Write {
	return store.Write{
		Caller: caller, Key: opts.IdempotencyKey, Operation: operation, Body: body,
		Now: s.now(), Retention: s.IdempotencyRetention,
	}
}

func subscriptionOutcome(out store.Outcome[connect.WebhookSubscriptionWithSecret], err error) (connect.WebhookSubscriptionOutcome, error) {
	return connect.WebhookSubscriptionOutcome{Subscription: out.Value, Replayed: out.Replayed}, err
}

// info is a subscription as integrators see it, at the time now (which says
// whether the previous secret still signs).
func info(rec *store.Subscription, now time.Time) connect.WebhookSubscriptionInfo {
	i := connect.WebhookSubscriptionInfo{
		ID: rec.ID, URL: rec.URL, Events: rec.Kinds, Enabled: rec.Enabled, CreatedAt: rec.CreatedAt,
		Status: status(&rec.WebhookSubscription), FailingSince: rec.FailingSince, NextAttemptAt: rec.NextAttemptAt,
		LastDeliveredAt: rec.LastDeliveredAt, PendingReplays: len(rec.Replays),
	}
	if rec.LastError != "" {
		i.LastError = &rec.LastError
	}
	if rec.LastDeliveredEventID != "" {
		i.LastDeliveredEventID = &rec.LastDeliveredEventID
	}
	if rec.PreviousSecret != "" && now.Before(rec.PreviousSecretUntil) {
		i.PreviousSecretExpiresAt = &rec.PreviousSecretUntil
	}
	if !rec.Enabled {
		i.NextAttemptAt = nil // nothing is attempted until it is enabled
	}
	return i
}

// status says whether a subscription delivers, and if not, who stopped it.
func status(sub *connect.WebhookSubscription) connect.SubscriptionStatus {
	switch {
	case sub.Enabled:
		return connect.SubscriptionEnabled
	case sub.DisabledBy == connect.DisabledByFailures:
		return connect.SubscriptionDisabledAfterFailures
	}
	return connect.SubscriptionDisabled
}

func withSecret(rec *store.Subscription, now time.Time) connect.WebhookSubscriptionWithSecret {
	return connect.WebhookSubscriptionWithSecret{WebhookSubscriptionInfo: info(rec, now), Secret: rec.Secret}
}
