package bolt_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

var errInjected = errors.New("injected failure")

// runs records the bbolt transactions each writer's function ran in.
type runs struct {
	mu  sync.Mutex
	txs map[string][]*bbolt.Tx
}

func (r *runs) add(writer string, tx store.Tx) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.txs[writer] = append(r.txs[writer], bolt.BboltTx(tx))
}

// TestGroupCommitRerunsInOneTransaction: writes queued behind a held write
// form one group. A failing and a panicking write each roll the group's
// transaction back, so it takes three bbolt transactions: the bad writes run
// once each, and every good write's last run is in the third, which commits.
func TestGroupCommitRerunsInOneTransaction(t *testing.T) {
	const good = 8
	s := bolttest.Open(t)
	r := &runs{txs: map[string][]*bbolt.Tx{}}
	started, unblock := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = s.Update(t.Context(), func(tx store.Tx) error { close(started); <-unblock; return nil })
	})
	<-started
	write := func(writer string, fail func() error) {
		wg.Go(func() {
			defer func() { _ = recover() }()
			_ = s.Update(t.Context(), func(tx store.Tx) error {
				r.add(writer, tx)
				err := tx.CreateTarget(&store.Target{TenantID: "t1", SourceSystem: "erp", ExternalID: writer})
				return errors.CombineErrors(err, fail())
			})
		})
	}
	for i := range good {
		write(fmt.Sprintf("W%d", i), func() error { return nil })
	}
	write("FAIL", func() error { return errInjected })
	write("PANIC", func() error { panic("boom") })
	waitQueued(t, s, good+2)
	close(unblock)
	wg.Wait()

	distinct := map[*bbolt.Tx]bool{}
	var committed *bbolt.Tx
	for writer, txs := range r.txs {
		for _, tx := range txs {
			distinct[tx] = true
		}
		last := txs[len(txs)-1]
		switch {
		case writer == "FAIL" || writer == "PANIC":
			if len(txs) != 1 {
				t.Errorf("%s ran %d times, want once", writer, len(txs))
			}
		case committed == nil:
			committed = last
		case last != committed:
			t.Errorf("%s's last run is not in the transaction of the other good writes", writer)
		}
	}
	if len(r.txs) != good+2 || len(distinct) != 3 {
		t.Errorf("%d writers ran in %d transactions, want %d in 3", len(r.txs), len(distinct), good+2)
	}
}

// waitQueued polls until n writes wait for the committer.
func waitQueued(t *testing.T, s *bolt.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s.Queued() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", s.Queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
