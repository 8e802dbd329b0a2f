package appointments_test

import (
	"context"
	"fmt"
	"os"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/store/bolt"
)

// An integration client submits a request, the host application accepts and
// schedules it, and the client cancels it.
func Example() {
	dir, err := os.MkdirTemp("", "appointments-example-*")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := bolt.OpenDir(dir, nil)
	if err != nil {
		panic(err)
	}
	defer db.Close()

	ctx := context.Background()
	svc := appointments.New(appointments.Config{Store: db})
	caller := connect.Caller{TenantID: "acme", ClientID: "erp-demo", Scopes: []connect.Scope{
		connect.ScopeAppointmentRequestsWrite, connect.ScopeAppointmentRequestsRead,
	}}

	out, err := svc.SubmitAppointmentRequestJSON(ctx, caller, []byte(`{
	  "externalReference": "SR-1001",
	  "serviceType": "maintenance",
	  "location": {"city": "Berlin", "latitude": 52.52, "longitude": 13.405},
	  "preferredTimeWindows": [{"startUtc": "2026-11-23T08:00:00Z", "endUtc": "2026-11-23T12:00:00Z"}]
	}`), connect.WriteOptions{IdempotencyKey: "SR-1001"})
	if err != nil {
		panic(err)
	}
	id := out.Request.ID
	fmt.Println("submitted:", out.Request.Status, "priority", out.Request.Priority)

	if _, err := svc.TransitionAppointmentRequest(ctx, "acme", id, connect.AppointmentActionAccept, "confirmed by phone"); err != nil {
		panic(err)
	}
	if _, err := svc.TransitionAppointmentRequest(ctx, "acme", id, connect.AppointmentActionSchedule, "2026-11-23 09:00"); err != nil {
		panic(err)
	}
	_, err = svc.CancelAppointmentRequestJSON(ctx, caller, id, []byte(`{"reason": "customer moved the visit to next year"}`), connect.WriteOptions{})
	if err != nil {
		panic(err)
	}
	_, err = svc.TransitionAppointmentRequest(ctx, "acme", id, connect.AppointmentActionAssign, "")
	fmt.Println("assign after cancel:", connect.ErrorCodeOf(err))

	st, err := svc.AppointmentRequestStatus(ctx, caller, id)
	if err != nil {
		panic(err)
	}
	for _, change := range st.History {
		note := ""
		if change.Note != nil {
			note = *change.Note
		}
		fmt.Printf("%-10s %s\n", change.Status, note)
	}
	// Output:
	// submitted: Validated priority normal
	// assign after cancel: InvalidStateTransition
	// Submitted  submitted by client erp-demo
	// Validated  automatic checks passed
	// Accepted   confirmed by phone
	// Scheduled  2026-11-23 09:00
	// Cancelled  cancelled by client: customer moved the visit to next year
}

// The lifecycle table, as the documentation shows it.
func ExampleTransitions() {
	fmt.Print(appointments.TransitionsMarkdown())
	// Output:
	// | from | action | to | by |
	// |---|---|---|---|
	// | Submitted | validate | Validated | service |
	// | Submitted | review | PendingReview | service |
	// | Validated | accept | Accepted | host |
	// | Validated | reject | Rejected | host |
	// | PendingReview | accept | Accepted | host |
	// | PendingReview | reject | Rejected | host |
	// | Accepted | schedule | Scheduled | host |
	// | Scheduled | assign | Assigned | host |
	// | Assigned | start | InProgress | host |
	// | InProgress | complete | Completed | host |
	// | Submitted | fail | Failed | host |
	// | Validated | fail | Failed | host |
	// | PendingReview | fail | Failed | host |
	// | Accepted | fail | Failed | host |
	// | Scheduled | fail | Failed | host |
	// | Assigned | fail | Failed | host |
	// | InProgress | fail | Failed | host |
	// | Submitted | cancel | Cancelled | client |
	// | Validated | cancel | Cancelled | client |
	// | PendingReview | cancel | Cancelled | client |
	// | Accepted | cancel | Cancelled | client |
	// | Scheduled | cancel | Cancelled | client |
	// | Assigned | cancel | Cancelled | client |
}
