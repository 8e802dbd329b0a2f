package webhooks_test

import (
	"github.com/prometheus/client_golang/prometheus"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/store/storetest"
)

// TestTwoDispatchersDeliverOnceInOrder: two dispatchers on one store, as two
// replicas run them, deliver every event once, in order, never two at a time
// to one subscription.
func TestTwoDispatchersDeliverOnceInOrder(t *testing.T) {
	f := newFixture(t)
	var inFlight, overlaps atomic.Int32
	rc := newReceiver(t, func(*http.Request, int) int {
		if inFlight.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(time.Millisecond) // widen the window an overlap would need
		inFlight.Add(-1)
		return http.StatusOK
	})
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	var want []string
	for range 10 {
		want = append(want, f.appendEvent("acme", t0).ID)
	}
	f.start()
	f.start()
	for range 10 {
		want = append(want, f.appendEvent("acme", t0).ID)
	}
	f.waitDelivered("acme", sub.ID, f.events("acme")[19].Seq)
	if got := rc.ids(); !slices.Equal(got, want) {
		t.Errorf("receiver got\n%v\nwant\n%v", got, want)
	}
	if overlaps.Load() != 0 {
		t.Errorf("%d deliveries overlapped another one of the same subscription", overlaps.Load())
	}
}

// TestLateOutcomeIsFencedOff: a dispatcher whose attempt outlives its lease
// (a stalled replica) finds another dispatcher took the subscription over and
// delivered the event; the stalled one's failure is not recorded, so
// attempts, backoff and failure state count only the new owner's outcome.
func TestLateOutcomeIsFencedOff(t *testing.T) {
	f := newFixture(t)
	hanging, unblock := make(chan struct{}), make(chan struct{})
	rc := newReceiver(t, func(_ *http.Request, n int) int {
		if n == 0 {
			close(hanging)
			<-unblock
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	event := f.appendEvent("acme", t0)
	clock := newClock(t0)
	withClock := func(c *webhooks.Config) { c.Now = clock.Now }
	stalledMetrics := prometheus.NewRegistry()
	stalled := f.start(withClock, func(c *webhooks.Config) { c.Registerer = stalledMetrics })
	storetest.Receive(t, hanging, "the stalled attempt")
	clock.Set(t0.Add(time.Hour)) // the stalled dispatcher's lease has expired
	f.start(withClock)
	f.waitDelivered("acme", sub.ID, event.Seq)
	close(unblock)
	// The stalled dispatcher counts its answer before it records it, and
	// records even while stopping, so after the count Stop waits for record.
	waitFor(t, "the stalled dispatcher's late answer", func() bool {
		return counterValue(t, stalledMetrics, "connect_webhook_deliveries_total", "http_error") == 1
	})
	stalled.Stop()
	got := f.subscription("acme", sub.ID)
	if got.Attempts != 0 || got.LastError != "" || got.NextAttemptAt != nil || got.FailingSince != nil || got.Cursor != event.Seq {
		t.Errorf("after a fenced-off failure: %+v; want the new owner's success only", got)
	}
	if n := len(rc.deliveries()); n != 2 {
		t.Errorf("%d attempts, want 2 (the stalled one and the new owner's)", n)
	}
}

// counterValue returns the value of the counter name's series with the label
// value, or 0.
func counterValue(t *testing.T, g prometheus.Gatherer, name, label string) float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			if mf.GetName() == name && len(m.GetLabel()) > 0 && m.GetLabel()[0].GetValue() == label {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
