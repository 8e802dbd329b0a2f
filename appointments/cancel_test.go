package appointments_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/integration-connect/connect"
)

func TestCancelFromEachCancellableStatus(t *testing.T) {
	f := mustOpen(t)
	for _, from := range cancellable() {
		t.Run(string(from), func(t *testing.T) {
			id := f.reach(from)
			f.clock.Advance(time.Minute)
			cancelledAt := f.clock.Now()
			resp, err := f.cancel(id, connect.CancelAppointmentRequest{Reason: "customer moved away", CancelledBy: connect.CancelledByCustomer})
			if err != nil {
				t.Fatalf("cancel from %s: %v", from, err)
			}
			want := connect.CancelAppointmentResponse{ID: id, Status: connect.AppointmentCancelled, CancelledAt: cancelledAt}
			if resp != want {
				t.Errorf("response %+v, want %+v", resp, want)
			}
			r := f.get(id)
			if r.Status != connect.AppointmentCancelled || !r.CancelledAt.Equal(cancelledAt) || *r.CancelReason != "customer moved away" ||
				*r.CancelledBy != connect.CancelledByCustomer || !r.UpdatedAt.Equal(cancelledAt) {
				t.Errorf("record after cancel: status %s cancelledAt %v reason %v by %v", r.Status, r.CancelledAt, r.CancelReason, r.CancelledBy)
			}
			st := f.status(id)
			last := st.History[len(st.History)-1]
			if last.Status != connect.AppointmentCancelled || !last.At.Equal(cancelledAt) || *last.Note != "cancelled by customer: customer moved away" {
				t.Errorf("last history entry %s %s %v", last.Status, last.At, *last.Note)
			}
			checkHistory(t, st)
		})
	}
}

func TestCancelIsRefusedOnceWorkStarted(t *testing.T) {
	f := mustOpen(t)
	tests := []struct {
		from connect.AppointmentStatus
		msg  string
	}{
		{connect.AppointmentInProgress, "it is InProgress, and cancel is allowed only from Submitted, Validated, PendingReview, Accepted, Scheduled, Assigned"},
		{connect.AppointmentCompleted, "it is Completed, a final status"},
		{connect.AppointmentRejected, "it is Rejected, a final status"},
		{connect.AppointmentFailed, "it is Failed, a final status"},
	}
	for _, tc := range tests {
		id := f.reach(tc.from)
		before := f.status(id)
		_, err := f.cancel(id, connect.CancelAppointmentRequest{Reason: "too late"})
		wantError(t, "cancel from "+string(tc.from), err, connect.CodeInvalidStateTransition,
			fmt.Sprintf("cannot cancel appointment request %s: %s", id, tc.msg))
		r := f.get(id)
		if after := f.status(id); after.Status != tc.from || len(after.History) != len(before.History) || r.CancelledAt != nil || r.CancelReason != nil {
			t.Errorf("a refused cancel changed a %s request: %+v", tc.from, r)
		}
	}
}

// TestCancelTwice: the second cancel answers the original cancellation and
// changes nothing.
func TestCancelTwice(t *testing.T) {
	f := mustOpen(t)
	id := f.reach(connect.AppointmentScheduled)
	f.clock.Set(t0.Add(time.Hour))
	first, err := f.cancel(id, connect.CancelAppointmentRequest{Reason: "first"})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Set(t0.Add(2 * time.Hour))
	second, err := f.cancel(id, connect.CancelAppointmentRequest{Reason: "second", CancelledBy: connect.CancelledByOperator})
	if err != nil {
		t.Fatalf("second cancel: %v", err)
	}
	want := connect.CancelAppointmentResponse{ID: id, Status: connect.AppointmentCancelled, CancelledAt: t0.Add(time.Hour)}
	if first != want || second != want {
		t.Errorf("responses %+v and %+v, want both %+v", first, second, want)
	}
	r := f.get(id)
	if *r.CancelReason != "first" || *r.CancelledBy != connect.CancelledByClient || !r.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("the second cancel changed the record: reason %q by %s updated %s", *r.CancelReason, *r.CancelledBy, r.UpdatedAt)
	}
	if h := f.status(id).History; historyString(h) != "Submitted → Validated → Accepted → Scheduled → Cancelled" {
		t.Errorf("history %s", historyString(h))
	}
}

func TestCancelIdempotency(t *testing.T) {
	f := mustOpen(t)
	id := f.reach(connect.AppointmentValidated)
	other := f.reach(connect.AppointmentValidated)
	key := connect.WriteOptions{IdempotencyKey: "cancel-1"}
	cancelJSON := func(id, body string) (connect.CancelAppointmentOutcome, error) {
		return f.svc.CancelAppointmentRequestJSON(t.Context(), client, id, []byte(body), key)
	}

	f.clock.Set(t0.Add(time.Hour))
	first, err := cancelJSON(id, `{"reason":"duplicate request","cancelledBy":"operator"}`)
	want := connect.CancelAppointmentResponse{ID: id, Status: connect.AppointmentCancelled, CancelledAt: t0.Add(time.Hour)}
	if err != nil || first.Replayed || first.Response != want {
		t.Fatalf("first cancel = %+v, %v", first, err)
	}

	f.clock.Set(t0.Add(2 * time.Hour))
	again, err := cancelJSON(id, "{\n  \"cancelledBy\": \"operator\",\n  \"reason\": \"duplicate request\"\n}")
	if err != nil || !again.Replayed || again.Response != want {
		t.Errorf("same key, same body = %+v, %v; want the first response replayed", again, err)
	}
	_, err = cancelJSON(id, `{"reason":"another reason","cancelledBy":"operator"}`)
	wantError(t, "same key, other body", err, connect.CodeIdempotencyKeyReused, "")
	_, err = cancelJSON(other, `{"reason":"duplicate request","cancelledBy":"operator"}`)
	wantError(t, "same key and body, other request", err, connect.CodeIdempotencyKeyReused, "")

	if h := f.status(id).History; historyString(h) != "Submitted → Validated → Cancelled" || *h[2].Note != "cancelled by operator: duplicate request" {
		t.Errorf("history %s: the cancel ran more than once or with the wrong body", changesString(h))
	}
	if st := f.status(other); st.Status != connect.AppointmentValidated {
		t.Errorf("the other request is %s", st.Status)
	}
}

// TestRefusedCancelIsReplayed: a refusal is an answer too; the same key gets
// it again even after the refusing status has changed.
func TestRefusedCancelIsReplayed(t *testing.T) {
	f := mustOpen(t)
	id := f.reach(connect.AppointmentInProgress)
	key := connect.WriteOptions{IdempotencyKey: "cancel-late"}
	req := connect.CancelAppointmentRequest{Reason: "too late"}
	_, err := f.svc.CancelAppointmentRequest(t.Context(), client, id, req, key)
	wantError(t, "cancel InProgress", err, connect.CodeInvalidStateTransition, "")
	out, err := f.svc.CancelAppointmentRequest(t.Context(), client, id, req, key)
	wantError(t, "retried cancel", err, connect.CodeInvalidStateTransition, "")
	if !out.Replayed {
		t.Error("the retried refusal is not marked as replayed")
	}
}

func TestCancelValidation(t *testing.T) {
	f := mustOpen(t)
	id := f.reach(connect.AppointmentValidated)
	tests := []struct {
		name string
		body string
		msg  string
	}{
		{"reason missing", `{"cancelledBy":"client"}`, "reason is required and must not be blank"},
		{"reason blank", `{"reason":"  "}`, "reason is required and must not be blank"},
		{"reason too long", `{"reason":"` + strings.Repeat("x", 501) + `"}`, "reason must be at most 500 characters"},
		{"bad cancelledBy", `{"reason":"r","cancelledBy":"robot"}`, "cancelledBy must be one of: client, customer, operator"},
		{"cancelledBy case", `{"reason":"r","cancelledBy":"Client"}`, "cancelledBy must be one of: client, customer, operator"},
		{"unknown field", `{"reason":"r","by":"client"}`, "by is not a field of the cancel request (field names are case-sensitive)"},
		{"wrong type", `{"reason":42}`, "reason must be a string, not a number"},
		{"not an object", `"cancel"`, "the cancel request must be a JSON object"},
		{"not JSON", `reason=r`, "the cancel request is not valid JSON: invalid character 'r' at start of value"},
		{"empty body", ``, "the cancel request is not valid JSON"},
		// DECISIONS.md "Bounded cost of every request": strict envelopes.
		{"reason twice", `{"reason":"a","reason":"b"}`, "reason is given twice"},
		{"invalid UTF-8", "{\"reason\":\"caf\xe9\"}", "reason must be valid UTF-8"},
		{"invalid UTF-8 in a name", "{\"reason\":\"r\",\"\xff\":1}", "a member name of the cancel request is not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.CancelAppointmentRequestJSON(t.Context(), client, id, []byte(tc.body), connect.WriteOptions{})
			wantError(t, tc.name, err, connect.CodeInvalidRequest, tc.msg)
		})
	}
	_, err := f.cancel(id, connect.CancelAppointmentRequest{Reason: strings.Repeat("é", 500)})
	if err != nil {
		t.Errorf("500 characters (1000 bytes) of reason: %v", err)
	}
	if st := f.status(id); st.Status != connect.AppointmentCancelled || len(st.History) != 3 {
		t.Errorf("after the invalid cancels and one valid: %s %s", st.Status, historyString(st.History))
	}
}
