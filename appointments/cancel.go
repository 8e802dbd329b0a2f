package appointments

import (
	"context"
	"fmt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// operationCancel is the operation of a cancel. It holds the id, so one key
// used to cancel two different requests is refused as reused.
func operationCancel(id string) string {
	return fmt.Sprintf("POST /connect/v1/appointment-requests/%s/cancel", id)
}

// CancelAppointmentRequest cancels a request of the caller's tenant, given the
// body as a Go value: its JSON, applied as CancelAppointmentRequestJSON applies
// it. See connect.AppointmentService.
func (s *Service) CancelAppointmentRequest(ctx context.Context, caller connect.Caller, id string, req connect.CancelAppointmentRequest, opts connect.WriteOptions) (connect.CancelAppointmentOutcome, error) {
	body, err := connect.EncodeRequest(req)
	if err != nil {
		return connect.CancelAppointmentOutcome{}, err
	}
	return s.CancelAppointmentRequestJSON(ctx, caller, id, body, opts)
}

// CancelAppointmentRequestJSON cancels a request of the caller's tenant, given
// the body as JSON (the body of POST …/{id}/cancel). See
// connect.AppointmentService.
func (s *Service) CancelAppointmentRequestJSON(ctx context.Context, caller connect.Caller, id string, body []byte, opts connect.WriteOptions) (connect.CancelAppointmentOutcome, error) {
	if err := caller.RequireScope(connect.Required.CancelAppointment); err != nil {
		return connect.CancelAppointmentOutcome{}, err
	}
	claim, err := store.ClaimWrite[connect.CancelAppointmentResponse](ctx, s.cfg.Store, s.write(caller, opts, operationCancel(id), body))
	if err != nil {
		return connect.CancelAppointmentOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return cancelOutcome(claim.Replay())
	}
	req, err := decodeCancel(body)
	if err != nil {
		return cancelOutcome(claim.Fail(ctx, err))
	}
	return cancelOutcome(claim.Commit(ctx, s.cancelTx(caller.TenantID, id, req)))
}

func cancelOutcome(out store.Outcome[connect.CancelAppointmentResponse], err error) (connect.CancelAppointmentOutcome, error) {
	return connect.CancelAppointmentOutcome{Response: out.Value, Replayed: out.Replayed}, err
}

// decodeCancel decodes and validates a cancel request, with its default
// cancelledBy.
func decodeCancel(body []byte) (connect.CancelAppointmentRequest, error) {
	var req connect.CancelAppointmentRequest
	if err := decodeBody(body, &req, connect.Limits{What: "cancel request"}); err != nil {
		return req, err
	}
	if req.CancelledBy == "" {
		req.CancelledBy = connect.CancelledByClient
	}
	return req, connect.Validate(req)
}

// cancelTx reads, checks and writes the request in one transaction, so a
// concurrent transition comes either before it (and may forbid the cancel) or
// after it (and finds the request Cancelled); neither is lost.
func (s *Service) cancelTx(tenantID, id string, req connect.CancelAppointmentRequest) store.TxFunc[connect.CancelAppointmentResponse] {
	return func(tx store.Tx) (connect.CancelAppointmentResponse, bool, error) {
		rec, err := load(tx, tenantID, id)
		if err != nil {
			return connect.CancelAppointmentResponse{}, false, err
		}
		if rec.Status == connect.AppointmentCancelled {
			return cancellation(rec), false, nil // the original cancellation, not a new one
		}
		from := rec.Status
		note := fmt.Sprintf("cancelled by %s: %s", req.CancelledBy, req.Reason)
		if err := apply(rec, connect.AppointmentActionCancel, s.now(), note); err != nil {
			return connect.CancelAppointmentResponse{}, false, err
		}
		at := rec.UpdatedAt
		rec.CancelledAt, rec.CancelReason, rec.CancelledBy = &at, &req.Reason, &req.CancelledBy
		if err := tx.PutAppointmentRequest(rec); err != nil {
			return connect.CancelAppointmentResponse{}, false, err
		}
		if err := statusChanged(tx, rec, from); err != nil {
			return connect.CancelAppointmentResponse{}, false, err
		}
		return cancellation(rec), false, nil
	}
}

func cancellation(rec *store.AppointmentRequest) connect.CancelAppointmentResponse {
	resp := connect.CancelAppointmentResponse{ID: rec.ID, Status: rec.Status, CancelledAt: rec.UpdatedAt}
	if rec.CancelledAt != nil {
		resp.CancelledAt = *rec.CancelledAt
	}
	return resp
}
