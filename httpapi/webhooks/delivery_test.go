package webhooks_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
)

var acme = connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "erp", Scopes: connect.AllScopes}

// TestDeliveryIsSignedWithTheSecret: a real import's event reaches an
// httptest receiver with the Standard Webhooks headers, the envelope, and a
// signature that verifies with the subscription's secret.
func TestDeliveryIsSignedWithTheSecret(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, nil)
	sub, secret := f.subscribe("acme", rc.URL+"/hooks", connect.EventImportJobCompleted)
	clock := newClock(t0)
	imports := importer.New(importer.Config{Store: f.store, Now: clock.Now})
	out, err := imports.ImportTarget(t.Context(), acme, connect.InboundTarget{ExternalID: "WO-1", Title: "Boiler"}, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(t0.Add(90 * time.Second))
	f.start(func(c *webhooks.Config) { c.Now = clock.Now })
	event := f.events("acme")[0]
	f.waitDelivered("acme", sub.ID, event.Seq)

	d := rc.deliveries()[0]
	if err := verify(secret, d.header, d.body); err != nil {
		t.Errorf("signature: %v (header %q)", err, d.header.Get("webhook-signature"))
	}
	if err := verify(webhooks.SecretPrefix+"c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==", d.header, d.body); err == nil {
		t.Error("the signature verifies with another secret")
	}
	job, err := imports.GetJob(t.Context(), acme, out.Result.ImportJobID)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(job.ImportJobSummary)
	want := `{"id":"` + event.ID + `","type":"import_job.completed","timestamp":"2026-11-21T08:00:00Z","schemaVersion":1,"data":` + string(data) + `}`
	checks := []struct{ what, got, want string }{
		{"webhook-id", d.id(), event.ID},
		{"webhook-timestamp", d.header.Get("webhook-timestamp"), strconv.FormatInt(t0.Add(90*time.Second).Unix(), 10)},
		{"Content-Type", d.header.Get("Content-Type"), "application/json"},
		{"body", string(d.body), want},
		{"deliveries", fmt.Sprint(len(rc.deliveries())), "1"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if d.id()[:4] != store.EventIDPrefix {
		t.Errorf("event id %q does not start with %s", d.id(), store.EventIDPrefix)
	}
}

// TestFailsTwiceThenSucceeds: a receiver that fails twice gets the event
// three times, the same each time, and then no more; the metrics count it.
func TestFailsTwiceThenSucceeds(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, func(_ *http.Request, n int) int {
		switch n {
		case 0:
			return http.StatusServiceUnavailable
		case 1:
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	first := f.appendEvent("acme", t0)
	registry := prometheus.NewRegistry()
	logs := &lockedBuffer{}
	d := f.start(func(c *webhooks.Config) { c.Registerer, c.Logger = registry, slog.New(slog.NewTextHandler(logs, nil)) })
	f.waitDelivered("acme", sub.ID, first.Seq)
	second := f.appendEvent("acme", t0)
	f.waitDelivered("acme", sub.ID, second.Seq)
	d.Stop()

	got := rc.deliveries()
	if ids := rc.ids(); !slices.Equal(ids, []string{first.ID, first.ID, first.ID, second.ID}) {
		t.Fatalf("receiver got %v, want the first event three times, then the second", ids)
	}
	if string(got[0].body) != string(got[2].body) {
		t.Errorf("the retry's body differs:\n%s\n%s", got[0].body, got[2].body)
	}
	// Each warning names the subscription, event, attempt, cause and next attempt time.
	for _, want := range []string{
		fmt.Sprintf(`level=WARN msg="webhooks: delivery failed; will retry" subscription=%d tenantId=acme eventId=%s type=import_job.completed attempt=1 cause="answered 503 Service Unavailable" nextAttemptAt=`, sub.ID, first.ID),
		fmt.Sprintf(`eventId=%s type=import_job.completed attempt=2 cause="answered 500 Internal Server Error" nextAttemptAt=`, first.ID),
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no %q in the log:\n%s", want, logs)
		}
	}
	if s := f.subscription("acme", sub.ID); s.Cursor != second.Seq || s.Attempts != 0 || s.FailingSince != nil || s.LastError != "" || s.NextAttemptAt != nil || !s.Enabled {
		t.Errorf("state after success: %+v", s)
	}
	wantMetrics(t, registry, map[string]float64{
		`connect_webhook_deliveries_total{outcome="http_error"}`: 2,
		`connect_webhook_deliveries_total{outcome="delivered"}`:  2,
		`connect_webhook_delivery_attempts_count`:                2,
		`connect_webhook_delivery_attempts_sum`:                  4,
	})
}

// TestOrderPerSubscription: a receiver that refuses every event once gets
// each event twice in a row, in the order of the outbox: the next event
// waits until the previous one was accepted.
func TestOrderPerSubscription(t *testing.T) {
	f := newFixture(t)
	seen := map[string]bool{}
	rc := newReceiver(t, func(r *http.Request, _ int) int {
		id := r.Header.Get("webhook-id")
		if seen[id] { // the receiver's requests are serialised by the dispatcher
			return http.StatusOK
		}
		seen[id] = true
		return http.StatusBadGateway
	})
	f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	var want []string
	for range 5 {
		e := f.appendEvent("acme", t0)
		want = append(want, e.ID, e.ID)
	}
	f.start()
	waitFor(t, "every event twice", func() bool { return len(rc.deliveries()) >= len(want) })
	if got := rc.ids(); !slices.Equal(got, want) {
		t.Errorf("receiver got\n%v\nwant\n%v", got, want)
	}
}

// TestSecretRotation: after RotateSecret, deliveries carry signatures by the
// new secret and the old one until the overlap ends, then by the new one
// only.
func TestSecretRotation(t *testing.T) {
	f := newFixture(t)
	clock := newClock(t0)
	f.subs.Now, f.subs.SecretOverlap = clock.Now, time.Hour
	rc := newReceiver(t, nil)
	sub, old := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	first := f.appendEvent("acme", t0)
	d := f.start(func(c *webhooks.Config) { c.Now = clock.Now })
	f.waitDelivered("acme", sub.ID, first.Seq)
	d.Stop()
	rotated, err := f.subs.RotateSecret(t.Context(), "acme", sub.ID)
	if err != nil || rotated == old || len(rotated) != len(old) {
		t.Fatalf("RotateSecret = %q, %v (old %q)", rotated, err, old)
	}
	during := f.appendEvent("acme", t0)
	d = f.start(func(c *webhooks.Config) { c.Now = clock.Now })
	f.waitDelivered("acme", sub.ID, during.Seq)
	d.Stop()
	clock.Set(t0.Add(time.Hour)) // the overlap is over
	after := f.appendEvent("acme", t0)
	f.start(func(c *webhooks.Config) { c.Now = clock.Now })
	f.waitDelivered("acme", sub.ID, after.Seq)

	got := rc.deliveries()
	if ids := rc.ids(); !slices.Equal(ids, []string{first.ID, during.ID, after.ID}) {
		t.Fatalf("receiver got %v", ids)
	}
	checks := []struct {
		what      string
		delivery  int
		secret    string
		verifies  bool
		signature int // signatures in the header
	}{
		{"before the rotation, the old secret", 0, old, true, 1},
		{"during the overlap, the old secret", 1, old, true, 2},
		{"during the overlap, the new secret", 1, rotated, true, 2},
		{"after the overlap, the old secret", 2, old, false, 1},
		{"after the overlap, the new secret", 2, rotated, true, 1},
	}
	for _, c := range checks {
		d := got[c.delivery]
		if err := verify(c.secret, d.header, d.body); (err == nil) != c.verifies {
			t.Errorf("%s: verify = %v, want verifies %v", c.what, err, c.verifies)
		}
		if n := len(strings.Fields(d.header.Get(webhooks.HeaderSignature))); n != c.signature {
			t.Errorf("%s: %d signatures in %q, want %d", c.what, n, d.header.Get(webhooks.HeaderSignature), c.signature)
		}
	}
}

// wantMetrics compares gathered samples, named like Prometheus' text format
// without spaces, with want.
func wantMetrics(t *testing.T, g prometheus.Gatherer, want map[string]float64) {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			labels := ""
			for _, l := range m.GetLabel() {
				labels += fmt.Sprintf(`%s=%q`, l.GetName(), l.GetValue())
			}
			if labels != "" {
				labels = "{" + labels + "}"
			}
			sample(got, mf, m, labels)
		}
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s = %v, want %v", name, got[name], v)
		}
	}
}

func sample(got map[string]float64, mf *dto.MetricFamily, m *dto.Metric, labels string) {
	switch {
	case m.Counter != nil:
		got[mf.GetName()+labels] = m.Counter.GetValue()
	case m.Gauge != nil:
		got[mf.GetName()+labels] = m.Gauge.GetValue()
	case m.Histogram != nil:
		got[mf.GetName()+"_count"+labels] = float64(m.Histogram.GetSampleCount())
		got[mf.GetName()+"_sum"+labels] = m.Histogram.GetSampleSum()
	}
}

// TestFailedAttempts: a redirect, an error answer, a timeout and a refused
// connection each fail the attempt; the subscription keeps why, the metrics
// count the outcome, and the log has one line for it without a stack trace.
// Only the timeout case depends on the attempt timeout; the others get a
// generous one, so a busy machine cannot turn them into timeouts.
func TestFailedAttempts(t *testing.T) {
	refused := newReceiver(t, nil)
	refused.Close()
	const short, generous = 50 * time.Millisecond, time.Minute
	tests := []struct {
		name    string
		url     func(t *testing.T) string
		timeout time.Duration
		wantErr string
		outcome string
	}{
		{"redirect", func(t *testing.T) string {
			return newReceiver(t, func(*http.Request, int) int { return http.StatusFound }).URL
		}, generous, "answered 302 Found", "http_error"},
		{"not found", func(t *testing.T) string {
			return newReceiver(t, func(*http.Request, int) int { return http.StatusNotFound }).URL
		}, generous, "answered 404 Not Found", "http_error"},
		{"timeout", func(t *testing.T) string {
			return newReceiver(t, func(r *http.Request, _ int) int { <-r.Context().Done(); return http.StatusOK }).URL
		}, short, "no answer within 50ms", "timeout"},
		{"refused", func(*testing.T) string { return refused.URL }, generous, "connection refused", "network_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			sub, _ := f.subscribe("acme", tc.url(t), connect.EventImportJobCompleted)
			event := f.appendEvent("acme", t0)
			registry := prometheus.NewRegistry()
			logs := &lockedBuffer{}
			start := time.Now()
			f.start(func(c *webhooks.Config) {
				c.RetryMin, c.AttemptTimeout, c.Registerer = time.Hour, tc.timeout, registry
				c.Logger = slog.New(slog.NewTextHandler(logs, nil))
			})
			waitFor(t, "a failed attempt", func() bool { return f.subscription("acme", sub.ID).Attempts == 1 })
			s := f.subscription("acme", sub.ID)
			if !strings.Contains(s.LastError, tc.wantErr) || s.Cursor != 0 || s.FailingSince.Before(start) || s.NextAttemptAt.Sub(*s.FailingSince) < 59*time.Minute {
				t.Errorf("state after the failure: %+v", s)
			}
			wantMetrics(t, registry, map[string]float64{`connect_webhook_deliveries_total{outcome="` + tc.outcome + `"}`: 1})
			waitFor(t, "the failure's log line", func() bool { return strings.Contains(logs.String(), "delivery failed") })
			line := strings.TrimSuffix(logs.String(), "\n")
			for _, want := range []string{
				fmt.Sprintf("subscription=%d ", sub.ID), "eventId=" + event.ID + " ", "attempt=1 ", "cause=", tc.wantErr,
				"nextAttemptAt=" + s.NextAttemptAt.UTC().Format(time.RFC3339),
			} {
				if !strings.Contains(line, want) {
					t.Errorf("log line lacks %q: %s", want, line)
				}
			}
			if strings.Contains(line, "\n") || strings.Contains(line, ".go:") || len(line) > 600 {
				t.Errorf("log is not one short line without a stack trace (%d bytes): %s", len(line), line)
			}
		})
	}
}

// lockedBuffer is a log destination the dispatcher writes and a test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
