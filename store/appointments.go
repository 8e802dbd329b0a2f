package store

import "github.com/integration-connect/connect"

// AppointmentTx stores appointment requests. Lookups are by tenant and id, so
// another tenant's id is simply not found.
type AppointmentTx interface {
	// CreateAppointmentRequest stores a new request. Ids are chosen by the
	// service; an id that is already stored is refused as an internal fault.
	CreateAppointmentRequest(r *AppointmentRequest) error
	// AppointmentRequest returns a request of a tenant by id.
	AppointmentRequest(tenantID, id string) (*AppointmentRequest, error)
	// PutAppointmentRequest replaces an existing request, found by tenant and
	// id, and keeps the listing by status current.
	PutAppointmentRequest(r *AppointmentRequest) error
	// AppointmentRequests returns up to limit requests of a tenant with status
	// (every status when empty) whose id sorts after after (from the first when
	// empty), in id order. Its cost grows with limit, not with the number of
	// requests in the store.
	AppointmentRequests(tenantID string, status connect.AppointmentStatus, after string, limit int) ([]AppointmentRequest, error)
}

// AppointmentRequest is an appointment request as stored: the record, the client
// that submitted it, and its complete status history, oldest first.
type AppointmentRequest struct {
	TenantID string `json:"tenantId"`
	ClientID string `json:"clientId"`
	connect.AppointmentRequest
	History []connect.AppointmentStatusChange `json:"history"`
}
