package importer_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/integration-connect/connect"
)

func TestIdempotentImport(t *testing.T) {
	e := newEnv(t)
	key := connect.WriteOptions{IdempotencyKey: "order-77"}
	body := routable("I1", "")
	first, err := e.svc.ImportTargetJSON(bg, caller, []byte(body), key)
	if err != nil || !first.Created || first.Replayed {
		t.Fatalf("first = %+v, %v", first, err)
	}
	// The same request again, formatted differently: replayed, nothing runs.
	again, err := e.svc.ImportTargetJSON(bg, caller, []byte("{\n \"title\": \"Service I1\", \"externalId\": \"I1\",\n \"address\": {\"longitude\": 13.40, \"latitude\": 52.52}}"), key)
	if err != nil || !again.Replayed || !again.Created || again.Result.ImportJobID != first.Result.ImportJobID {
		t.Errorf("replay = %+v, %v; want the first outcome (201) replayed", again, err)
	}
	if n := e.jobCount(t); n != 1 {
		t.Errorf("%d jobs after a replay, want 1", n)
	}
	// Same key, different request.
	_, err = e.svc.ImportTargetJSON(bg, caller, []byte(routable("I2", "")), key)
	if connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyReused {
		t.Errorf("different body: %v, want IdempotencyKeyReused", err)
	}
	// Same key and body on the batch endpoint is a different request.
	_, err = e.svc.ImportBatchJSON(bg, caller, []byte(body), key)
	if connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyReused {
		t.Errorf("other endpoint: %v, want IdempotencyKeyReused", err)
	}
	// A bad key is refused before anything runs.
	_, err = e.svc.ImportTargetJSON(bg, caller, []byte(body), connect.WriteOptions{IdempotencyKey: "bad\x00key"})
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("malformed key: %v, want InvalidRequest", err)
	}
	// Typed calls are idempotent too.
	typed := connect.InboundTarget{ExternalID: "I3", Title: "typed"}
	a, _ := e.svc.ImportTarget(bg, caller, typed, connect.WriteOptions{IdempotencyKey: "typed"})
	b, err := e.svc.ImportTarget(bg, caller, typed, connect.WriteOptions{IdempotencyKey: "typed"})
	if err != nil || !b.Replayed || b.Result.ImportJobID != a.Result.ImportJobID {
		t.Errorf("typed replay = %+v, %v", b, err)
	}
}

// TestIdempotentRequestErrorIsReplayed: a refused request is recorded with its
// key like any other outcome.
func TestIdempotentRequestErrorIsReplayed(t *testing.T) {
	e := newEnv(t)
	key := connect.WriteOptions{IdempotencyKey: "empty-batch"}
	for i, wantReplayed := range []bool{false, true} {
		out, err := e.svc.ImportBatchJSON(bg, caller, []byte(`{"targets":[]}`), key)
		if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || out.Replayed != wantReplayed {
			t.Errorf("call %d: replayed %v, %v", i, out.Replayed, err)
		}
	}
}

// TestConcurrentCallsWithOneKey: 64 goroutines send the same request with the
// same key at once. Exactly one job is created; every caller gets that job's
// result or IdempotencyKeyInUse.
func TestConcurrentCallsWithOneKey(t *testing.T) {
	e := newEnv(t)
	const callers = 64
	body := []byte(`{"batchId":"same","targets":[` + routable("K1", "") + `,` + routable("K2", "") + `]}`)
	outs := make([]connect.ImportOutcome, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range callers {
		wg.Go(func() {
			<-start
			outs[i], errs[i] = e.svc.ImportBatchJSON(bg, caller, body, connect.WriteOptions{IdempotencyKey: "same-key"})
		})
	}
	close(start)
	wg.Wait()
	if n := e.jobCount(t); n != 1 {
		t.Fatalf("%d jobs created, want exactly 1", n)
	}
	jobs, _ := e.svc.ListJobs(bg, caller, connect.JobQuery{})
	jobID := jobs.Jobs[0].ID
	executed := 0
	for i := range callers {
		switch {
		case errs[i] != nil:
			if connect.ErrorCodeOf(errs[i]) != connect.CodeIdempotencyKeyInUse {
				t.Errorf("caller %d: %v", i, errs[i])
			}
		case outs[i].Result.ImportJobID != jobID || outs[i].Result.CreatedItems != 2:
			t.Errorf("caller %d got job %d (%+v), want job %d", i, outs[i].Result.ImportJobID, outs[i].Result.ImportCounters, jobID)
		case !outs[i].Replayed:
			executed++
		}
	}
	if executed != 1 {
		t.Errorf("%d callers executed the import, want 1", executed)
	}
	if e.target(t, "erp", "K1").ID == 0 {
		t.Error("target missing")
	}
	t.Logf("results: %s", summarize(errs))
}

func summarize(errs []error) string {
	inUse := 0
	for _, err := range errs {
		if err != nil {
			inUse++
		}
	}
	return fmt.Sprintf("%d in use, %d with the result", inUse, len(errs)-inUse)
}
