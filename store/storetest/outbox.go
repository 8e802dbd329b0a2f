package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// testOutbox checks the webhook outbox: events in one sequence, read per
// tenant and kind after a cursor, rolled back with their transaction, kept
// until no subscription waits for them; and the subscription records.
func testOutbox(t *testing.T, open Opener) {
	t.Run("AppendAndNext", func(t *testing.T) { testEventsAppendAndNext(t, open) })
	t.Run("FailedUpdateLeavesNoEvent", func(t *testing.T) { testEventRollback(t, open) })
	t.Run("ConcurrentAppends", func(t *testing.T) { testConcurrentAppends(t, open) })
	t.Run("CommitOrder", func(t *testing.T) { testEventCommitOrder(t, open) })
	t.Run("Subscriptions", func(t *testing.T) { testSubscriptionRecords(t, open) })
	t.Run("Prune", func(t *testing.T) { testPruneEvents(t, open) })
	t.Run("EventsFeed", func(t *testing.T) { testEventsFeed(t, open) })
	t.Run("Attempts", func(t *testing.T) { testAttempts(t, open) })
	t.Run("ReopenKeepsEvents", func(t *testing.T) { testOutboxReopen(t, open) })
}

const (
	kindJob     = connect.EventImportJobCompleted
	kindCreated = connect.EventAppointmentRequestCreated
)

var allKinds = connect.EventKinds

// appendEvents appends one event per kind for tenant at the time at, in one
// transaction, and returns them.
func appendEvents(t *testing.T, s store.Store, tenant string, at time.Time, kinds ...connect.EventKind) []*store.Event {
	t.Helper()
	var events []*store.Event
	update(t, s, func(tx store.Tx) error {
		events = events[:0]
		for i, kind := range kinds {
			e := &store.Event{ID: fmt.Sprintf("evt_%s_%d_%d", tenant, at.Unix(), i), TenantID: tenant, Kind: kind, CreatedAt: at, Data: []byte(`{"n":1}`)}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
			events = append(events, e)
		}
		return nil
	})
	return events
}

// nextSeqs follows NextEvent from after to the end and returns the sequence
// numbers it found.
func nextSeqs(t *testing.T, s store.Store, tenant string, kinds []connect.EventKind, after int64) []int64 {
	t.Helper()
	var seqs []int64
	view(t, s, func(tx store.Tx) error {
		for {
			e, err := store.NextEvent(tx, tenant, kinds, after)
			if errors.Is(err, connect.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if e.TenantID != tenant {
				t.Errorf("NextEvent(%s) returned an event of %s", tenant, e.TenantID)
			}
			seqs = append(seqs, e.Seq)
			after = e.Seq
		}
	})
	return seqs
}

func testEventsAppendAndNext(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	first := appendEvents(t, s, "t1", t0, kindJob, kindCreated, kindJob)
	other := appendEvents(t, s, "t2", t0, kindJob)
	last := appendEvents(t, s, "t1", t0.Add(time.Minute), kindCreated)
	all := append(append(first, other...), last...)
	for i, e := range all {
		if e.Seq <= 0 || i > 0 && e.Seq <= all[i-1].Seq {
			t.Fatalf("sequence numbers do not increase: event %d has %d", i, e.Seq)
		}
	}
	tests := []struct {
		tenant string
		kinds  []connect.EventKind
		after  int64
		want   []int64
	}{
		{"t1", allKinds, 0, []int64{first[0].Seq, first[1].Seq, first[2].Seq, last[0].Seq}},
		{"t1", []connect.EventKind{kindJob}, 0, []int64{first[0].Seq, first[2].Seq}},
		{"t1", []connect.EventKind{kindCreated}, first[1].Seq, []int64{last[0].Seq}},
		{"t1", allKinds, first[2].Seq, []int64{last[0].Seq}},
		{"t1", []connect.EventKind{connect.EventRouteSuggestionCreated}, 0, nil},
		{"t1", nil, 0, nil},
		{"t2", allKinds, 0, []int64{other[0].Seq}},
		{"t3", allKinds, 0, nil},
	}
	for _, tc := range tests {
		if got := nextSeqs(t, s, tc.tenant, tc.kinds, tc.after); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("events of %s, kinds %v, after %d: %v, want %v", tc.tenant, tc.kinds, tc.after, got, tc.want)
		}
	}
	view(t, s, func(tx store.Tx) error {
		got, err := store.NextEvent(tx, "t1", allKinds, first[0].Seq)
		want := first[1]
		if err != nil || got.ID != want.ID || got.Kind != want.Kind || !got.CreatedAt.Equal(t0) || string(got.Data) != `{"n":1}` {
			t.Errorf("NextEvent = %+v, %v; want %+v", got, err, want)
		}
		return nil
	})
}

// testEventRollback: an event appended by a transaction that fails is gone
// with it, also when the event is the helper's.
func testEventRollback(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	err := s.Update(ctx, func(tx store.Tx) error {
		if err := store.AppendEvent(tx, "t1", kindJob, t0, map[string]int{"id": 1}); err != nil {
			return err
		}
		return errInjected
	})
	if !errors.Is(err, errInjected) {
		t.Fatalf("Update returned %v, want the injected failure", err)
	}
	if got := nextSeqs(t, s, "t1", allKinds, 0); len(got) != 0 {
		t.Errorf("events of a failed transaction: %v", got)
	}
	update(t, s, func(tx store.Tx) error { return store.AppendEvent(tx, "t1", kindJob, t0, map[string]int{"id": 2}) })
	view(t, s, func(tx store.Tx) error {
		e, err := store.NextEvent(tx, "t1", allKinds, 0)
		if err != nil || string(e.Data) != `{"id":2}` || len(e.ID) != len(store.EventIDPrefix)+26 || e.ID[:4] != store.EventIDPrefix {
			t.Errorf("event of the committed transaction = %+v, %v", e, err)
		}
		return nil
	})
}

// testConcurrentAppends: appends of concurrent transactions get distinct
// numbers, each set on its event when Update returns (engines that number
// after the commit share numbering passes among writers), and every one is
// found under its number.
func testConcurrentAppends(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	const writers = 32
	var wg sync.WaitGroup
	given := make([]int64, writers)
	for i := range writers {
		wg.Go(func() {
			e := &store.Event{ID: fmt.Sprintf("evt_concurrent_%d", i), TenantID: "t1", Kind: kindJob, CreatedAt: t0, Data: []byte(`{"n":1}`)}
			if err := s.Update(ctx, func(tx store.Tx) error { return tx.AppendEvent(e) }); err != nil {
				t.Errorf("writer %d: %v", i, err)
			}
			given[i] = e.Seq
		})
	}
	wg.Wait()
	got := nextSeqs(t, s, "t1", allKinds, 0)
	slices.Sort(given)
	if !slices.Equal(got, given) {
		t.Errorf("found %v; the writers were given %v", got, given)
	}
}

func newSubscription(tenant string, kinds ...connect.EventKind) *store.Subscription {
	sub := &store.Subscription{Secret: "whsec_c2VjcmV0"}
	sub.TenantID, sub.URL, sub.Kinds, sub.Enabled, sub.CreatedAt = tenant, "https://example.com/hooks/"+tenant, kinds, true, t0
	return sub
}

func createSubscriptions(t *testing.T, s store.Store, subs ...*store.Subscription) {
	t.Helper()
	update(t, s, func(tx store.Tx) error {
		for _, sub := range subs {
			if err := tx.CreateSubscription(sub); err != nil {
				return err
			}
		}
		return nil
	})
}

func testSubscriptionRecords(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	early := newSubscription("t1", kindJob)
	createSubscriptions(t, s, early)
	events := appendEvents(t, s, "t1", t0, kindJob, kindJob)
	mine, theirs := newSubscription("t1", kindJob, kindCreated), newSubscription("t2", kindJob)
	createSubscriptions(t, s, mine, theirs)
	if early.ID <= 0 || mine.ID <= early.ID || theirs.ID <= mine.ID {
		t.Errorf("subscription ids do not increase: %d, %d, %d", early.ID, mine.ID, theirs.ID)
	}
	if early.Cursor != 0 || mine.Cursor != events[1].Seq {
		t.Errorf("cursors of new subscriptions: %d and %d, want 0 and %d (the last event before each)", early.Cursor, mine.Cursor, events[1].Seq)
	}
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Subscription("t1", mine.ID)
		if err != nil || got.URL != mine.URL || got.Secret != mine.Secret || fmt.Sprint(got.Kinds) != fmt.Sprint(mine.Kinds) || !got.Enabled || got.Cursor != mine.Cursor {
			t.Errorf("Subscription = %+v, %v; want %+v", got, err, mine)
		}
		_, err = tx.Subscription("t2", mine.ID)
		wantNotFound(t, "subscription of another tenant", err)
		return nil
	})
	mine.Cursor, mine.Attempts, mine.LastError, mine.Enabled = events[1].Seq+5, 3, "answered 500", false
	update(t, s, func(tx store.Tx) error { return tx.PutSubscription(mine) })
	stranger := *theirs
	stranger.TenantID = "t1"
	for name, fn := range map[string]func(tx store.Tx) error{
		"PutSubscription of another tenant's id": func(tx store.Tx) error { return tx.PutSubscription(&stranger) },
		"PutSubscription of an unknown id":       func(tx store.Tx) error { missing := *mine; missing.ID = 999; return tx.PutSubscription(&missing) },
		"DeleteSubscription of another tenant":   func(tx store.Tx) error { return tx.DeleteSubscription("t2", mine.ID) },
	} {
		wantNotFound(t, name, s.Update(ctx, fn))
	}
	update(t, s, func(tx store.Tx) error { return tx.DeleteSubscription("t1", early.ID) })
	view(t, s, func(tx store.Tx) error {
		list, err := tx.Subscriptions("t1")
		if err != nil || len(list) != 1 || list[0].ID != mine.ID || list[0].Cursor != mine.Cursor || list[0].Attempts != 3 || list[0].LastError != "answered 500" || list[0].Enabled {
			t.Errorf("Subscriptions(t1) = %+v, %v", list, err)
		}
		all, err := tx.Subscriptions("")
		if err != nil || len(all) != 2 || all[0].ID != mine.ID || all[1].ID != theirs.ID {
			t.Errorf("Subscriptions(all) = %+v, %v", all, err)
		}
		return nil
	})
}

// testPruneEvents: old events go once every subscription that wants them has
// them; an event still waiting, even for a disabled subscription, stays, and
// so does an event that is not old enough.
// testPruneEvents checks that events go by age alone: a subscription that
// has not received an old event (a disabled one, here) does not keep it.
func testPruneEvents(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	cutoff := t0.Add(time.Hour)
	waiting := newSubscription("t1", kindJob, kindCreated)
	createSubscriptions(t, s, waiting)
	old := appendEvents(t, s, "t1", t0, kindJob, kindCreated)      // seq 1, 2
	other := appendEvents(t, s, "t2", t0, kindJob)                 // seq 3
	more := appendEvents(t, s, "t1", t0.Add(time.Minute), kindJob) // seq 4
	recent := appendEvents(t, s, "t1", cutoff, kindJob)            // seq 5: not old enough
	waiting.Enabled = false
	update(t, s, func(tx store.Tx) error { return tx.PutSubscription(waiting) })

	prune := func(cutoff time.Time, limit int) int {
		t.Helper()
		var n int
		update(t, s, func(tx store.Tx) (err error) { n, err = tx.PruneEvents(cutoff, limit); return err })
		return n
	}
	if n := prune(t0, 100); n != 0 {
		t.Errorf("pruning before the oldest event deleted %d", n)
	}
	if n := prune(cutoff, 0); n != 0 {
		t.Errorf("pruning with limit 0 deleted %d", n)
	}
	if n := prune(cutoff, 3); n != 3 {
		t.Errorf("pruning with limit 3 deleted %d", n)
	}
	if n := prune(cutoff, 100); n != 1 {
		t.Errorf("second pruning deleted %d, want the 1 left over by the limit", n)
	}
	want := []int64{recent[0].Seq}
	if got := nextSeqs(t, s, "t1", allKinds, 0); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after pruning, t1 keeps %v, want %v; pruned %d %d %d (waiting for a disabled subscription) %d", got, want, old[0].Seq, old[1].Seq, more[0].Seq, other[0].Seq)
	}
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.EventByID("t1", old[0].ID); !errors.Is(err, connect.ErrNotFound) {
			t.Errorf("EventByID of a pruned event: %v, want ErrNotFound", err)
		}
		if n, err := tx.CountEvents(); n != 1 || err != nil {
			t.Errorf("CountEvents = %d, %v; want 1", n, err)
		}
		return nil
	})
}

// testEventsFeed checks the reads of the events feed: pages by tenant and
// kinds in sequence order between two numbers, events by id, and numbers
// by time.
func testEventsFeed(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	var all []*store.Event
	for i := range 6 {
		all = append(all, appendEvents(t, s, "t1", t0.Add(time.Duration(i)*time.Minute), kindJob, kindCreated)...)
		appendEvents(t, s, "t2", t0.Add(time.Duration(i)*time.Minute), kindJob)
	}
	seqs := func(events []store.Event) []int64 {
		var out []int64
		for _, e := range events {
			out = append(out, e.Seq)
		}
		return out
	}
	var want []int64
	for _, e := range all {
		want = append(want, e.Seq)
	}
	view(t, s, func(tx store.Tx) error {
		cases := []struct {
			name          string
			kinds         []connect.EventKind
			after, before int64
			limit         int
			want          []int64
		}{
			{"every kind", nil, 0, 0, 100, want},
			{"one kind", []connect.EventKind{kindCreated}, 0, 0, 100, []int64{want[1], want[3], want[5], want[7], want[9], want[11]}},
			{"a page", nil, 0, 0, 3, want[:3]},
			{"after", nil, want[2], 0, 3, want[3:6]},
			{"before", nil, want[2], want[5], 100, want[3:5]},
			{"past the end", nil, want[11], 0, 100, nil},
		}
		for _, c := range cases {
			got, err := tx.Events("t1", c.kinds, c.after, c.before, c.limit)
			if err != nil || fmt.Sprint(seqs(got)) != fmt.Sprint(c.want) {
				t.Errorf("Events %s = %v, %v; want %v", c.name, seqs(got), err, c.want)
			}
		}
		e, err := tx.EventByID("t1", all[4].ID)
		if err != nil || e.Seq != all[4].Seq || string(e.Data) != string(all[4].Data) {
			t.Errorf("EventByID = %+v, %v; want %+v", e, err, all[4])
		}
		if _, err := tx.EventByID("t2", all[4].ID); !errors.Is(err, connect.ErrNotFound) {
			t.Errorf("EventByID of another tenant's event: %v, want ErrNotFound", err)
		}
		for _, c := range []struct {
			at   time.Time
			want int64
		}{
			{t0.Add(-time.Hour), all[0].Seq},
			{t0.Add(2 * time.Minute), all[4].Seq},
			{t0.Add(90 * time.Second), all[4].Seq},
			{t0.Add(time.Hour), all[11].Seq + 2}, // one above the last (t2's)
		} {
			if got, err := tx.EventSeqAt(c.at); got != c.want || err != nil {
				t.Errorf("EventSeqAt(%s) = %d, %v; want %d", c.at.Sub(t0), got, err, c.want)
			}
		}
		return nil
	})
}

// testAttempts checks delivery attempts: listed newest first per
// subscription, pruned by age, deleted with their subscription.
func testAttempts(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	a, b := newSubscription("t1", kindJob), newSubscription("t1", kindJob)
	createSubscriptions(t, s, a, b)
	var ids []int64
	for i := range 5 {
		update(t, s, func(tx store.Tx) error {
			for _, sub := range []*store.Subscription{a, b} {
				at := &store.Attempt{TenantID: "t1", SubscriptionID: sub.ID}
				at.EventID, at.At, at.Outcome, at.Attempt = fmt.Sprintf("evt_%d", i), t0.Add(time.Duration(i)*time.Hour), "delivered", 1
				if err := tx.AppendAttempt(at); err != nil {
					return err
				}
				if sub == a {
					ids = append(ids, at.ID)
				}
			}
			return nil
		})
	}
	list := func(sub int64, before int64, limit int) []int64 {
		t.Helper()
		var got []int64
		view(t, s, func(tx store.Tx) error {
			attempts, err := tx.Attempts("t1", sub, before, limit)
			for _, at := range attempts {
				got = append(got, at.ID)
			}
			return err
		})
		return got
	}
	if got, want := list(a.ID, 0, 3), []int64{ids[4], ids[3], ids[2]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("newest attempts = %v, want %v", got, want)
	}
	if got, want := list(a.ID, ids[2], 10), []int64{ids[1], ids[0]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("attempts before %d = %v, want %v", ids[2], got, want)
	}
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.Attempts("t2", a.ID, 0, 10); !errors.Is(err, connect.ErrNotFound) {
			t.Errorf("another tenant's attempts: %v, want ErrNotFound", err)
		}
		return nil
	})
	var pruned int
	update(t, s, func(tx store.Tx) (err error) { pruned, err = tx.PruneAttempts(t0.Add(2*time.Hour), 100); return err })
	if pruned != 4 {
		t.Errorf("PruneAttempts deleted %d, want the 2 older of each subscription", pruned)
	}
	update(t, s, func(tx store.Tx) error { return tx.DeleteSubscription("t1", b.ID) })
	if got := list(a.ID, 0, 10); len(got) != 3 {
		t.Errorf("after pruning and deleting the other subscription, a keeps %v, want 3", got)
	}
	update(t, s, func(tx store.Tx) (err error) { pruned, err = tx.PruneAttempts(t0.Add(10*time.Hour), 100); return err })
	if got := list(a.ID, 0, 10); len(got) != 0 {
		t.Errorf("after pruning everything, a keeps %v", got)
	}
}

func testOutboxReopen(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	first := appendEvents(t, s, "t1", t0, kindJob)
	sub := newSubscription("t1", kindJob)
	createSubscriptions(t, s, sub)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = reopen()
	defer s.Close()
	next := appendEvents(t, s, "t1", t0, kindJob)
	if next[0].Seq <= first[0].Seq {
		t.Errorf("sequence number after reopen %d is not above %d", next[0].Seq, first[0].Seq)
	}
	if got, want := nextSeqs(t, s, "t1", allKinds, 0), []int64{first[0].Seq, next[0].Seq}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events after reopen: %v, want %v", got, want)
	}
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Subscription("t1", sub.ID)
		if err != nil || got.Cursor != first[0].Seq || got.Secret != sub.Secret {
			t.Errorf("subscription after reopen = %+v, %v", got, err)
		}
		return nil
	})
}

// testEventCommitOrder overlaps two transactions: A appends an event and
// stays open while B appends one and commits. A reader following its cursor
// after each commit must see both events, whichever commits first: an event
// that commits later must never get a number below one already read. An
// engine that numbered events when they are appended, and let B commit
// before A, would fail here; one that numbers them in commit order (the
// PostgreSQL store numbers them after commit), or runs B after A (a single
// writer, as bbolt), passes.
func testEventCommitOrder(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	var cursor int64
	var seen []string
	readNew := func() {
		view(t, s, func(tx store.Tx) error {
			for {
				e, err := store.NextEvent(tx, "t1", allKinds, cursor)
				if errors.Is(err, connect.ErrNotFound) {
					return nil
				}
				if err != nil {
					return err
				}
				seen, cursor = append(seen, e.ID), e.Seq
			}
		})
	}
	appendOne := func(id string) func(store.Tx) error {
		return func(tx store.Tx) error {
			return tx.AppendEvent(&store.Event{ID: id, TenantID: "t1", Kind: kindJob, CreatedAt: t0, Data: []byte(`{}`)})
		}
	}
	appended, release := make(chan struct{}), make(chan struct{})
	doneA := make(chan error, 1)
	go func() {
		first := true
		doneA <- s.Update(ctx, func(tx store.Tx) error {
			if err := appendOne("evt_a")(tx); err != nil {
				return err
			}
			if first { // a rerun of fn must not wait again
				first = false
				close(appended)
				<-release
			}
			return nil
		})
	}()
	Receive(t, appended, "transaction A to append")
	doneB := make(chan error, 1)
	go func() { doneB <- s.Update(ctx, appendOne("evt_b")) }()
	select {
	case err := <-doneB: // B committed while A is open
		if err != nil {
			t.Fatalf("Update B: %v", err)
		}
		readNew()
		close(release)
	case <-time.After(200 * time.Millisecond): // B waits for A (or is slow)
		t.Log("B did not commit while A was open: this engine, or this busy machine, ran them one after the other")
		close(release)
		if err := Receive(t, doneB, "transaction B"); err != nil {
			t.Fatalf("Update B: %v", err)
		}
	}
	if err := Receive(t, doneA, "transaction A"); err != nil {
		t.Fatalf("Update A: %v", err)
	}
	readNew()
	slices.Sort(seen)
	if want := []string{"evt_a", "evt_b"}; !slices.Equal(seen, want) {
		t.Errorf("a reader following its cursor saw %v, want %v: an event committed later got a smaller number", seen, want)
	}
}
