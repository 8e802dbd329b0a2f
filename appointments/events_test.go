package appointments_test

import (
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/storetest"
)

// wantStatusChanged checks that e is the status_changed event of the last
// change of request id, from from.
func (f *fixture) wantStatusChanged(e store.Event, id string, from connect.AppointmentStatus) {
	f.t.Helper()
	history := f.status(id).History
	last := history[len(history)-1]
	want, _ := json.Marshal(connect.AppointmentStatusChangedEvent{ID: id, From: from, To: last.Status, At: last.At, Note: last.Note})
	if e.Kind != connect.EventAppointmentStatusChanged || string(e.Data) != string(want) || !e.CreatedAt.Equal(last.At) {
		f.t.Errorf("event %s %s at %s, want status_changed %s at %s", e.Kind, e.Data, e.CreatedAt, want, last.At)
	}
}

// TestSubmitAppendsCreatedAndStatusChanged: a submit appends
// appointment_request.created with the request as returned, then the
// status_changed of its automatic checks; a replay appends nothing.
func TestSubmitAppendsCreatedAndStatusChanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  connect.NewAppointmentRequest
		to   connect.AppointmentStatus
	}{
		{"Validated", validRequest(), connect.AppointmentValidated},
		{"PendingReview", needsReview(), connect.AppointmentPendingReview},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustOpen(t)
			opts := connect.WriteOptions{IdempotencyKey: "submit-once"}
			out, err := f.svc.SubmitAppointmentRequest(t.Context(), client, tc.req, opts)
			if err == nil {
				_, err = f.svc.SubmitAppointmentRequest(t.Context(), client, tc.req, opts)
			}
			if err != nil || out.Request.Status != tc.to {
				t.Fatalf("submit: %+v, %v", out.Request, err)
			}
			got := storetest.Events(f.t, f.store, client.TenantID)
			if len(got) != 2 {
				t.Fatalf("%d events after a submit and its replay, want 2", len(got))
			}
			want, _ := json.Marshal(out.Request)
			if got[0].Kind != connect.EventAppointmentRequestCreated || string(got[0].Data) != string(want) || !got[0].CreatedAt.Equal(out.Request.CreatedAt) {
				t.Errorf("first event %s %s, want created %s", got[0].Kind, got[0].Data, want)
			}
			f.wantStatusChanged(got[1], out.Request.ID, connect.AppointmentSubmitted)
		})
	}
}

// TestEveryStatusChangeAppendsAnEvent iterates the table: each host action
// and each cancel appends exactly one status_changed event, with the row's
// from and to; a refused action and a second cancel append none.
func TestEveryStatusChangeAppendsAnEvent(t *testing.T) {
	f := mustOpen(t)
	for _, tr := range appointments.Transitions {
		if tr.By == appointments.ActorService {
			continue // TestSubmitAppendsCreatedAndStatusChanged
		}
		id := f.reach(tr.From)
		before := len(storetest.Events(f.t, f.store, client.TenantID))
		f.clock.Advance(time.Minute)
		if err := f.perform(id, tr); err != nil {
			t.Fatalf("%s from %s: %v", tr.Action, tr.From, err)
		}
		got := storetest.Events(f.t, f.store, client.TenantID)
		if len(got) != before+1 {
			t.Errorf("%s from %s appended %d events, want 1", tr.Action, tr.From, len(got)-before)
			continue
		}
		f.wantStatusChanged(got[before], id, tr.From)
		if st := f.status(id).Status; st != tr.To {
			t.Errorf("%s from %s ended in %s", tr.Action, tr.From, st)
		}
	}
	id := f.reach(connect.AppointmentCancelled)
	before := len(storetest.Events(f.t, f.store, client.TenantID))
	if _, err := f.cancel(id, connect.CancelAppointmentRequest{Reason: "again"}); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, id, connect.AppointmentActionAccept, "")
	if connect.ErrorCodeOf(err) != connect.CodeInvalidStateTransition || len(storetest.Events(f.t, f.store, client.TenantID)) != before {
		t.Errorf("a second cancel and a refused accept: %v, %d new events", err, len(storetest.Events(f.t, f.store, client.TenantID))-before)
	}
}
