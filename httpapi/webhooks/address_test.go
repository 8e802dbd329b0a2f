package webhooks_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
)

// TestURLRule: a subscription URL whose host is, or resolves to, a
// non-public address is refused, unless the service allows private networks;
// a subscription with allowInsecureLoopback may still use loopback
// (DECISIONS.md "Bounded cost of every request").
func TestURLRule(t *testing.T) {
	const private = "webhooks are not delivered into private networks"
	tests := []struct {
		url             string
		loopback        bool
		allowPrivate    bool
		wantErrContains string
	}{
		{"https://hooks.example.com/h", false, false, ""},
		{"https://93.184.215.14/h", false, false, ""},
		{"https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/h", false, false, ""},
		{"https://169.254.169.254/latest/meta-data", false, false, "169.254.169.254, a link-local address; " + private},
		{"https://metadata.example.com/", false, false, "resolves to 169.254.169.254, a link-local address"},
		{"https://10.0.0.1/h", false, false, "10.0.0.1, a private address"},
		{"https://172.16.5.4/h", false, false, "a private address"},
		{"https://192.168.1.1/h", false, false, "a private address"},
		{"https://[fd00::1]/h", false, false, "a private address"},
		{"https://100.64.0.1/h", false, false, "a carrier-grade NAT address"},
		{"https://[fe80::1]/h", false, false, "a link-local address"},
		{"https://0.0.0.0/h", false, false, "an unspecified address"},
		{"https://[::]/h", false, false, "an unspecified address"},
		{"https://224.0.0.1/h", false, false, "a multicast address"},
		{"https://[ff02::1]/h", false, false, "a multicast address"},
		{"https://[::1]/h", false, false, "::1, a loopback address"},
		{"https://[::ffff:127.0.0.1]/h", false, false, "127.0.0.1, a loopback address"},
		{"https://localhost/h", false, false, "a loopback address"},
		{"https://internal.example.com/h", false, false, "10.1.2.3, a private address"},
		{"https://mixed.example.com/h", false, false, "192.168.1.20, a private address"},
		{"https://0x7f.1/h", false, false, `url host "0x7f.1" is neither a DNS name nor an IP address written the standard way`},
		{"https://2130706433/h", false, false, "neither a DNS name nor an IP address"},
		{"https://127.1/h", false, false, "neither a DNS name nor an IP address"},
		{"https://unknown.example.com/h", false, false, `url host "unknown.example.com" cannot be resolved`},
		// --allow-insecure-loopback: loopback, by http or https; nothing else private.
		{"http://localhost:8080/h", true, false, ""},
		{"https://localhost:8080/h", true, false, ""},
		{"http://[::1]:8080/h", true, false, ""},
		{"https://10.0.0.1/h", true, false, "a private address"},
		// --webhook-allow-private-networks.
		{"https://10.0.0.1/h", false, true, ""},
		{"https://internal.example.com/h", false, true, ""},
		{"https://169.254.169.254/h", false, true, ""},
		{"https://localhost/h", false, true, ""},
		{"http://10.0.0.1/h", false, true, "url must use https"},
	}
	for _, tc := range tests {
		policy := webhooks.URLPolicy{Resolver: testDNS, AllowPrivateNetworks: tc.allowPrivate}
		err := policy.CheckURL(t.Context(), tc.url, tc.loopback)
		switch {
		case tc.wantErrContains == "" && err != nil:
			t.Errorf("CheckURL(%s, loopback %v, private %v) = %v, want nil", tc.url, tc.loopback, tc.allowPrivate, err)
		case tc.wantErrContains != "" && (connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || !strings.Contains(err.Error(), tc.wantErrContains)):
			t.Errorf("CheckURL(%s, loopback %v, private %v) = %v, want InvalidRequest containing %q", tc.url, tc.loopback, tc.allowPrivate, err, tc.wantErrContains)
		}
		// Add applies the same rule: the one check every way of adding uses.
		f := &webhooks.Subscriptions{Store: newFixture(t).store, URLs: policy}
		_, _, addErr := f.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "acme", URL: tc.url, Kinds: job, AllowInsecureLoopback: tc.loopback})
		if (addErr == nil) != (err == nil) {
			t.Errorf("Add(%s) = %v, but CheckURL = %v", tc.url, addErr, err)
		}
	}
}

// TestDeliveryRechecksTheAddress: a name that resolved to a public address
// when the subscription was added but resolves to a private one later (DNS
// rebinding) gets no delivery; the attempt fails as refused and is retried.
func TestDeliveryRechecksTheAddress(t *testing.T) {
	f := newFixture(t)
	testDNS.rebind("rebind.example.com", []string{"93.184.215.14"}, []string{"127.0.0.1"})
	t.Cleanup(func() { testDNS.rebind("rebind.example.com") })
	sub, _, err := f.subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "acme", URL: "https://rebind.example.com/h", Kinds: job})
	if err != nil {
		t.Fatal(err)
	}
	f.appendEvent("acme", t0)
	registry := prometheus.NewRegistry()
	f.start(func(c *webhooks.Config) { c.RetryMin, c.Registerer = time.Hour, registry })
	waitFor(t, "a refused attempt", func() bool { return f.subscription("acme", sub.ID).Attempts == 1 })
	if s := f.subscription("acme", sub.ID); !strings.Contains(s.LastError, "127.0.0.1, a loopback address") || s.Cursor != 0 {
		t.Errorf("after the refused attempt: %+v", s)
	}
	wantMetrics(t, registry, map[string]float64{`connect_webhook_deliveries_total{outcome="refused"}`: 1})
}

// TestDialChecksTheAddressItConnectsTo: when the name passes the check before
// the delivery but resolves elsewhere when the connection is made, the
// connection is refused: the address connected to is the address checked.
func TestDialChecksTheAddressItConnectsTo(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, nil)
	port := rc.URL[strings.LastIndex(rc.URL, ":"):]
	// Added as a public name; the pre-delivery check sees it public too; the
	// connection's own lookup gets the (private) receiver's address.
	testDNS.rebind("late.example.com", []string{"93.184.215.14"}, []string{"93.184.215.14"}, []string{"10.9.9.9"})
	t.Cleanup(func() { testDNS.rebind("late.example.com") })
	sub, _, err := f.subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "acme", URL: "https://late.example.com" + port + "/h", Kinds: job})
	if err != nil {
		t.Fatal(err)
	}
	f.appendEvent("acme", t0)
	f.start(func(c *webhooks.Config) { c.RetryMin = time.Hour })
	waitFor(t, "a failed attempt", func() bool { return f.subscription("acme", sub.ID).Attempts == 1 })
	if s := f.subscription("acme", sub.ID); !strings.Contains(s.LastError, "refusing to connect to late.example.com") {
		t.Errorf("after the attempt: %+v", s)
	}
	if n := len(rc.deliveries()); n != 0 {
		t.Errorf("the receiver got %d deliveries", n)
	}
}
