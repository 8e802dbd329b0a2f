package webhooks_test

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
)

var integrator = connect.Caller{TenantID: "acme", ClientID: "erp", Scopes: []connect.Scope{connect.ScopeWebhooksManage, connect.ScopeEventsRead}}

// TestReceiverRecoversThroughReplay: a receiver accepts 5 events and loses
// them (its database was restored), then is down while 10 more come, until
// the service disables the subscription. It recovers by itself: a replay of
// everything since the first event, and enable. It then gets each of the 15
// events exactly once, in order, every one with a valid signature, and the
// attempts show what happened.
func TestReceiverRecoversThroughReplay(t *testing.T) {
	f := newFixture(t)
	var down atomic.Bool
	rc := newReceiver(t, func(*http.Request, int) int {
		if down.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	sub, secret := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	var all []string
	for range 5 {
		all = append(all, f.appendEvent("acme", t0).ID)
	}
	f.start(func(c *webhooks.Config) { c.DisableAfter = time.Nanosecond })
	f.waitDelivered("acme", sub.ID, f.events("acme")[4].Seq)
	down.Store(true)
	for range 10 {
		all = append(all, f.appendEvent("acme", t0).ID)
	}
	waitFor(t, "the subscription to be disabled after failures", func() bool { return !f.subscription("acme", sub.ID).Enabled })
	got, err := f.subs.GetWebhookSubscription(t.Context(), integrator, sub.ID)
	if err != nil || got.Status != connect.SubscriptionDisabledAfterFailures || got.LastError == nil || *got.LastError != "answered 503 Service Unavailable" ||
		got.LastDeliveredEventID == nil || *got.LastDeliveredEventID != all[4] || got.FailingSince == nil || got.NextAttemptAt != nil {
		t.Fatalf("health of the failing subscription: %+v, %v", got, err)
	}

	down.Store(false)
	seen := len(rc.deliveries())
	since := t0
	replayed, err := f.subs.ReplayWebhookSubscription(t.Context(), integrator, sub.ID, connect.ReplayRequest{Since: &since}, connect.WriteOptions{IdempotencyKey: "recover-1"})
	if err != nil || replayed.Subscription.PendingReplays != 1 {
		t.Fatalf("replay: %+v, %v", replayed, err)
	}
	if _, err := f.subs.EnableWebhookSubscription(t.Context(), integrator, sub.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "all 15 events after the recovery", func() bool { return len(rc.deliveries()) >= seen+15 })
	f.waitDelivered("acme", sub.ID, f.events("acme")[14].Seq)

	after := rc.deliveries()[seen:]
	var ids []string
	for _, d := range after {
		ids = append(ids, d.id())
		if err := verify(secret, d.header, d.body); err != nil {
			t.Errorf("delivery %s after the recovery: %v", d.id(), err)
		}
	}
	if !slices.Equal(ids, all) {
		t.Errorf("after the recovery the receiver got\n%v\nwant each event once, in order:\n%v", ids, all)
	}
	health, _ := f.subs.GetWebhookSubscription(t.Context(), integrator, sub.ID)
	if health.Status != connect.SubscriptionEnabled || health.PendingReplays != 0 || health.LastError != nil || *health.LastDeliveredEventID != all[14] {
		t.Errorf("health after the recovery: %+v", health)
	}
	page, err := f.subs.ListDeliveryAttempts(t.Context(), integrator, sub.ID, 0, 200)
	if err != nil {
		t.Fatal(err)
	}
	var triggers []string
	for _, a := range slices.Backward(page.Attempts) {
		triggers = append(triggers, a.Trigger+":"+a.Outcome)
	}
	wantStart := []string{"live:delivered", "live:delivered", "live:delivered", "live:delivered", "live:delivered", "live:http_error"}
	if len(triggers) < 6 || !slices.Equal(triggers[:6], wantStart) || !slices.Equal(triggers[len(triggers)-15:len(triggers)-10], slices.Repeat([]string{"replay:delivered"}, 5)) {
		t.Errorf("attempts, oldest first: %v", triggers)
	}
}

// TestFeedIsTheDeliveredBody: an event read from the feed, listed or alone,
// is byte for byte the body of its delivery.
func TestFeedIsTheDeliveredBody(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, nil)
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	e := f.appendEvent("acme", t0)
	f.start()
	f.waitDelivered("acme", sub.ID, e.Seq)
	feed := &webhooks.Events{Store: f.store}
	page, err := feed.ListEvents(t.Context(), integrator, connect.EventQuery{})
	if err != nil || len(page.Events) != 1 {
		t.Fatalf("ListEvents = %+v, %v", page, err)
	}
	one, err := feed.GetEvent(t.Context(), integrator, e.ID)
	delivered := string(rc.deliveries()[0].body)
	if err != nil || string(one) != delivered || string(page.Events[0]) != delivered {
		t.Errorf("delivered %s\nlisted    %s\nread      %s (%v)", delivered, page.Events[0], one, err)
	}
}

// TestResendAndTest: a resend delivers one event again before the live
// stream goes on; a test sends a ping through the delivery path and answers
// its attempt, delivered or not, without touching the subscription's state.
func TestResendAndTest(t *testing.T) {
	f := newFixture(t)
	var status atomic.Int32
	status.Store(http.StatusNoContent)
	rc := newReceiver(t, func(*http.Request, int) int { return int(status.Load()) })
	sub, secret := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	first, second := f.appendEvent("acme", t0), f.appendEvent("acme", t0)
	d := f.start()
	f.waitDelivered("acme", sub.ID, second.Seq)
	d.Stop()

	out, err := f.subs.ResendWebhookEvent(t.Context(), integrator, sub.ID, connect.ResendRequest{EventID: first.ID}, connect.WriteOptions{})
	if err != nil || out.Subscription.PendingReplays != 1 {
		t.Fatalf("resend: %+v, %v", out, err)
	}
	third := f.appendEvent("acme", t0)
	f.start()
	f.waitDelivered("acme", sub.ID, third.Seq)
	if got, want := rc.ids(), []string{first.ID, second.ID, first.ID, third.ID}; !slices.Equal(got, want) {
		t.Errorf("receiver got %v, want %v (the resend before the live stream goes on)", got, want)
	}

	status.Store(http.StatusTeapot)
	before := f.subscription("acme", sub.ID)
	tested, err := f.subs.TestWebhookSubscription(t.Context(), integrator, sub.ID, connect.WriteOptions{IdempotencyKey: "t1"})
	a := tested.Attempt
	if err != nil || a.EventType != connect.EventPing || a.Trigger != webhooks.TriggerTest || a.Outcome != "http_error" ||
		a.ResponseStatus == nil || *a.ResponseStatus != http.StatusTeapot || a.Error == nil || !strings.Contains(*a.Error, "418") {
		t.Fatalf("test: %+v, %v", tested, err)
	}
	ping := rc.deliveries()[len(rc.deliveries())-1]
	if ping.id() != a.EventID || ping.event.Type != connect.EventPing || verify(secret, ping.header, ping.body) != nil ||
		!strings.Contains(string(ping.body), `"data":{"subscriptionId":`) {
		t.Errorf("the ping as received: %s %s", ping.header, ping.body)
	}
	if after := f.subscription("acme", sub.ID); after.Attempts != before.Attempts || after.Cursor != before.Cursor || after.LastError != "" {
		t.Errorf("the test changed the subscription: %+v", after)
	}
	again, err := f.subs.TestWebhookSubscription(t.Context(), integrator, sub.ID, connect.WriteOptions{IdempotencyKey: "t1"})
	if err != nil || !again.Replayed || !reflect.DeepEqual(again.Attempt, a) {
		t.Errorf("the test again under its key: %+v, %v", again, err)
	}
}
