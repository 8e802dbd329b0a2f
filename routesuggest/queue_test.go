package routesuggest_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/storetest"
)

// gatedTravel is a travel model that holds every solve at its start until the
// test lets it go, and records the order in which solves started: it makes
// the queue's behaviour observable without timing anything.
type gatedTravel struct {
	started chan int      // the number of each solve that started
	proceed chan struct{} // one value lets one solve go on
}

type requestNumber struct{}

func (g gatedTravel) Matrix(ctx context.Context, points []routesuggest.Point, profile store.OptimizationProfile) (routesuggest.Travel, error) {
	g.started <- ctx.Value(requestNumber{}).(int)
	select {
	case <-g.proceed:
	case <-ctx.Done():
		return routesuggest.Travel{}, ctx.Err()
	}
	return routesuggest.GreatCircle{}.Matrix(ctx, points, profile)
}

// TestSolveQueue: two solves run at a time and three wait, first in first
// out; a sixth request is refused at once with RateLimited and a retry time;
// a waiting caller that leaves gives up its place, and a solving one its
// solve (DECISIONS.md "Bounded cost of every request").
func TestSolveQueue(t *testing.T) {
	e := mustOpen(t)
	g := gatedTravel{started: make(chan int, 10), proceed: make(chan struct{})}
	routes := routesuggest.New(routesuggest.Config{Store: e.store, Travel: g, Concurrency: 2, QueueLength: 3})
	jobID := e.importBatch(t, target("A", 52.52, 13.40, ""), target("B", 52.50, 13.35, ""))
	req := connect.CreateImportJobRouteSuggestionRequest{RouteDate: day}

	type result struct {
		n   int
		err error
	}
	results := make(chan result, 10)
	cancels := map[int]context.CancelFunc{}
	var wg sync.WaitGroup
	send := func(n int) {
		c, cancel := context.WithCancel(context.WithValue(t.Context(), requestNumber{}, n))
		cancels[n] = cancel
		wg.Go(func() {
			_, err := routes.CreateRouteSuggestion(c, caller, jobID, req, connect.WriteOptions{})
			results <- result{n, err}
		})
	}
	t.Cleanup(func() {
		for _, cancel := range cancels {
			cancel()
		}
		wg.Wait()
	})
	waitLoad := func(want routesuggest.Load) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); routes.Load() != want; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("load %+v, want %+v", routes.Load(), want)
			}
		}
	}

	send(1)
	send(2)
	started := []int{storetest.Receive(t, g.started, "a solve to start"), storetest.Receive(t, g.started, "a solve to start")}
	slices.Sort(started)
	if !slices.Equal(started, []int{1, 2}) {
		t.Fatalf("started %v, want 1 and 2", started)
	}
	for n := 3; n <= 5; n++ {
		send(n)
		waitLoad(routesuggest.Load{Running: 2, Waiting: n - 2})
	}

	// Full: the sixth is refused at once, and says when to retry.
	_, err := routes.CreateRouteSuggestion(t.Context(), caller, jobID, req, connect.WriteOptions{IdempotencyKey: "sixth"})
	if e := connect.AsError(err); e == nil || e.Code != connect.CodeRateLimited || e.RetryAfter < time.Second {
		t.Fatalf("sixth request: %v, want RateLimited with a retry time of at least 1s", err)
	}

	// Number 4 leaves while waiting: it gives up its place.
	cancels[4]()
	if r := storetest.Receive(t, results, "a result"); r.n != 4 || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("got %d: %v, want 4: context canceled", r.n, r.err)
	}
	waitLoad(routesuggest.Load{Running: 2, Waiting: 2})

	// Number 1 leaves while solving: its solve stops and its slot goes to 3.
	cancels[1]()
	if r := storetest.Receive(t, results, "a result"); r.n != 1 || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("got %d: %v, want 1: context canceled", r.n, r.err)
	}
	if n := storetest.Receive(t, g.started, "a solve to start"); n != 3 {
		t.Fatalf("solve %d started, want 3 (first in, first out)", n)
	}

	// The rest finish in order of arrival as slots free up.
	g.proceed <- struct{}{}
	if n := storetest.Receive(t, g.started, "a solve to start"); n != 5 {
		t.Fatalf("solve %d started, want 5", n)
	}
	g.proceed <- struct{}{}
	g.proceed <- struct{}{}
	for range 3 {
		if r := storetest.Receive(t, results, "a result"); r.err != nil {
			t.Errorf("request %d: %v", r.n, r.err)
		}
	}
	waitLoad(routesuggest.Load{})

	// The refusal was not recorded: the sixth's key runs now.
	go func() { g.proceed <- struct{}{} }()
	if _, err := routes.CreateRouteSuggestion(context.WithValue(t.Context(), requestNumber{}, 6), caller, jobID, req, connect.WriteOptions{IdempotencyKey: "sixth"}); err != nil {
		t.Fatalf("the sixth request retried: %v", err)
	}
	if n := storetest.Receive(t, g.started, "a solve to start"); n != 6 {
		t.Fatalf("solve %d started, want 6", n)
	}
}
