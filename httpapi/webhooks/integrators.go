package webhooks

import (
	"context"
	"strconv"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// operationCreate is the operation of a create: with the body, its fingerprint.
const operationCreate = "POST /webhook-subscriptions"

var _ connect.WebhookSubscriptionService = (*Subscriptions)(nil)

// CreateWebhookSubscription subscribes req.URL to req.Events of the caller's
// tenant. See connect.WebhookSubscriptionService.
func (s *Subscriptions) CreateWebhookSubscription(ctx context.Context, caller connect.Caller, req connect.WebhookSubscriptionRequest, opts connect.WriteOptions) (connect.WebhookSubscriptionOutcome, error) {
	return s.create(ctx, caller, opts, func() ([]byte, error) { return encodeRequest(req) }, func() (connect.WebhookSubscriptionRequest, error) {
		return req, connect.CheckUTF8(&req)
	})
}

// CreateWebhookSubscriptionJSON is CreateWebhookSubscription with the body of
// POST {base_url}/webhook-subscriptions. Unknown fields are refused.
func (s *Subscriptions) CreateWebhookSubscriptionJSON(ctx context.Context, caller connect.Caller, body []byte, opts connect.WriteOptions) (connect.WebhookSubscriptionOutcome, error) {
	return s.create(ctx, caller, opts, func() ([]byte, error) { return body, nil }, func() (connect.WebhookSubscriptionRequest, error) {
		var req connect.WebhookSubscriptionRequest
		return req, connect.DecodeObject(body, &req, "webhook subscription", json.RejectUnknownMembers(true))
	})
}

// create checks the request by the rules of Add (an integrator can never
// allow http on loopback) and creates the subscription, idempotently.
func (s *Subscriptions) create(ctx context.Context, caller connect.Caller, opts connect.WriteOptions, body func() ([]byte, error), decode func() (connect.WebhookSubscriptionRequest, error)) (connect.WebhookSubscriptionOutcome, error) {
	if err := caller.RequireScope(connect.ScopeWebhooksManage); err != nil {
		return connect.WebhookSubscriptionOutcome{}, err
	}
	out, err := s.write(ctx, caller, opts, operationCreate, body, func() (store.TxFunc[connect.WebhookSubscriptionWithSecret], error) {
		req, err := decode()
		if err != nil {
			return nil, err
		}
		rec, err := s.newRecord(ctx, connect.NewWebhookSubscription{TenantID: caller.TenantID, URL: req.URL, Kinds: req.Events}, "events")
		if err != nil {
			return nil, err
		}
		return func(tx store.Tx) (connect.WebhookSubscriptionWithSecret, bool, error) {
			created := *rec
			err := tx.CreateSubscription(&created)
			return withSecret(&created), true, err
		}, nil
	})
	return connect.WebhookSubscriptionOutcome{Subscription: out.Value, Replayed: out.Replayed}, err
}

// ListWebhookSubscriptions lists the caller's tenant's subscriptions. See
// connect.WebhookSubscriptionService.
func (s *Subscriptions) ListWebhookSubscriptions(ctx context.Context, caller connect.Caller) (connect.WebhookSubscriptionList, error) {
	if err := caller.RequireScope(connect.ScopeWebhooksManage); err != nil {
		return connect.WebhookSubscriptionList{}, err
	}
	list := connect.WebhookSubscriptionList{Subscriptions: []connect.WebhookSubscriptionInfo{}}
	if caller.TenantID == "" { // the store would list every tenant's
		return list, nil
	}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		recs, err := tx.Subscriptions(caller.TenantID)
		for _, r := range recs {
			list.Subscriptions = append(list.Subscriptions, info(&r))
		}
		return err
	})
	return list, err
}

// GetWebhookSubscription returns one subscription of the caller's tenant. See
// connect.WebhookSubscriptionService.
func (s *Subscriptions) GetWebhookSubscription(ctx context.Context, caller connect.Caller, id int64) (connect.WebhookSubscriptionInfo, error) {
	if err := caller.RequireScope(connect.ScopeWebhooksManage); err != nil {
		return connect.WebhookSubscriptionInfo{}, err
	}
	var got connect.WebhookSubscriptionInfo
	err := s.Store.View(ctx, func(tx store.Tx) error {
		rec, err := load(tx, caller.TenantID, id)
		if err == nil {
			got = info(rec)
		}
		return err
	})
	return got, err
}

// DeleteWebhookSubscription removes a subscription of the caller's tenant.
// See connect.WebhookSubscriptionService.
func (s *Subscriptions) DeleteWebhookSubscription(ctx context.Context, caller connect.Caller, id int64) error {
	if err := caller.RequireScope(connect.ScopeWebhooksManage); err != nil {
		return err
	}
	return s.Remove(ctx, caller.TenantID, id)
}

// RotateWebhookSubscriptionSecret gives a subscription of the caller's tenant
// a new secret, idempotently. See connect.WebhookSubscriptionService.
func (s *Subscriptions) RotateWebhookSubscriptionSecret(ctx context.Context, caller connect.Caller, id int64, opts connect.WriteOptions) (connect.WebhookSubscriptionOutcome, error) {
	if err := caller.RequireScope(connect.ScopeWebhooksManage); err != nil {
		return connect.WebhookSubscriptionOutcome{}, err
	}
	operation := "POST /webhook-subscriptions/" + strconv.FormatInt(id, 10) + "/rotate-secret"
	noBody := func() ([]byte, error) { return nil, nil }
	out, err := s.write(ctx, caller, opts, operation, noBody, func() (store.TxFunc[connect.WebhookSubscriptionWithSecret], error) {
		secret, err := newSecret()
		if err != nil {
			return nil, err
		}
		return func(tx store.Tx) (connect.WebhookSubscriptionWithSecret, bool, error) {
			rec, err := load(tx, caller.TenantID, id)
			if err != nil {
				return connect.WebhookSubscriptionWithSecret{}, false, err
			}
			rec.Secret = secret
			return withSecret(rec), false, tx.PutSubscription(rec)
		}, nil
	})
	return connect.WebhookSubscriptionOutcome{Subscription: out.Value, Replayed: out.Replayed}, err
}

// write runs one write through the idempotent path. body gives the request for
// the fingerprint; it is only asked for when there is a key.
func (s *Subscriptions) write(ctx context.Context, caller connect.Caller, opts connect.WriteOptions, operation string, body func() ([]byte, error), prepare func() (store.TxFunc[connect.WebhookSubscriptionWithSecret], error)) (store.Outcome[connect.WebhookSubscriptionWithSecret], error) {
	w := store.Write{Caller: caller, Key: opts.IdempotencyKey, Operation: operation, Now: s.now(), Retention: s.IdempotencyRetention}
	if w.Key != "" {
		var err error
		if w.Body, err = body(); err != nil {
			return store.Outcome[connect.WebhookSubscriptionWithSecret]{}, err
		}
	}
	claim, err := store.ClaimWrite[connect.WebhookSubscriptionWithSecret](ctx, s.Store, w)
	if err != nil {
		return store.Outcome[connect.WebhookSubscriptionWithSecret]{}, err
	}
	defer claim.Release()
	return claim.Run(ctx, prepare)
}

func info(rec *store.Subscription) connect.WebhookSubscriptionInfo {
	return connect.WebhookSubscriptionInfo{ID: rec.ID, URL: rec.URL, Events: rec.Kinds, Enabled: rec.Enabled, CreatedAt: rec.CreatedAt}
}

func withSecret(rec *store.Subscription) connect.WebhookSubscriptionWithSecret {
	return connect.WebhookSubscriptionWithSecret{WebhookSubscriptionInfo: info(rec), Secret: rec.Secret}
}

// encodeRequest is the JSON of a request given as a Go value, for its
// fingerprint.
func encodeRequest(req connect.WebhookSubscriptionRequest) ([]byte, error) {
	b, err := json.Marshal(req)
	return b, errors.Wrap(err, "encoding a webhook subscription request")
}
