package webhooks_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/errors"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
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

// TestTypedCreateJSONCannotHold: a URL that is not valid UTF-8 is a request
// error naming the field, with and without an Idempotency-Key, and nothing is
// subscribed.
func TestTypedCreateJSONCannotHold(t *testing.T) {
	for _, key := range []string{"", "key-1"} {
		t.Run(fmt.Sprintf("key %q", key), func(t *testing.T) {
			f := newFixture(t)
			caller := connect.Caller{TenantID: "acme", ClientID: "erp", Scopes: []connect.Scope{connect.ScopeWebhooksManage}}
			req := connect.WebhookSubscriptionRequest{URL: "https://hooks.example.com/caf\xe9", Events: job}
			_, err := f.subs.CreateWebhookSubscription(t.Context(), caller, req, connect.WriteOptions{IdempotencyKey: key})
			if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || connect.AsError(err).Message != "url must be valid UTF-8" {
				t.Fatalf("got %v, want InvalidRequest naming url", err)
			}
			list, err := f.subs.ListWebhookSubscriptions(t.Context(), caller)
			if err != nil || len(list.Subscriptions) != 0 {
				t.Errorf("subscriptions %+v, %v", list, err)
			}
		})
	}
}

// TestDeliveryCountersExistFromTheStart: before any delivery, every outcome
// of connect_webhook_deliveries_total is a series at zero, so rate() and
// alerts work from the first scrape.
func TestDeliveryCountersExistFromTheStart(t *testing.T) {
	f := newFixture(t)
	registry := prometheus.NewRegistry()
	f.start(func(c *webhooks.Config) { c.Registerer = registry })
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		if mf.GetName() != "connect_webhook_deliveries_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			got[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{"delivered": 0, "http_error": 0, "timeout": 0, "network_error": 0, "refused": 0}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("deliveries before the first: %v, want %v", got, want)
	}
}

// flakyDNS times out on its first lookup and then answers like testDNS.
type flakyDNS struct{ failed atomic.Bool }

func (d *flakyDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if d.failed.CompareAndSwap(false, true) {
		return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true}
	}
	return testDNS.LookupNetIP(ctx, network, host)
}

// TestFailingDNSIsNotTheRequestsAnswer: a DNS server that times out says
// nothing about the URL, so the create fails as a fault, not as a recorded
// 400: the retry with the same Idempotency-Key runs again and succeeds. A
// name that does not exist is the request's own answer and is 400.
func TestFailingDNSIsNotTheRequestsAnswer(t *testing.T) {
	f := newFixture(t)
	f.subs.URLs = webhooks.URLPolicy{Resolver: &flakyDNS{}}
	caller := connect.Caller{TenantID: "acme", ClientID: "erp", Scopes: []connect.Scope{connect.ScopeWebhooksManage}}
	body := []byte(`{"url":"https://hooks.example.com/a","events":["import_job.completed"]}`)
	key := connect.WriteOptions{IdempotencyKey: "k1"}
	if _, err := f.subs.CreateWebhookSubscriptionJSON(t.Context(), caller, body, key); connect.ErrorCodeOf(err) != connect.CodeInternalError {
		t.Fatalf("create while DNS times out: %v, want a fault (InternalError)", err)
	}
	out, err := f.subs.CreateWebhookSubscriptionJSON(t.Context(), caller, body, key)
	if err != nil || out.Replayed || out.Subscription.ID == 0 {
		t.Errorf("retry with the same key: %+v, %v; want a fresh create", out, err)
	}
	_, err = f.subs.CreateWebhookSubscriptionJSON(t.Context(), caller, []byte(`{"url":"https://nowhere.example.com/a","events":["import_job.completed"]}`), connect.WriteOptions{})
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || !strings.Contains(err.Error(), "cannot be resolved") {
		t.Errorf("a name that does not exist: %v, want InvalidRequest", err)
	}
}
