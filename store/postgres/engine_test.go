package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/postgres"
	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/storetest"
)

// openShared opens n stores on one new schema, as n replicas would, closed
// when the test ends.
func openShared(t *testing.T, n int) []*postgres.Store {
	t.Helper()
	url := pgtest.URL(t)
	stores := make([]*postgres.Store, n)
	for i := range stores {
		stores[i] = mustOpen(t, url)
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	return stores
}

// TestConcurrentCheckThenCreate races writers that each create a target
// unless it exists and update it otherwise, on two stores: the unique
// violations of the losers are retried, so every writer succeeds and the
// target exists once, with every writer's update.
func TestConcurrentCheckThenCreate(t *testing.T) {
	stores := openShared(t, 2)
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			errs[i] = stores[i%2].Update(t.Context(), func(tx store.Tx) error {
				existing, err := tx.TargetByExternalID("t1", "erp", "same")
				if errors.Is(err, connect.ErrNotFound) {
					target := &store.Target{TenantID: "t1", SourceSystem: "erp", ExternalID: "same", Status: store.TargetActive}
					target.Data.Title = fmt.Sprintf("w%d", i)
					return tx.CreateTarget(target)
				}
				if err != nil {
					return err
				}
				existing.Data.Title += fmt.Sprintf(",w%d", i)
				return tx.UpdateTarget(existing)
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	err := stores[0].View(t.Context(), func(tx store.Tx) error {
		got, err := tx.TargetByExternalID("t1", "erp", "same")
		if err != nil {
			return err
		}
		if n := len(splitTitles(got.Data.Title)); n != writers {
			t.Errorf("title %q records %d writers, want %d", got.Data.Title, n, writers)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func splitTitles(s string) map[string]bool {
	seen := map[string]bool{}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			seen[s[start:i]] = true
			start = i + 1
		}
	}
	return seen
}

// TestConcurrentCustomerCreate races mappings that look a customer number up
// and create the customer when there is none: the advisory lock of the
// lookup makes them take turns, so there is exactly one customer.
func TestConcurrentCustomerCreate(t *testing.T) {
	stores := openShared(t, 2)
	number := "K-1"
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			err := stores[i%2].Update(t.Context(), func(tx store.Tx) error {
				found, err := tx.CustomersByNumber("t1", number)
				if err != nil || len(found) > 0 {
					return err
				}
				return tx.CreateCustomer(&store.Customer{TenantID: "t1", SourceSystem: "erp", CustomerNumber: &number, State: store.CustomerActive})
			})
			if err != nil {
				t.Errorf("writer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	err := stores[0].View(t.Context(), func(tx store.Tx) error {
		list, total, err := tx.Customers("t1", 0, 10)
		if err != nil || len(list) != 1 || total != 1 {
			t.Errorf("customers = %d, total %d, %v; want exactly one", len(list), total, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestClaimAcrossStores: a claim taken through one store (one replica) is
// held for the other, and free for both once released.
func TestClaimAcrossStores(t *testing.T) {
	stores := openShared(t, 2)
	ctx := t.Context()
	release, ok, err := stores[0].Claim(ctx, "idempotency\x00t1\x00c1\x00key", time.Hour)
	if err != nil || !ok {
		t.Fatalf("first claim: %v, %v", ok, err)
	}
	if _, ok, err := stores[1].Claim(ctx, "idempotency\x00t1\x00c1\x00key", time.Hour); err != nil || ok {
		t.Errorf("claim on the other store while held: ok %v, %v; want refused", ok, err)
	}
	release()
	again, ok, err := stores[1].Claim(ctx, "idempotency\x00t1\x00c1\x00key", time.Hour)
	if err != nil || !ok {
		t.Errorf("claim on the other store after release: ok %v, %v", ok, err)
	}
	release() // the first holder's second release must not free the new claim
	if _, ok, _ := stores[0].Claim(ctx, "idempotency\x00t1\x00c1\x00key", time.Hour); ok {
		t.Error("an old release freed the other store's claim")
	}
	again()
}

// TestRateLimiter checks the shared GCRA bucket with a rate so low that no
// request earns a new token during the test: exactly burst requests pass,
// whichever store they go through, and the refused learn how long to wait.
func TestRateLimiter(t *testing.T) {
	stores := openShared(t, 2)
	const burst = 5
	perSecond := 0.001 // one request per 1000s
	limiters := []*postgres.RateLimiter{stores[0].RateLimiter(perSecond, burst), stores[1].RateLimiter(perSecond, burst)}
	allowed := 0
	for i := range 3 * burst {
		ok, retry, err := limiters[i%2].Allow(t.Context(), "t1\x00client-a")
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			allowed++
			continue
		}
		if retry <= 0 || retry > 1000*time.Second {
			t.Errorf("request %d refused with retry after %v, want within (0, 1000s]", i, retry)
		}
	}
	if allowed != burst {
		t.Errorf("%d requests allowed, want the burst of %d", allowed, burst)
	}
	if ok, _, err := limiters[0].Allow(t.Context(), "t1\x00client-b"); err != nil || !ok {
		t.Errorf("another client's first request: %v, %v; want allowed", ok, err)
	}
	unlimited := stores[0].RateLimiter(0, 1)
	for range 3 {
		if ok, _, err := unlimited.Allow(t.Context(), "t1\x00client-a"); err != nil || !ok {
			t.Fatalf("a limiter of rate 0 refused: %v, %v", ok, err)
		}
	}
}

// TestMigrationsRaceOnce opens several stores on one new schema at the same
// time, as replicas starting together do: all succeed and the schema is at
// the latest version.
func TestMigrationsRaceOnce(t *testing.T) {
	url := pgtest.URL(t)
	const replicas = 4
	stores := make([]*postgres.Store, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(context.Background(), url, nil) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	current, latest, err := stores[0].SchemaVersion(t.Context())
	if err != nil || current != latest || latest < 1 {
		t.Errorf("schema version %d of %d, %v", current, latest, err)
	}
	if err := postgres.Migrate(t.Context(), url); err != nil {
		t.Errorf("Migrate on a migrated schema: %v", err)
	}
	if err := stores[0].Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// TestUseAfterClose: a closed store refuses transactions with ErrClosed.
func TestUseAfterClose(t *testing.T) {
	s := mustOpen(t, pgtest.URL(t))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Update(t.Context(), func(store.Tx) error { return nil }); !errors.Is(err, postgres.ErrClosed) {
		t.Errorf("Update after Close: %v, want ErrClosed", err)
	}
}

// TestBufferedTargets writes enough targets in one transaction for them to
// go by COPY, updates some of them before and some after they were sent,
// and reads them back; it also checks that a target a lookup returned cannot
// be changed behind the transaction's back by changing the value.
func TestBufferedTargets(t *testing.T) {
	s := openShared(t, 1)[0]
	const n = 250
	keys := make([]store.TargetKey, n)
	err := s.Update(t.Context(), func(tx store.Tx) error {
		for i := range n {
			keys[i] = store.TargetKey{SourceSystem: "erp", ExternalID: fmt.Sprintf("T%03d", i)}
			target := &store.Target{TenantID: "t1", SourceSystem: "erp", ExternalID: keys[i].ExternalID, Status: store.TargetActive}
			target.Data.Title = "created"
			original := "original"
			target.Data.CustomFields = map[string]*string{"k": &original}
			if err := tx.CreateTarget(target); err != nil {
				return err
			}
			if i%10 == 0 { // changed while still buffered
				target.Data.Title = "changed before sending"
				if err := tx.UpdateTarget(target); err != nil {
					return err
				}
			}
		}
		found, err := tx.TargetsByExternalID("t1", keys) // served from the transaction's memory
		if err != nil || len(found) != n {
			return errors.Newf("TargetsByExternalID found %d of %d: %v", len(found), n, err)
		}
		changed := "changed in the caller's copy only"
		found[keys[1]].Data.CustomFields["k"] = &changed
		if _, _, err := tx.Jobs("t1", store.JobFilter{}, 0, 1); err != nil { // a read sends the buffer
			return err
		}
		again, err := tx.TargetByExternalID("t1", "erp", keys[1].ExternalID)
		if err != nil || *again.Data.CustomFields["k"] != "original" {
			return errors.Newf("lookup after the caller changed its copy: %+v, %v", again, err)
		}
		again.Data.Title = "changed after sending"
		return tx.UpdateTarget(again)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error {
		found, err := tx.TargetsByExternalID("t1", keys)
		if err != nil || len(found) != n {
			return errors.Newf("after commit found %d of %d: %v", len(found), n, err)
		}
		for i, k := range keys {
			want := "created"
			switch {
			case i == 1:
				want = "changed after sending"
			case i%10 == 0:
				want = "changed before sending"
			}
			if got := found[k].Data.Title; got != want {
				t.Errorf("%s: title %q, want %q", k.ExternalID, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUnnumberedEventsAreNumberedLater: an event whose writer died between
// its commit and its numbering pass is invisible to readers until the next
// pass, of another writer or of PruneEvents, numbers it.
func TestUnnumberedEventsAreNumberedLater(t *testing.T) {
	url := pgtest.URL(t)
	s := mustOpen(t, url)
	defer s.Close()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	orphan := func(id string) {
		t.Helper()
		_, err := conn.Exec(t.Context(), `INSERT INTO events (tenant_id, kind, created_ns, doc) VALUES ('t1', $1, 0, $2)`,
			string(connect.EventImportJobCompleted), fmt.Sprintf(`{"id":%q,"tenantId":"t1","kind":%q,"data":{}}`, id, connect.EventImportJobCompleted))
		if err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []string {
		var list []string
		for _, e := range storetest.Events(t, s, "t1") {
			list = append(list, fmt.Sprintf("%s@%d", e.ID, e.Seq))
		}
		return list
	}
	orphan("evt_orphan1")
	if got := ids(); len(got) != 0 {
		t.Fatalf("an unnumbered event is visible: %v", got)
	}
	err = s.Update(t.Context(), func(tx store.Tx) error {
		return tx.AppendEvent(&store.Event{ID: "evt_next", TenantID: "t1", Kind: connect.EventImportJobCompleted, CreatedAt: time.Unix(0, 0), Data: []byte(`{}`)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(ids()), "[evt_orphan1@1 evt_next@2]"; got != want {
		t.Errorf("after the next writer: %s, want %s", got, want)
	}
	orphan("evt_orphan2")
	err = s.Update(t.Context(), func(tx store.Tx) error { _, err := tx.PruneEvents(time.Unix(0, 0), 10); return err })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(ids()), "[evt_orphan1@1 evt_next@2 evt_orphan2@3]"; got != want {
		t.Errorf("after pruning: %s, want %s", got, want)
	}
}

// TestConcurrentSettingsChanges: readers of a tenant's mapping settings (every
// import with customer data) share its locks, while changes, read-modify-write
// on two replicas at once, each keep the other's field: no change is lost.
func TestConcurrentSettingsChanges(t *testing.T) {
	stores := openShared(t, 2)
	changes := []func(*store.MappingSettings){
		func(s *store.MappingSettings) { s.AutoCreateCustomers = false },
		func(s *store.MappingSettings) { s.AutoCreateLocations = false },
		func(s *store.MappingSettings) { s.AutoCreateContacts = false },
	}
	var wg sync.WaitGroup
	for i, change := range changes {
		wg.Go(func() {
			err := stores[i%2].Update(t.Context(), func(tx store.Tx) error {
				s, err := tx.MappingSettings("t1")
				if err != nil {
					return err
				}
				change(&s)
				return tx.PutMappingSettings("t1", s)
			})
			if err != nil {
				t.Errorf("change %d: %v", i, err)
			}
		})
		wg.Go(func() { // a reader, as an import is
			if err := stores[(i+1)%2].Update(t.Context(), func(tx store.Tx) error {
				_, err := tx.MappingSettings("t1")
				return err
			}); err != nil {
				t.Errorf("reader %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	err := stores[0].View(t.Context(), func(tx store.Tx) error {
		s, err := tx.MappingSettings("t1")
		if err != nil || s != (store.MappingSettings{}) {
			t.Errorf("settings after three concurrent changes: %+v, %v; want every field false", s, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEventNumbersAcrossReplicas: writers on two stores append events at
// once; whichever replica's numbering pass numbers an event, its writer
// learns its number before Update returns, and the numbers are distinct and
// found in that order.
func TestEventNumbersAcrossReplicas(t *testing.T) {
	stores := openShared(t, 2)
	const writers = 48
	given := make([]int64, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			e := &store.Event{ID: fmt.Sprintf("evt_r%d", i), TenantID: "t1", Kind: connect.EventImportJobCompleted, CreatedAt: time.Now(), Data: []byte(`{}`)}
			if err := stores[i%2].Update(t.Context(), func(tx store.Tx) error { return tx.AppendEvent(e) }); err != nil {
				t.Errorf("writer %d: %v", i, err)
			}
			given[i] = e.Seq
		})
	}
	wg.Wait()
	var found []int64
	err := stores[0].View(t.Context(), func(tx store.Tx) error {
		for after := int64(0); ; {
			e, err := store.NextEvent(tx, "t1", []connect.EventKind{connect.EventImportJobCompleted}, after)
			if errors.Is(err, connect.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			found, after = append(found, e.Seq), e.Seq
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(given)
	if !slices.Equal(found, given) || given[0] == 0 {
		t.Errorf("found %v; the writers were given %v", found, given)
	}
}
