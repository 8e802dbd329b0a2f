package appointments

import (
	"context"
	"strings"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// TransitionAppointmentRequest performs a host action on a request of
// tenantID. Errors: InvalidRequest (not a host action), NotFound,
// InvalidStateTransition. See connect.AppointmentService.
func (s *Service) TransitionAppointmentRequest(ctx context.Context, tenantID, id string, action connect.AppointmentAction, note string) (connect.AppointmentStatusResponse, error) {
	if err := requireHostAction(action); err != nil {
		return connect.AppointmentStatusResponse{}, err
	}
	var status connect.AppointmentStatusResponse
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) (err error) {
		status, err = s.transition(tx, tenantID, id, action, note)
		return err
	})
	return status, err
}

// transition reads, checks and writes the request in one transaction, like
// cancelTx, so concurrent actions on one request are applied one after the
// other.
func (s *Service) transition(tx store.Tx, tenantID, id string, action connect.AppointmentAction, note string) (connect.AppointmentStatusResponse, error) {
	rec, err := load(tx, tenantID, id)
	if err != nil {
		return connect.AppointmentStatusResponse{}, err
	}
	from := rec.Status
	if err := apply(rec, action, s.now(), note); err != nil {
		return connect.AppointmentStatusResponse{}, err
	}
	if err := tx.PutAppointmentRequest(rec); err != nil {
		return connect.AppointmentStatusResponse{}, err
	}
	if err := statusChanged(tx, rec, from); err != nil {
		return connect.AppointmentStatusResponse{}, err
	}
	return statusOf(rec), nil
}

// ListAppointmentRequests returns one page of a tenant's requests with status,
// in id order, through the store's status index. An unknown status is
// InvalidRequest. See connect.AppointmentService.
func (s *Service) ListAppointmentRequests(ctx context.Context, tenantID string, status connect.AppointmentStatus, after string, limit int) (connect.AppointmentRequestPage, error) {
	if status != "" && !status.Valid() {
		return connect.AppointmentRequestPage{}, connect.Errorf(connect.CodeInvalidRequest,
			"unknown status %s; the statuses are %s", connect.Quote(string(status)), statusNames())
	}
	limit = connect.PageLimit(limit)
	page := connect.AppointmentRequestPage{Requests: []connect.AppointmentRequest{}}
	err := s.cfg.Store.View(ctx, func(tx store.Tx) error {
		// One more than asked tells whether a next page exists.
		recs, err := tx.AppointmentRequests(tenantID, status, after, limit+1)
		if len(recs) > limit {
			recs = recs[:limit]
			page.Next = recs[limit-1].ID
		}
		for _, r := range recs {
			page.Requests = append(page.Requests, r.AppointmentRequest)
		}
		return err
	})
	return page, err
}

func statusNames() string {
	names := make([]string, len(connect.AppointmentStatuses))
	for i, st := range connect.AppointmentStatuses {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}
