package importer_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt/bolttest"
	"github.com/integration-connect/connect/store/storetest"
)

// gatedStore is a real store whose writes wait at a gate the test opens, and
// which remembers how many writes were in flight at most.
type gatedStore struct {
	store.Store
	entered chan struct{}
	open    chan struct{}

	mu             sync.Mutex
	inFlight, most int
}

func (g *gatedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	g.mu.Unlock()
	defer func() { g.mu.Lock(); g.inFlight--; g.mu.Unlock() }()
	g.entered <- struct{}{}
	<-g.open
	return g.Store.Update(ctx, fn)
}

// TestBatchesTakeTurns: with MaxConcurrentBatches 1, a second batch waits
// until the first is imported instead of being decoded beside it (a batch
// holds several times its body in memory), and a batch whose caller leaves
// while it waits gives up its turn without touching the store.
func TestBatchesTakeTurns(t *testing.T) {
	gate := &gatedStore{Store: bolttest.Open(t), entered: make(chan struct{}), open: make(chan struct{})}
	svc := importer.New(importer.Config{Store: gate, MaxConcurrentBatches: 1, Now: func() time.Time { return clock }})
	batch := func(id string) []byte { return []byte(`{"targets":[{"externalId":"` + id + `","title":"t"}]}`) }

	first := make(chan error, 1)
	go func() {
		_, err := svc.ImportBatchJSON(bg, caller, batch("A"), connect.WriteOptions{})
		first <- err
	}()
	storetest.Receive(t, gate.entered, "the first batch's transaction") // it holds its turn

	leaving, leave := context.WithCancel(bg)
	left := make(chan error, 1)
	go func() {
		_, err := svc.ImportBatchJSON(leaving, caller, batch("GONE"), connect.WriteOptions{})
		left <- err
	}()
	second := make(chan error, 1)
	go func() {
		_, err := svc.ImportBatchJSON(bg, caller, batch("B"), connect.WriteOptions{})
		second <- err
	}()
	waitForLoad(t, svc, 1, 2)
	leave()
	if err := storetest.Receive(t, left, "the batch whose caller left"); !errors.Is(err, context.Canceled) {
		t.Errorf("a batch whose caller left while waiting: %v, want context.Canceled", err)
	}
	waitForLoad(t, svc, 1, 1)

	close(gate.open)
	storetest.Receive(t, gate.entered, "the second batch's transaction") // after the first's
	if err := storetest.Receive(t, first, "the first batch"); err != nil {
		t.Fatal(err)
	}
	if err := storetest.Receive(t, second, "the second batch"); err != nil {
		t.Fatal(err)
	}
	if gate.most != 1 {
		t.Errorf("%d batch transactions at once, want 1", gate.most)
	}
	if running, waiting := svc.BatchLoad(); running != 0 || waiting != 0 {
		t.Errorf("after both: %d running, %d waiting", running, waiting)
	}
}

// waitForLoad waits until svc reports running and waiting batches: the
// goroutines get there by themselves, so this only waits, it never decides.
func waitForLoad(t *testing.T, svc *importer.Service, running, waiting int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, w := svc.BatchLoad()
		if r == running && w == waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch load %d running, %d waiting; want %d and %d", r, w, running, waiting)
		}
		time.Sleep(time.Millisecond)
	}
}
