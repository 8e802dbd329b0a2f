package webhooks_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/teststore"
)

// BenchmarkEventsFeed reads pages of 50 of one tenant's feed from a store
// retaining 1,000 or 1,000,000 events (of 4 tenants and 4 kinds), on both
// engines: the first page, a page after an event half-way, and a page since a
// time half-way, in turn. The page must cost about the same however many
// events are kept (issue 21: at most 2× at 1M what it costs at 1k).
//
//	go test -run XXX -bench EventsFeed -benchtime 2000x ./httpapi/webhooks/
//
// Filling 1M events takes about a minute per engine; PostgreSQL runs when
// pgtest finds one (CONNECT_TEST_DATABASE_URL or a local installation).
func BenchmarkEventsFeed(b *testing.B) {
	engines := []struct {
		name string
		open func(testing.TB) store.Store
	}{
		{"bolt", func(tb testing.TB) store.Store { return bolttest.OpenWith(tb, &bolt.Options{NoSync: true}) }},
		{"postgres", func(tb testing.TB) store.Store { return teststore.OpenPostgres(tb, pgtest.URL(tb)) }},
	}
	for _, engine := range engines {
		for _, n := range []int{1_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/events=%d", engine.name, n), func(b *testing.B) {
				s := engine.open(b)
				middle := fillEvents(b, s, n)
				feed := &webhooks.Events{Store: s}
				queries := []connect.EventQuery{{}, {After: middle.ID}, {Since: middle.CreatedAt}}
				b.ResetTimer()
				for i := range b.N {
					page, err := feed.ListEvents(b.Context(), integrator, queries[i%len(queries)])
					if err != nil || len(page.Events) != connect.DefaultTake {
						b.Fatalf("page of %d events: %v", len(page.Events), err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/page")
			})
		}
	}
}

// fillEvents appends n events, a millisecond apart, of 4 tenants (acme
// among them) and 4 kinds, in transactions of 10,000, and returns acme's
// event half-way.
func fillEvents(b *testing.B, s store.Store, n int) store.Event {
	b.Helper()
	start := t0.Add(-time.Duration(n) * time.Millisecond)
	var middle store.Event
	const perTx = 10_000
	for done := 0; done < n; done += perTx {
		err := s.Update(b.Context(), func(tx store.Tx) error {
			for i := done; i < min(done+perTx, n); i++ {
				e := &store.Event{
					ID: fmt.Sprintf("evt_bench_%09d", i), TenantID: []string{"acme", "globex", "initech", "umbrella"}[i%4],
					Kind: connect.EventKinds[(i/4)%4], CreatedAt: start.Add(time.Duration(i) * time.Millisecond), Data: []byte(`{"id":1,"status":"Accepted"}`),
				}
				if err := tx.AppendEvent(e); err != nil {
					return err
				}
				if i == n/2 {
					middle = *e
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return middle
}
