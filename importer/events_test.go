package importer_test

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/storetest"
)

// TestImportJobCompletedEvent: every single and batch import appends one
// import_job.completed event with the job's summary, in the caller's tenant;
// a replay appends none.
func TestImportJobCompletedEvent(t *testing.T) {
	e := newEnv(t)
	single := e.single(t, routable("A", "")).Result
	batch := e.batch(t, `{"batchId":"b-1","targets":[`+routable("B", "")+`,{"externalId":"C"}]}`)
	key := connect.WriteOptions{IdempotencyKey: "once"}
	for range 2 {
		if _, err := e.svc.ImportTargetJSON(bg, caller, []byte(routable("D", "")), key); err != nil {
			t.Fatal(err)
		}
	}
	got := storetest.Events(t, e.store, caller.TenantID)
	if len(got) != 3 {
		t.Fatalf("%d events after two imports and one replayed import, want 3", len(got))
	}
	for i, jobID := range []int64{single.ImportJobID, batch.ImportJobID} {
		job, err := e.svc.GetJob(bg, caller, jobID)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(job.ImportJobSummary)
		ev := got[i]
		if ev.Kind != connect.EventImportJobCompleted || ev.TenantID != caller.TenantID || !ev.CreatedAt.Equal(clock) || string(ev.Data) != string(want) {
			t.Errorf("event %d = %s %s %s %s\nwant data %s", i, ev.Kind, ev.TenantID, ev.CreatedAt, ev.Data, want)
		}
	}
	var summary connect.ImportJobSummary
	if err := json.Unmarshal(got[1].Data, &summary); err != nil || summary.Status != connect.JobPartiallyAccepted || summary.BatchID == nil || *summary.BatchID != "b-1" || summary.RejectedItems != 1 {
		t.Errorf("batch event data = %+v, %v", summary, err)
	}
	if others := storetest.Events(t, e.store, "globex"); len(others) != 0 {
		t.Errorf("another tenant has %d events", len(others))
	}
}

var errInjected = errors.New("injected failure")

// failingStore runs every write's function on the real store and then fails
// it, so the transaction rolls back after the import made all its writes.
type failingStore struct{ store.Store }

func (f failingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return f.Store.Update(ctx, func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errInjected
	})
}

// TestFailedImportAppendsNoEvent: an import whose transaction fails, or that
// fails as a request, leaves no event.
func TestFailedImportAppendsNoEvent(t *testing.T) {
	e := newEnv(t)
	failing := importer.New(importer.Config{Store: failingStore{e.store}, Now: func() time.Time { return clock }})
	if _, err := failing.ImportBatchJSON(bg, caller, []byte(`{"targets":[`+routable("A", "")+`]}`), connect.WriteOptions{}); !errors.Is(err, errInjected) {
		t.Fatalf("import on a failing store: %v, want the injected failure", err)
	}
	if _, err := e.svc.ImportBatchJSON(bg, caller, []byte(`{"targets":[]}`), connect.WriteOptions{IdempotencyKey: "k"}); connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Fatalf("empty batch: %v, want InvalidRequest", err)
	}
	if got := storetest.Events(t, e.store, caller.TenantID); len(got) != 0 || e.jobCount(t) != 0 {
		t.Errorf("failed imports left %d events and %d jobs", len(got), e.jobCount(t))
	}
}
