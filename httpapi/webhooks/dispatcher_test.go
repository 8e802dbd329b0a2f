package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
)

// TestEventsSurviveARestart: the dispatcher stops while a receiver holds the
// second of three events; after the store is closed and reopened, a new
// dispatcher delivers the second and third, and never the first again.
func TestEventsSurviveARestart(t *testing.T) {
	f := newFixture(t)
	hanging := make(chan struct{})
	rc := newReceiver(t, func(r *http.Request, n int) int {
		if n == 1 {
			close(hanging)
			<-r.Context().Done() // until the dispatcher gives up on the request
		}
		return http.StatusOK
	})
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	events := []store.Event{f.appendEvent("acme", t0), f.appendEvent("acme", t0), f.appendEvent("acme", t0)}
	d := f.start()
	<-hanging
	d.Stop()
	f.close()

	f.open()
	f.start()
	f.waitDelivered("acme", sub.ID, events[2].Seq)
	want := []string{events[0].ID, events[1].ID, events[1].ID, events[2].ID}
	if got := rc.ids(); !slices.Equal(got, want) {
		t.Errorf("receiver got %v, want %v", got, want)
	}
}

var errInjected = errors.New("injected failure")

// failingStore runs every write's function on the real store and then fails
// it, so the transaction rolls back after the import made all its writes.
type failingStore struct{ store.Store }

func (s failingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errInjected
	})
}

// TestEventsOfFailedTransactionsAreNeverSent: an import whose transaction
// fails after its writes, and a transaction that appends an event and fails,
// send nothing; the import after them is the first delivery.
func TestEventsOfFailedTransactionsAreNeverSent(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, nil)
	sub, _ := f.subscribe("acme", rc.URL, connect.EventKinds...)
	failing := importer.New(importer.Config{Store: failingStore{f.store}})
	if _, err := failing.ImportTarget(t.Context(), acme, connect.InboundTarget{ExternalID: "LOST", Title: "Lost"}, connect.WriteOptions{}); !errors.Is(err, errInjected) {
		t.Fatalf("import on a failing store: %v", err)
	}
	err := f.store.Update(t.Context(), func(tx store.Tx) error {
		if err := store.AppendEvent(tx, "acme", connect.EventImportJobCompleted, t0, map[string]string{"lost": "yes"}); err != nil {
			return err
		}
		return errInjected
	})
	if !errors.Is(err, errInjected) {
		t.Fatalf("failing Update: %v", err)
	}
	imports := importer.New(importer.Config{Store: f.store})
	out, err := imports.ImportTarget(t.Context(), acme, connect.InboundTarget{ExternalID: "KEPT", Title: "Kept"}, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.start()
	events := f.events("acme")
	if len(events) != 1 {
		t.Fatalf("%d events in the outbox, want only the committed import's", len(events))
	}
	f.waitDelivered("acme", sub.ID, events[0].Seq)
	got := rc.deliveries()
	var summary connect.ImportJobSummary
	if len(got) != 1 || json.Unmarshal(got[0].event.Data, &summary) != nil || summary.ID != out.Result.ImportJobID {
		t.Errorf("receiver got %d deliveries, first about job %d; want one about job %d", len(got), summary.ID, out.Result.ImportJobID)
	}
}

// TestTenantsNeverSeeEachOthersEvents: each tenant's subscription gets its
// own tenant's events (an import, an appointment request) and no other.
func TestTenantsNeverSeeEachOthersEvents(t *testing.T) {
	f := newFixture(t)
	acmeRc, globexRc := newReceiver(t, nil), newReceiver(t, nil)
	acmeSub, _ := f.subscribe("acme", acmeRc.URL, connect.EventKinds...)
	globexSub, _ := f.subscribe("globex", globexRc.URL, connect.EventKinds...)
	imports := importer.New(importer.Config{Store: f.store})
	if _, err := imports.ImportTarget(t.Context(), acme, connect.InboundTarget{ExternalID: "A", Title: "A"}, connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	globex := connect.Caller{TenantID: "globex", ClientID: "crm", Scopes: connect.AllScopes}
	lat, lon := 52.5, 13.4
	_, err := appointments.New(appointments.Config{Store: f.store}).SubmitAppointmentRequest(t.Context(), globex, connect.NewAppointmentRequest{
		ExternalReference: "SR-1", ServiceType: connect.ServiceTypeRepair, Location: &connect.InboundTargetLocation{Latitude: &lat, Longitude: &lon},
	}, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.start()
	for _, tc := range []struct {
		tenant string
		sub    int64
		rc     *receiver
		want   []connect.EventKind
	}{
		{"acme", acmeSub.ID, acmeRc, []connect.EventKind{connect.EventImportJobCompleted}},
		{"globex", globexSub.ID, globexRc, []connect.EventKind{connect.EventAppointmentRequestCreated, connect.EventAppointmentStatusChanged}},
	} {
		events := f.events(tc.tenant)
		f.waitDelivered(tc.tenant, tc.sub, events[len(events)-1].Seq)
		var ids, kinds, wantIDs []string
		for _, d := range tc.rc.deliveries() {
			ids, kinds = append(ids, d.id()), append(kinds, string(d.event.Type))
		}
		for _, e := range events {
			wantIDs = append(wantIDs, e.ID)
		}
		if !slices.Equal(ids, wantIDs) || fmt.Sprint(kinds) != fmt.Sprint(tc.want) {
			t.Errorf("%s's receiver got %v %v, want its own events %v %v", tc.tenant, ids, kinds, wantIDs, tc.want)
		}
	}
}

// TestDisabledAfterFailingForDisableAfter follows the retry schedule on a
// fake clock: with RetryMin 1h, RetryMax 8h and no jitter, attempts come at
// 0, 1, 3, 7, 15, 23 and 31 hours; the last is past DisableAfter (24h) since
// the first failure, so it disables the subscription. Its event is kept
// through pruning, and enabling it delivers the event at once.
func TestDisabledAfterFailingForDisableAfter(t *testing.T) {
	f := newFixture(t)
	var healthy atomic.Bool
	rc := newReceiver(t, func(*http.Request, int) int {
		if healthy.Load() {
			return http.StatusOK
		}
		return http.StatusInternalServerError
	})
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	event := f.appendEvent("acme", t0)
	clock := newClock(t0)
	f.start(func(c *webhooks.Config) {
		c.Now, c.RetryMin, c.RetryMax, c.Retention = clock.Now, time.Hour, 8*time.Hour, 48*time.Hour
	})
	var hours []float64
	for n := 1; ; n++ {
		waitFor(t, "the next failed attempt to be recorded", func() bool { return f.subscription("acme", sub.ID).Attempts == n })
		hours = append(hours, clock.Now().Sub(t0).Hours())
		s := f.subscription("acme", sub.ID)
		if !s.Enabled {
			if s.DisabledAt == nil || !s.DisabledAt.Equal(clock.Now()) || s.LastError != "answered 500 Internal Server Error" || !s.FailingSince.Equal(t0) {
				t.Errorf("disabled state: %+v", s)
			}
			break
		}
		if n > 10 {
			t.Fatalf("still enabled after %d attempts: %+v", n, s)
		}
		clock.Set(*s.NextAttemptAt)
	}
	if want := []float64{0, 1, 3, 7, 15, 23, 31}; !slices.Equal(hours, want) {
		t.Errorf("attempts at hours %v, want %v", hours, want)
	}

	// Disabled, the event waits for the subscription within the retention.
	if got := f.events("acme"); len(got) != 1 || got[0].ID != event.ID {
		t.Fatalf("the disabled subscription's event is gone: the outbox holds %v", got)
	}

	healthy.Store(true)
	if _, err := f.subs.Enable(t.Context(), "acme", sub.ID); err != nil {
		t.Fatal(err)
	}
	f.waitDelivered("acme", sub.ID, event.Seq)
	if s := f.subscription("acme", sub.ID); !s.Enabled || s.DisabledAt != nil || s.Attempts != 0 || len(rc.deliveries()) != 8 {
		t.Errorf("after enabling: %+v, %d deliveries", s, len(rc.deliveries()))
	}
	clock.Set(clock.Now().Add(49 * time.Hour))
	waitFor(t, "pruning the delivered event", func() bool { return len(f.events("acme")) == 0 })
}

// TestPruneDeliveredEvents: an event is kept for Retention, then pruned,
// and the retained events gauge follows.
func TestPruneDeliveredEvents(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, nil)
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	clock := newClock(t0)
	event := f.appendEvent("acme", t0)
	registry := prometheus.NewPedanticRegistry()
	f.start(func(c *webhooks.Config) {
		c.Now, c.Retention, c.PruneInterval, c.Registerer = clock.Now, time.Hour, time.Millisecond, registry
	})
	f.waitDelivered("acme", sub.ID, event.Seq)
	clock.Set(t0.Add(time.Hour - time.Millisecond))
	waitFor(t, "a pruning pass to count the event", func() bool { return gauge(t, registry, "connect_webhook_events_retained") == 1 })
	if got := f.events("acme"); len(got) != 1 {
		t.Error("the delivered event was pruned before its retention ended")
	}
	clock.Set(t0.Add(time.Hour + time.Millisecond))
	waitFor(t, "pruning the delivered event", func() bool { return len(f.events("acme")) == 0 })
	waitFor(t, "the gauge to follow", func() bool { return gauge(t, registry, "connect_webhook_events_retained") == 0 })
}

// gauge returns the value of a gauge without labels (-1 when absent).
func gauge(t *testing.T, g prometheus.Gatherer, name string) float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return -1
}

func TestStartAndStop(t *testing.T) {
	f := newFixture(t)
	d := f.start()
	if err := d.Start(t.Context()); err == nil {
		t.Error("a second Start succeeded")
	}
	d.Stop()
	d.Stop()
	if err := d.Start(t.Context()); err != nil {
		t.Errorf("Start after Stop: %v", err)
	}
	if _, err := webhooks.NewDispatcher(webhooks.Config{}); err == nil {
		t.Error("NewDispatcher without a store succeeded")
	}
}
