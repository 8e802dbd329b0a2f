package webhooks_test

import (
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
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
	stalled := f.start(withClock)
	<-hanging
	clock.Set(t0.Add(time.Hour)) // the stalled dispatcher's lease has expired
	f.start(withClock)
	f.waitDelivered("acme", sub.ID, event.Seq)
	close(unblock)
	stalled.Stop() // returns once its late outcome went through record
	got := f.subscription("acme", sub.ID)
	if got.Attempts != 0 || got.LastError != "" || got.NextAttemptAt != nil || got.FailingSince != nil || got.Cursor != event.Seq {
		t.Errorf("after a fenced-off failure: %+v; want the new owner's success only", got)
	}
	if n := len(rc.deliveries()); n != 2 {
		t.Errorf("%d attempts, want 2 (the stalled one and the new owner's)", n)
	}
}
