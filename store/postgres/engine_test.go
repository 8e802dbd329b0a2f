package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/postgres"
	"github.com/integration-connect/connect/store/postgres/pgtest"
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
