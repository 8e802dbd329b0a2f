package webhooks_test

import (
	"testing"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
)

// TestIntegratorsNeedWebhooksManage: the library refuses every operation of
// the integrator API to a caller without webhooks.manage, so an embedding
// host gets the same rule as HTTP clients.
func TestIntegratorsNeedWebhooksManage(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	sub, _ := f.subscribe("acme", "https://hooks.example.com/a", connect.EventImportJobCompleted)
	caller := connect.Caller{TenantID: "acme", ClientID: "erp", Scopes: []connect.Scope{connect.ScopeImportJobsRead}}
	req := connect.WebhookSubscriptionRequest{URL: "https://hooks.example.com/b", Events: job}
	calls := map[string]error{
		"create": func() error {
			_, err := f.subs.CreateWebhookSubscription(ctx, caller, req, connect.WriteOptions{})
			return err
		}(),
		"list": func() error { _, err := f.subs.ListWebhookSubscriptions(ctx, caller); return err }(),
		"get":  func() error { _, err := f.subs.GetWebhookSubscription(ctx, caller, sub.ID); return err }(),
		"rotate": func() error {
			_, err := f.subs.RotateWebhookSubscriptionSecret(ctx, caller, sub.ID, connect.WriteOptions{})
			return err
		}(),
		"delete": f.subs.DeleteWebhookSubscription(ctx, caller, sub.ID),
	}
	for name, err := range calls {
		var e *connect.Error
		if !errors.As(err, &e) || e.Code != connect.CodeInsufficientScope || e.RequiredScope != connect.ScopeWebhooksManage {
			t.Errorf("%s without webhooks.manage: %v", name, err)
		}
	}
	if got := f.subscription("acme", sub.ID); got.URL != sub.URL {
		t.Errorf("the subscription changed: %+v", got)
	}
}

// TestIntegratorsFollowTheRulesOfAdd: a typed create is checked like Add
// (never with http on loopback), and rotation changes the signing secret.
func TestIntegratorsFollowTheRulesOfAdd(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	caller := connect.Caller{TenantID: "acme", ClientID: "erp", Scopes: []connect.Scope{connect.ScopeWebhooksManage}}
	_, err := f.subs.CreateWebhookSubscription(ctx, caller, connect.WebhookSubscriptionRequest{URL: "http://127.0.0.1:9/hook", Events: job}, connect.WriteOptions{})
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("http on loopback for an integrator: %v", err)
	}
	out, err := f.subs.CreateWebhookSubscription(ctx, caller, connect.WebhookSubscriptionRequest{URL: "https://hooks.example.com/a", Events: job}, connect.WriteOptions{})
	if err != nil || len(out.Subscription.Events) != 1 || out.Subscription.Events[0] != connect.EventImportJobCompleted {
		t.Fatalf("create: %+v %v", out, err)
	}
	rotated, err := f.subs.RotateWebhookSubscriptionSecret(ctx, caller, out.Subscription.ID, connect.WriteOptions{})
	if err != nil || rotated.Subscription.Secret == out.Subscription.Secret {
		t.Errorf("rotate: %+v %v", rotated, err)
	}
}
