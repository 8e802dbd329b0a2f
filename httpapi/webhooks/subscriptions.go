package webhooks

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Subscriptions manages the webhook subscriptions of tenants on a store: the
// library API behind `connectd webhooks`. A secret is made by Add and
// RotateSecret and returned only by them; List never shows one. Another
// tenant's subscription id is NotFound, like an unknown one.
type Subscriptions struct {
	Store store.Store
	// URLs is the rule for subscription URLs (see URLPolicy). Every way of
	// adding a subscription goes through Add, so it always applies.
	URLs URLPolicy
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IdempotencyRetention is how long the idempotency records of integrators'
	// writes are kept; zero means store.DefaultIdempotencyRetention.
	IdempotencyRetention time.Duration
	// SecretOverlap is how long the previous secret goes on signing
	// deliveries beside the new one after a rotation, so receivers can
	// switch without losing a delivery. Zero means DefaultSecretOverlap; a
	// negative overlap ends the old secret at once.
	SecretOverlap time.Duration
	// AttemptTimeout bounds a test's ping, as Config.AttemptTimeout bounds
	// every delivery; zero means DefaultAttemptTimeout.
	AttemptTimeout time.Duration

	senderOnce sync.Once
	sender     *sender
}

// DefaultSecretOverlap is the default of Subscriptions.SecretOverlap.
const DefaultSecretOverlap = 24 * time.Hour

// overlap is how long a rotated-out secret goes on signing.
func (s *Subscriptions) overlap() time.Duration {
	if s.SecretOverlap == 0 {
		return DefaultSecretOverlap
	}
	return max(s.SecretOverlap, 0)
}

func (s *Subscriptions) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// Add creates an enabled subscription and returns it with its signing secret,
// which cannot be shown again. It receives the events of its tenant and kinds
// appended after it. Its URL must pass s.URLs.CheckURL, which resolves the
// host. Errors: InvalidRequest naming the field (tenantId, url, kinds).
func (s *Subscriptions) Add(ctx context.Context, ns connect.NewWebhookSubscription) (connect.WebhookSubscription, string, error) {
	rec, err := s.newRecord(ctx, ns, "kinds")
	if err != nil {
		return connect.WebhookSubscription{}, "", err
	}
	if err := s.Store.Update(ctx, func(tx store.Tx) error { return tx.CreateSubscription(rec) }); err != nil {
		return connect.WebhookSubscription{}, "", err
	}
	return rec.WebhookSubscription, rec.Secret, nil
}

// newRecord checks a new subscription by the rules every new subscription
// follows, whoever adds it, and returns its record with a new secret.
// kindsField names the kinds in messages ("kinds", or "events" on the wire).
func (s *Subscriptions) newRecord(ctx context.Context, ns connect.NewWebhookSubscription, kindsField string) (*store.Subscription, error) {
	kinds, err := s.checkNew(ctx, ns, kindsField)
	if err != nil {
		return nil, err
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	rec := &store.Subscription{Secret: secret}
	rec.TenantID, rec.URL, rec.Kinds, rec.Enabled = ns.TenantID, ns.URL, kinds, true
	rec.AllowInsecureLoopback, rec.CreatedAt = ns.AllowInsecureLoopback, s.now()
	return rec, nil
}

// List returns the subscriptions of a tenant, or of every tenant when
// tenantID is empty, ordered by id, without their secrets.
func (s *Subscriptions) List(ctx context.Context, tenantID string) ([]connect.WebhookSubscription, error) {
	list := []connect.WebhookSubscription{}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		recs, err := tx.Subscriptions(tenantID)
		for _, r := range recs {
			list = append(list, r.WebhookSubscription)
		}
		return err
	})
	return list, err
}

// Remove deletes a subscription; its pending events are no longer kept for
// it. Errors: NotFound.
func (s *Subscriptions) Remove(ctx context.Context, tenantID string, id int64) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		if _, err := load(tx, tenantID, id); err != nil {
			return err
		}
		return tx.DeleteSubscription(tenantID, id)
	})
}

// RotateSecret gives a subscription a new signing secret and returns it; the
// old one goes on signing beside it for SecretOverlap. Errors: NotFound.
func (s *Subscriptions) RotateSecret(ctx context.Context, tenantID string, id int64) (string, error) {
	secret, err := newSecret()
	if err != nil {
		return "", err
	}
	_, err = s.change(ctx, tenantID, id, func(rec *store.Subscription, now time.Time) { s.rotate(rec, secret, now) })
	return secret, err
}

// rotate makes secret rec's signing secret; the one it replaces signs beside
// it until the overlap ends. A secret rotated out during an overlap no
// longer signs: only the last two secrets ever do.
func (s *Subscriptions) rotate(rec *store.Subscription, secret string, now time.Time) {
	rec.PreviousSecret, rec.PreviousSecretUntil = rec.Secret, now.Add(s.overlap())
	rec.Secret = secret
}

// Enable turns deliveries to a subscription on again, at once, starting with
// the first event it has not received (and its pending replays). Errors:
// NotFound.
func (s *Subscriptions) Enable(ctx context.Context, tenantID string, id int64) (connect.WebhookSubscription, error) {
	rec, err := s.change(ctx, tenantID, id, enable)
	return rec.WebhookSubscription, err
}

func enable(rec *store.Subscription, _ time.Time) {
	rec.Enabled, rec.DisabledAt, rec.DisabledBy = true, nil, ""
	rec.Attempts, rec.NextAttemptAt, rec.FailingSince, rec.LastError = 0, nil, nil, ""
}

// Disable stops deliveries to a subscription; its events are kept for the
// retention period and delivered once it is enabled again. Errors: NotFound.
func (s *Subscriptions) Disable(ctx context.Context, tenantID string, id int64) (connect.WebhookSubscription, error) {
	rec, err := s.change(ctx, tenantID, id, disable)
	return rec.WebhookSubscription, err
}

func disable(rec *store.Subscription, now time.Time) {
	if rec.Enabled {
		rec.Enabled, rec.DisabledAt, rec.DisabledBy = false, &now, connect.DisabledByRequest
	}
}

// change applies fn to a subscription at the time now, in one transaction,
// so it never undoes what the dispatcher records meanwhile, and returns the
// subscription as changed (zero on an error).
func (s *Subscriptions) change(ctx context.Context, tenantID string, id int64, fn func(rec *store.Subscription, now time.Time)) (store.Subscription, error) {
	var changed store.Subscription
	now := s.now()
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		rec, err := load(tx, tenantID, id)
		if err != nil {
			return err
		}
		fn(rec, now)
		changed = *rec
		return tx.PutSubscription(rec)
	})
	if err != nil {
		return store.Subscription{}, err
	}
	return changed, nil
}

func load(tx store.Tx, tenantID string, id int64) (*store.Subscription, error) {
	rec, err := tx.Subscription(tenantID, id)
	if errors.Is(err, connect.ErrNotFound) {
		return nil, connect.Errorf(connect.CodeNotFound, "tenant %q has no webhook subscription %d", tenantID, id)
	}
	return rec, err
}

// checkNew validates a new subscription, its URL by the one rule of
// s.URLs, and returns its kinds without duplicates; kindsField names the
// kinds in messages ("kinds", or "events" in the integrators' API).
func (s *Subscriptions) checkNew(ctx context.Context, ns connect.NewWebhookSubscription, kindsField string) ([]connect.EventKind, error) {
	if err := connect.Validate(ns); err != nil {
		return nil, err
	}
	if err := s.URLs.CheckURL(ctx, ns.URL, ns.AllowInsecureLoopback); err != nil {
		return nil, err
	}
	return checkKinds(ns.Kinds, kindsField)
}

func checkKinds(kinds []connect.EventKind, field string) ([]connect.EventKind, error) {
	var unique []connect.EventKind
	for i, kind := range kinds {
		if !kind.Valid() {
			return nil, connect.Errorf(connect.CodeInvalidRequest, "%s[%d] is %s, not an event kind; the kinds are %s", field, i, connect.Quote(string(kind)), kindNames())
		}
		if !slices.Contains(unique, kind) {
			unique = append(unique, kind)
		}
	}
	if len(unique) == 0 {
		return nil, connect.Errorf(connect.CodeInvalidRequest, "%s must hold at least one event kind: %s", field, kindNames())
	}
	return unique, nil
}

func kindNames() string {
	names := make([]string, len(connect.EventKinds))
	for i, k := range connect.EventKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
