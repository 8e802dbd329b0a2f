package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// groupWriters is how many good writers queue behind the held write.
const groupWriters = 16

// groupPanic is the value the panicking writer panics with.
type groupPanic struct{ writer string }

// testGroupRollback queues writers behind a write that is still open: good
// ones, one that fails and one that panics, each after making
// writes. A store that groups them into one transaction must roll it back and
// run the others again without the bad one; a store that does not group them
// runs them one by one. Either way every good writer's effects are committed
// exactly once, the bad writers' not at all, and each caller gets its own
// outcome.
func testGroupRollback(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	release := holdWriter(t, s)
	var wg sync.WaitGroup
	ready := make(chan struct{}, groupWriters+2)
	errs := make([]error, groupWriters)
	for i := range groupWriters {
		wg.Go(func() {
			ready <- struct{}{}
			errs[i] = s.Update(ctx, func(tx store.Tx) error { return createMarked(tx, fmt.Sprintf("W%d", i)) })
		})
	}
	var failErr error
	wg.Go(func() {
		ready <- struct{}{}
		failErr = s.Update(ctx, func(tx store.Tx) error {
			return errors.CombineErrors(createMarked(tx, "FAIL"), errInjected)
		})
	})
	var recovered any
	wg.Go(func() {
		defer func() { recovered = recover() }()
		ready <- struct{}{}
		_ = s.Update(ctx, func(tx store.Tx) error {
			if err := createMarked(tx, "PANIC"); err != nil {
				return err
			}
			panic(groupPanic{"PANIC"})
		})
	})
	for range groupWriters + 2 {
		Receive(t, ready, "a writer to start")
	}
	release()
	wg.Wait()
	if !errors.Is(failErr, errInjected) {
		t.Errorf("the failing writer got %v, want its own error", failErr)
	}
	if recovered != (groupPanic{"PANIC"}) {
		t.Errorf("the panicking writer's caller recovered %v, want its own panic", recovered)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer W%d: %v", i, err)
		}
	}
	assertMarked(t, s, groupWriters)
}

// holdWriter starts a write whose function blocks, so writes started after
// holdWriter returns queue behind it; release lets it commit and waits for it.
func holdWriter(t *testing.T, s store.Store) (release func()) {
	t.Helper()
	started, unblock, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var once sync.Once
	go func() {
		done <- s.Update(ctx, func(tx store.Tx) error {
			once.Do(func() { close(started) })
			<-unblock
			return createMarked(tx, "FIRST")
		})
	}()
	Receive(t, started, "the held write to start")
	return func() {
		close(unblock)
		if err := Receive(t, done, "the held write"); err != nil {
			t.Errorf("the held write: %v", err)
		}
	}
}

// createMarked creates a target and a job, both named after writer.
func createMarked(tx store.Tx, writer string) error {
	if err := tx.CreateTarget(newTarget("t1", "erp", writer)); err != nil {
		return err
	}
	return tx.CreateJob(newJob("t1", writer, connect.JobAccepted, 1))
}

// assertMarked checks that the held write and writers W0 to W(n-1) each left
// one target and one job, with ids of their own, and nobody else left any.
func assertMarked(t *testing.T, s store.Store, n int) {
	t.Helper()
	view(t, s, func(tx store.Tx) error {
		want := map[string]bool{"FIRST": true}
		for i := range n {
			want[fmt.Sprintf("W%d", i)] = true
		}
		targetIDs := map[int64]bool{}
		for writer := range want {
			got, err := tx.TargetByExternalID("t1", "erp", writer)
			if err != nil || targetIDs[got.ID] {
				t.Errorf("target of %s: %+v, %v; want one with an id of its own", writer, got, err)
				continue
			}
			targetIDs[got.ID] = true
		}
		for _, writer := range []string{"FAIL", "PANIC"} {
			_, err := tx.TargetByExternalID("t1", "erp", writer)
			wantNotFound(t, "target of "+writer, err)
		}
		jobs, total, err := tx.Jobs("t1", store.JobFilter{}, 0, 2*n+10)
		seen := map[string]bool{}
		for _, j := range jobs {
			if !want[j.SourceSystem] || seen[j.SourceSystem] {
				t.Errorf("unexpected job of %s (committed twice, or by a bad writer)", j.SourceSystem)
			}
			seen[j.SourceSystem] = true
		}
		if err != nil || total != n+1 || len(jobs) != n+1 {
			t.Errorf("jobs: %d listed, total %d, %v; want %d", len(jobs), total, err, n+1)
		}
		return nil
	})
}
