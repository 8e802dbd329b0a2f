// Package storetest is the conformance suite of store.Store: every implementation
// runs Run in its tests, so all of them keep the same promises (transactions are
// all or nothing, data outlives a restart, concurrent writers never lose or
// repeat each other's writes, events are numbered in commit order, tenants never
// see each other's records).
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Opener makes a new, empty store for one test and returns the function that
// opens it: called again after Close, that function must open the same data.
// Where the data lives (a file, a database) is the engine's business. The
// suite closes what it opens.
type Opener func(t testing.TB) (open func() store.Store)

// Run runs the whole conformance suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	suites := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"Clients", testClients},
		{"Targets", testTargets},
		{"TargetsReadOwnWrites", testTargetsReadOwnWrites},
		{"ManyTargetsInOneTransaction", testManyTargetsInOneTransaction},
		{"Jobs", testJobs},
		{"JobList", testJobList},
		{"DeleteOldJobs", testDeleteOldJobs},
		{"Idempotency", testIdempotency},
		{"IdempotencyResultKeptExactly", testIdempotencyResultKeptExactly},
		{"Outbox", testOutbox},
		{"FailedUpdateLeavesNothing", testFailedUpdateLeavesNothing},
		{"PanicLeavesNothing", testPanicLeavesNothing},
		{"ReopenKeepsData", testReopenKeepsData},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"GroupRollback", testGroupRollback},
		{"Claim", testClaim},
		{"CancelledContext", testCancelledContext},
		{"Appointments", testAppointments},
		{"CustomerRecords", testCustomerRecords},
		{"ListOrder", testListOrder},
		{"RouteSuggestions", testRouteSuggestions},
		{"Profiles", testProfiles},
		{"Employees", testEmployees},
		{"RoutePlans", testRoutePlans},
		{"TenantTargets", testTenantTargets},
	}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) { s.fn(t, open) })
	}
}

// openFresh opens a new store and closes it after the test; reopen opens its
// data again.
func openFresh(t *testing.T, newStore Opener) (s store.Store, reopen func() store.Store) {
	t.Helper()
	reopen = newStore(t)
	s = reopen()
	t.Cleanup(func() { _ = s.Close() })
	return s, reopen
}

var ctx = context.Background()

func update(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.Update(ctx, fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.View(ctx, fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, connect.ErrNotFound) {
		t.Errorf("%s: got error %v, want NotFound", what, err)
	}
}

var t0 = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

func newTarget(tenant, source, externalID string) *store.Target {
	return &store.Target{
		TenantID: tenant, SourceSystem: source, ExternalID: externalID, Status: store.TargetActive,
		Data:      connect.InboundTarget{ExternalID: externalID, Title: "Title of " + externalID},
		CreatedAt: t0, UpdatedAt: t0,
	}
}

// testTargetsReadOwnWrites: a transaction reads the targets it wrote as it
// wrote them, by id and by identity, also after changing the value it passed
// (the store keeps what it was given), and the last write is what commits.
func testTargetsReadOwnWrites(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	var id int64
	update(t, s, func(tx store.Tx) error {
		a := newTarget("t1", "erp", "A")
		if err := tx.CreateTarget(a); err != nil {
			return err
		}
		id = a.ID
		a.Data.Title = "changed after CreateTarget" // not written
		if got, err := tx.TargetByExternalID("t1", "erp", "A"); err != nil || got.Data.Title != "Title of A" {
			t.Errorf("created target read back = %+v, %v", got, err)
		}
		a.Data.Title = "updated"
		if err := tx.UpdateTarget(a); err != nil {
			return err
		}
		if got, err := tx.Target("t1", id); err != nil || got.Data.Title != "updated" {
			t.Errorf("updated target read back = %+v, %v", got, err)
		}
		_, err := tx.Target("t2", id)
		wantNotFound(t, "another tenant's target written in this transaction", err)
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Target("t1", id)
		if err != nil || got.Data.Title != "updated" || got.ExternalID != "A" {
			t.Errorf("committed target = %+v, %v", got, err)
		}
		return nil
	})
}

// testManyTargetsInOneTransaction: a transaction writing as many targets as
// a batch import (an engine may send them in bulk, encoding each late) keeps
// each as it was at its last write, and one that cannot be encoded fails the
// transaction, which then stores nothing.
func testManyTargetsInOneTransaction(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	const n = 250
	keys := make([]store.TargetKey, n)
	update(t, s, func(tx store.Tx) error {
		for i := range n {
			target := newTarget("t1", "erp", fmt.Sprintf("M%d", i))
			if err := tx.CreateTarget(target); err != nil {
				return err
			}
			keys[i] = store.TargetKey{SourceSystem: "erp", ExternalID: target.ExternalID}
			target.Data.Title = "changed after CreateTarget" // not written
			if i%10 == 0 {
				target.Data.Title = fmt.Sprintf("updated %d", i)
				if err := tx.UpdateTarget(target); err != nil {
					return err
				}
			}
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		found, err := tx.TargetsByExternalID("t1", keys)
		if err != nil || len(found) != n {
			t.Fatalf("TargetsByExternalID: %d of %d found, %v", len(found), n, err)
		}
		for i, k := range keys {
			want := "Title of " + k.ExternalID
			if i%10 == 0 {
				want = fmt.Sprintf("updated %d", i)
			}
			if got := found[k].Data.Title; got != want {
				t.Errorf("target %s has title %q, want %q", k.ExternalID, got, want)
			}
		}
		return nil
	})

	nan := math.NaN()
	err := s.Update(ctx, func(tx store.Tx) error {
		for i := range n {
			target := newTarget("t1", "erp", fmt.Sprintf("T%d", i))
			if i == n-1 {
				target.Effective.Latitude, target.Effective.Longitude = &nan, &nan // not JSON
			}
			if err := tx.CreateTarget(target); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "/effective/latitude") {
		t.Fatalf("a transaction writing a target that cannot be encoded: %v, want the failure to encode its latitude", err)
	}
	assertEmpty(t, s)
}

func newJob(tenant, source string, status connect.JobStatus, items int) *store.Job {
	j := &store.Job{TenantID: tenant, ClientID: "client-1"}
	j.SourceSystem = source
	j.Status = status
	j.CreatedAtUtc = t0
	for i := range items {
		j.Items = append(j.Items, connect.InboundImportItemResult{ExternalID: fmt.Sprintf("ext-%d", i), Status: connect.ItemImported})
	}
	j.ImportCounters = connect.CountItems(j.Items)
	return j
}

func testClients(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	a := &store.Client{Client: connect.Client{TenantID: "t1", ClientID: "a", SourceSystem: "erp", Scopes: []connect.Scope{connect.ScopeHealthRead}, CreatedAt: t0}, KeyHash: []byte("hash-a")}
	b := &store.Client{Client: connect.Client{TenantID: "t2", ClientID: "b", SourceSystem: "crm", CreatedAt: t0}, KeyHash: []byte("hash-b")}
	update(t, s, func(tx store.Tx) error { return errors.CombineErrors(tx.CreateClient(a), tx.CreateClient(b)) })

	err := s.Update(ctx, func(tx store.Tx) error { return tx.CreateClient(a) })
	if !errors.Is(err, connect.ErrInvalidRequest) {
		t.Errorf("creating a duplicate client: got %v, want InvalidRequest", err)
	}
	view(t, s, func(tx store.Tx) error {
		got, err := tx.ClientByKeyHash([]byte("hash-a"))
		if err != nil || got.ClientID != "a" || got.TenantID != "t1" || len(got.Scopes) != 1 {
			t.Errorf("ClientByKeyHash = %+v, %v", got, err)
		}
		_, err = tx.ClientByKeyHash([]byte("nope"))
		wantNotFound(t, "unknown key hash", err)
		_, err = tx.Client("t2", "a")
		wantNotFound(t, "client of another tenant", err)
		all, err := tx.Clients("")
		if err != nil || len(all) != 2 {
			t.Errorf("Clients(all) = %d clients, %v; want 2", len(all), err)
		}
		one, err := tx.Clients("t2")
		if err != nil || len(one) != 1 || one[0].ClientID != "b" {
			t.Errorf("Clients(t2) = %+v, %v", one, err)
		}
		return nil
	})
	revoked := t0.Add(time.Hour)
	a.RevokedAt = &revoked
	update(t, s, func(tx store.Tx) error { return tx.PutClient(a) })
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Client("t1", "a")
		if err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(revoked) {
			t.Errorf("after PutClient: %+v, %v", got, err)
		}
		return nil
	})
}

func testTargets(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	first, second := newTarget("t1", "erp", "A"), newTarget("t1", "crm", "A")
	other := newTarget("t2", "erp", "A")
	update(t, s, func(tx store.Tx) error {
		return errors.CombineErrors(tx.CreateTarget(first), errors.CombineErrors(tx.CreateTarget(second), tx.CreateTarget(other)))
	})
	if first.ID <= 0 || second.ID <= first.ID || other.ID <= second.ID {
		t.Fatalf("ids not assigned in increasing order: %d %d %d", first.ID, second.ID, other.ID)
	}
	view(t, s, func(tx store.Tx) error {
		keys := []store.TargetKey{{SourceSystem: "erp", ExternalID: "A"}, {SourceSystem: "crm", ExternalID: "A"}, {SourceSystem: "erp", ExternalID: "B"}}
		found, err := tx.TargetsByExternalID("t1", keys)
		if err != nil || len(found) != 2 || found[keys[0]].ID != first.ID || found[keys[1]].ID != second.ID {
			t.Errorf("TargetsByExternalID: %v, %v; want ids %d and %d, and no B", found, err, first.ID, second.ID)
		}
		return nil
	})
	err := s.Update(ctx, func(tx store.Tx) error { return tx.CreateTarget(newTarget("t1", "erp", "A")) })
	if connect.ErrorCodeOf(err) != connect.CodeTargetAlreadyExists {
		t.Errorf("creating a duplicate identity: got %v, want TargetAlreadyExists", err)
	}
	first.Status = store.TargetCancelled
	first.Data.Title = "changed"
	update(t, s, func(tx store.Tx) error { return tx.UpdateTarget(first) })
	view(t, s, func(tx store.Tx) error {
		got, err := tx.TargetByExternalID("t1", "erp", "A")
		if err != nil || got.ID != first.ID || got.Status != store.TargetCancelled || got.Data.Title != "changed" {
			t.Errorf("TargetByExternalID(t1, erp, A) = %+v, %v", got, err)
		}
		got, err = tx.TargetByExternalID("t1", "crm", "A")
		if err != nil || got.ID != second.ID {
			t.Errorf("same externalId, other source system: got %+v, %v", got, err)
		}
		_, err = tx.TargetByExternalID("t1", "erp", "B")
		wantNotFound(t, "unknown externalId", err)
		_, err = tx.Target("t1", other.ID)
		wantNotFound(t, "another tenant's target by id", err)
		got, err = tx.Target("t2", other.ID)
		if err != nil || got.ExternalID != "A" {
			t.Errorf("Target(t2, %d) = %+v, %v", other.ID, got, err)
		}
		return nil
	})
}

func testJobs(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	job := newJob("t1", "erp", connect.JobAccepted, 3)
	update(t, s, func(tx store.Tx) error { return tx.CreateJob(job) })
	if job.ID <= 0 {
		t.Fatalf("job id not assigned")
	}
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Job("t1", job.ID)
		if err != nil || len(got.Items) != 3 || got.Items[2].ExternalID != "ext-2" || got.TotalItems != 3 || got.ClientID != "client-1" {
			t.Errorf("Job = %+v, %v", got, err)
		}
		_, err = tx.Job("t2", job.ID)
		wantNotFound(t, "another tenant's job", err)
		_, err = tx.Job("t1", job.ID+1)
		wantNotFound(t, "unknown job", err)
		return nil
	})
}

func testJobList(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	specs := []struct {
		tenant, source string
		status         connect.JobStatus
	}{
		{"t1", "erp", connect.JobAccepted},
		{"t1", "ERP", connect.JobRejected},
		{"t1", "crm", connect.JobAccepted},
		{"t2", "erp", connect.JobAccepted},
		{"t1", "erp", connect.JobPartiallyAccepted},
		{"t1", "erp", connect.JobAccepted},
	}
	ids := make([]int64, len(specs))
	update(t, s, func(tx store.Tx) error {
		for i, sp := range specs {
			j := newJob(sp.tenant, sp.source, sp.status, 1)
			if err := tx.CreateJob(j); err != nil {
				return err
			}
			ids[i] = j.ID
		}
		return nil
	})
	tests := []struct {
		name        string
		filter      store.JobFilter
		skip, take  int
		wantTotal   int
		wantIndexes []int // into specs, newest first
	}{
		{"all of t1", store.JobFilter{}, 0, 50, 5, []int{5, 4, 2, 1, 0}},
		{"status exact", store.JobFilter{Status: "Accepted"}, 0, 50, 3, []int{5, 2, 0}},
		{"status any case", store.JobFilter{Status: "accepted"}, 0, 50, 3, []int{5, 2, 0}},
		{"source any case", store.JobFilter{SourceSystem: "erp"}, 0, 50, 4, []int{5, 4, 1, 0}},
		{"status and source", store.JobFilter{Status: "ACCEPTED", SourceSystem: "Erp"}, 0, 50, 2, []int{5, 0}},
		{"unknown status", store.JobFilter{Status: "Nope"}, 0, 50, 0, nil},
		{"skip and take", store.JobFilter{}, 1, 2, 5, []int{4, 2}},
		{"skip past the end", store.JobFilter{}, 10, 2, 5, nil},
		{"no prefix match on status", store.JobFilter{Status: "Accept"}, 0, 50, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx store.Tx) error {
				jobs, total, err := tx.Jobs("t1", tc.filter, tc.skip, tc.take)
				if err != nil {
					return err
				}
				if total != tc.wantTotal {
					t.Errorf("total = %d, want %d", total, tc.wantTotal)
				}
				var got, want []int64
				for _, j := range jobs {
					got = append(got, j.ID)
				}
				for _, i := range tc.wantIndexes {
					want = append(want, ids[i])
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("ids = %v, want %v", got, want)
				}
				return nil
			})
		})
	}
}

// testIdempotencyResultKeptExactly: a stored result comes back byte for byte,
// however an engine keeps it (a batch's result holds a thousand item results,
// which an engine may well compress), also after a restart.
func testIdempotencyResultKeptExactly(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	var items []string
	for i := range 1000 {
		items = append(items, fmt.Sprintf(`{"externalId":"T-%06d","status":"Imported","targetId":%d,"errorCode":null,"warnings":[]}`, i, 7*i+1))
	}
	results := map[string][]byte{
		"empty": nil,
		"short": []byte(`{"a": 1 }`), // white space is kept as well
		"batch": []byte(`{"importJobId":1,"items":[` + strings.Join(items, ",") + `]}`),
	}
	update(t, s, func(tx store.Tx) error {
		for k, result := range results {
			r := &store.IdempotencyRecord{Key: store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: k}, Fingerprint: []byte(k), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour), Result: result}
			if err := tx.PutIdempotencyRecord(r); err != nil {
				return err
			}
		}
		return nil
	})
	check := func(s store.Store, when string) {
		view(t, s, func(tx store.Tx) error {
			for k, want := range results {
				got, err := tx.IdempotencyRecord(store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: k})
				if err != nil {
					t.Errorf("%s: record %q: %v", when, k, err)
				} else if !bytes.Equal(got.Result, want) || string(got.Fingerprint) != k {
					t.Errorf("%s: record %q: result of %d bytes differs from the %d bytes stored", when, k, len(got.Result), len(want))
				}
			}
			return nil
		})
	}
	check(s, "before a restart")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = reopen()
	defer s.Close()
	check(s, "after a restart")
}

func testIdempotency(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	key := func(k string) store.IdempotencyKey {
		return store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: k}
	}
	records := []*store.IdempotencyRecord{
		{Key: key("short"), Fingerprint: []byte("f1"), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour), Result: []byte(`{"a":1}`)},
		{Key: key("long"), Fingerprint: []byte("f2"), CreatedAt: t0, ExpiresAt: t0.Add(48 * time.Hour), ErrorCode: connect.CodeInvalidRequest, ErrorMessage: "bad"},
		{Key: key("new"), Fingerprint: []byte("f3"), CreatedAt: t0.Add(2 * time.Hour), ExpiresAt: t0.Add(3 * time.Hour), Created: true},
		// Stored before records had an expiry: it expires 24h after its creation.
		{Key: key("legacy"), Fingerprint: []byte("f4"), CreatedAt: t0},
	}
	update(t, s, func(tx store.Tx) error {
		for _, r := range records {
			if err := tx.PutIdempotencyRecord(r); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		got, err := tx.IdempotencyRecord(key("long"))
		if err != nil || string(got.Fingerprint) != "f2" || got.ErrorCode != connect.CodeInvalidRequest || got.ErrorMessage != "bad" || !got.ExpiresAt.Equal(t0.Add(48*time.Hour)) {
			t.Errorf("IdempotencyRecord(long) = %+v, %v", got, err)
		}
		_, err = tx.IdempotencyRecord(store.IdempotencyKey{TenantID: "t1", ClientID: "c2", Key: "long"})
		wantNotFound(t, "same key of another client", err)
		return nil
	})
	// Replacing "short" with a record expiring later moves it in the expiry order.
	update(t, s, func(tx store.Tx) error {
		return tx.PutIdempotencyRecord(&store.IdempotencyRecord{Key: key("short"), Fingerprint: []byte("f5"), CreatedAt: t0.Add(3 * time.Hour), ExpiresAt: t0.Add(4 * time.Hour)})
	})
	steps := []struct {
		now        time.Time
		limit      int
		wantPurged int
		wantKept   []string
	}{
		{t0.Add(3*time.Hour - time.Nanosecond), 10, 0, []string{"short", "long", "new", "legacy"}},
		{t0.Add(3 * time.Hour), 10, 1, []string{"short", "long", "legacy"}}, // expired at its expiry
		{t0.Add(30 * time.Hour), 0, 0, []string{"short", "long", "legacy"}},
		{t0.Add(30 * time.Hour), 1, 1, []string{"long", "legacy"}}, // the first to expire first
		{t0.Add(24*time.Hour - time.Nanosecond), 10, 0, []string{"long", "legacy"}},
		{t0.Add(24 * time.Hour), 10, 1, []string{"long"}},
		{t0.Add(48 * time.Hour), 10, 1, nil},
	}
	for _, st := range steps {
		var purged int
		update(t, s, func(tx store.Tx) (err error) {
			purged, err = tx.PurgeIdempotencyRecords(st.now, st.limit)
			return err
		})
		var kept []string
		view(t, s, func(tx store.Tx) error {
			for _, k := range []string{"short", "long", "new", "legacy"} {
				if _, err := tx.IdempotencyRecord(key(k)); err == nil {
					kept = append(kept, k)
				}
			}
			return nil
		})
		if purged != st.wantPurged || fmt.Sprint(kept) != fmt.Sprint(st.wantKept) {
			t.Errorf("PurgeIdempotencyRecords(t0+%v, %d) purged %d, kept %v; want %d, %v", st.now.Sub(t0), st.limit, purged, kept, st.wantPurged, st.wantKept)
		}
	}
}

var errInjected = errors.New("injected failure")

// testFailedUpdateLeavesNothing fails a transaction in the middle of a batch
// import: targets, job and idempotency record all vanish.
func testFailedUpdateLeavesNothing(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	err := s.Update(ctx, func(tx store.Tx) error {
		for i := range 10 {
			if i == 5 {
				return errInjected
			}
			if err := tx.CreateTarget(newTarget("t1", "erp", fmt.Sprintf("T%d", i))); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, errInjected) {
		t.Fatalf("Update returned %v, want the injected failure", err)
	}
	err = s.Update(ctx, func(tx store.Tx) error {
		if err := tx.CreateJob(newJob("t1", "erp", connect.JobAccepted, 2)); err != nil {
			return err
		}
		if err := tx.PutIdempotencyRecord(&store.IdempotencyRecord{Key: store.IdempotencyKey{TenantID: "t1", ClientID: "c", Key: "k"}, CreatedAt: t0}); err != nil {
			return err
		}
		return errInjected
	})
	if !errors.Is(err, errInjected) {
		t.Fatalf("Update returned %v, want the injected failure", err)
	}
	assertEmpty(t, s)
}

func assertEmpty(t *testing.T, s store.Store) {
	t.Helper()
	view(t, s, func(tx store.Tx) error {
		for i := range 10 {
			_, err := tx.TargetByExternalID("t1", "erp", fmt.Sprintf("T%d", i))
			wantNotFound(t, "target of a failed transaction", err)
		}
		jobs, total, err := tx.Jobs("t1", store.JobFilter{}, 0, 50)
		if err != nil || total != 0 || len(jobs) != 0 {
			t.Errorf("jobs after a failed transaction: %d listed, total %d, %v", len(jobs), total, err)
		}
		_, err = tx.IdempotencyRecord(store.IdempotencyKey{TenantID: "t1", ClientID: "c", Key: "k"})
		wantNotFound(t, "idempotency record of a failed transaction", err)
		return nil
	})
}

func testPanicLeavesNothing(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the panic of the transaction function", p)
			}
		}()
		_ = s.Update(ctx, func(tx store.Tx) error {
			if err := tx.CreateTarget(newTarget("t1", "erp", "T0")); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	assertEmpty(t, s)
	// The store still works after a panic.
	update(t, s, func(tx store.Tx) error { return tx.CreateTarget(newTarget("t1", "erp", "T0")) })
}

func testReopenKeepsData(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	target, job := newTarget("t1", "erp", "A"), newJob("t1", "erp", connect.JobAccepted, 2)
	update(t, s, func(tx store.Tx) error { return errors.CombineErrors(tx.CreateTarget(target), tx.CreateJob(job)) })
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = reopen()
	defer s.Close()
	view(t, s, func(tx store.Tx) error {
		got, err := tx.TargetByExternalID("t1", "erp", "A")
		if err != nil || got.ID != target.ID || got.Data.Title != target.Data.Title {
			t.Errorf("target after reopen = %+v, %v", got, err)
		}
		j, err := tx.Job("t1", job.ID)
		if err != nil || len(j.Items) != 2 {
			t.Errorf("job after reopen = %+v, %v", j, err)
		}
		return nil
	})
	// Ids keep increasing after a reopen.
	next := newTarget("t1", "erp", "B")
	update(t, s, func(tx store.Tx) error { return tx.CreateTarget(next) })
	if next.ID <= target.ID {
		t.Errorf("id after reopen %d is not above %d", next.ID, target.ID)
	}
}

// testConcurrentUpdates: many concurrent writers (which an engine may group
// into shared transactions or run side by side), one of them failing, all
// others committed exactly once.
func testConcurrentUpdates(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	const writers = 64
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			errs[i] = s.Update(ctx, func(tx store.Tx) error {
				if i == 13 {
					return errInjected
				}
				return tx.CreateTarget(newTarget("t1", "erp", fmt.Sprintf("W%d", i)))
			})
		})
	}
	wg.Wait()
	seen := map[int64]bool{}
	view(t, s, func(tx store.Tx) error {
		for i := range writers {
			got, err := tx.TargetByExternalID("t1", "erp", fmt.Sprintf("W%d", i))
			switch {
			case i == 13:
				wantNotFound(t, "target of the failed writer", err)
				if !errors.Is(errs[i], errInjected) {
					t.Errorf("failed writer got %v", errs[i])
				}
			case err != nil || errs[i] != nil:
				t.Errorf("writer %d: Update %v, lookup %v", i, errs[i], err)
			case seen[got.ID]:
				t.Errorf("writer %d: id %d given twice", i, got.ID)
			default:
				seen[got.ID] = true
			}
		}
		return nil
	})
}

func testClaim(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	claim := func(name string, ttl time.Duration) (func(), bool) {
		t.Helper()
		release, ok, err := s.Claim(ctx, name, ttl)
		if err != nil {
			t.Fatalf("Claim(%s): %v", name, err)
		}
		return release, ok
	}
	releaseA, ok := claim("a", time.Hour)
	if !ok {
		t.Fatal("first Claim(a) failed")
	}
	if _, ok := claim("a", time.Hour); ok {
		t.Error("second Claim(a) succeeded while held")
	}
	releaseB, ok := claim("b", time.Hour)
	if !ok {
		t.Error("Claim(b) failed while only a is held")
	}
	releaseA()
	releaseA() // a second call must not release someone else's claim
	again, ok := claim("a", time.Hour)
	if !ok {
		t.Fatal("Claim(a) after release failed")
	}
	releaseA()
	if _, ok := claim("a", time.Hour); ok {
		t.Error("an old release freed the new holder's claim")
	}
	again()
	releaseB()

	// A claim whose holder never releases it expires.
	if _, ok := claim("expiring", time.Millisecond); !ok {
		t.Fatal("Claim(expiring) failed")
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, ok := claim("expiring", time.Hour); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a claim of 1ms was still held after a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := s.Claim(cancelled, "c", time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Claim with a cancelled context: %v, want context.Canceled", err)
	}
}

func testCancelledContext(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	ran := false
	err := s.Update(cancelled, func(tx store.Tx) error { ran = true; return nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("Update with a cancelled context: err %v, ran %v", err, ran)
	}
	err = s.View(cancelled, func(tx store.Tx) error { ran = true; return nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("View with a cancelled context: err %v, ran %v", err, ran)
	}
}

// Receive waits for a value from ch and fails the test after 30 s, naming
// what it waited for: a test never waits on another goroutine without a
// deadline of its own. Tests of any package use it.
func Receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("waited 30 s for %s", what)
		panic("unreachable")
	}
}
