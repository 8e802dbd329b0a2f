package appointments

import (
	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// created appends the events of a submit to tx: appointment_request.created
// with the request as stored, then the status_changed of the automatic checks
// that moved it on from Submitted.
func created(tx store.Tx, rec *store.AppointmentRequest) error {
	if err := store.AppendEvent(tx, rec.TenantID, connect.EventAppointmentRequestCreated, rec.CreatedAt, rec.AppointmentRequest); err != nil {
		return err
	}
	return statusChanged(tx, rec, connect.AppointmentSubmitted)
}

// statusChanged appends appointment_request.status_changed for the last
// entry of rec's history, which moved it from status from, to tx. Every call
// that changes a status calls it in the same transaction, so webhook
// receivers see every change, in order.
func statusChanged(tx store.Tx, rec *store.AppointmentRequest, from connect.AppointmentStatus) error {
	last := rec.History[len(rec.History)-1]
	return store.AppendEvent(tx, rec.TenantID, connect.EventAppointmentStatusChanged, last.At, connect.AppointmentStatusChangedEvent{
		ID: rec.ID, From: from, To: last.Status, At: last.At, Note: last.Note,
	})
}
