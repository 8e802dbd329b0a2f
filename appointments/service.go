// Package appointments keeps appointment requests, the preview resource of
// Connect API v1: Integration Clients submit, read and cancel them; host
// applications move them through the lifecycle, which is the table Transitions,
// and list them by status. It implements connect.AppointmentService.
//
// Every write runs through a store.Claim, so a request, its status history
// and the idempotency record are committed in one transaction, and every
// read-modify-write of a request happens inside that one transaction: concurrent
// cancels and transitions are applied one after the other, never lost.
package appointments

import (
	"context"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store"
)

// IDPrefix starts every appointment request id, so an id says what it names.
const IDPrefix = "apr_"

// The operation of a submit: with the body, the fingerprint of an idempotent
// submit.
const operationSubmit = "POST /connect/v1/appointment-requests"

// Config configures a Service. Zero values take the documented defaults.
type Config struct {
	// Store keeps the requests and idempotency records. Required.
	Store store.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IdempotencyRetention is how long idempotency records are kept. Default 24h.
	IdempotencyRetention time.Duration
	// CustomerCheck recognises the customer of a submitted request; an
	// unrecognised one sends the request to PendingReview. It runs only when the
	// caller holds customers.map. Nil means mapping.RecognizeCustomer, which
	// looks the customer and location up among the tenant's customer records.
	CustomerCheck Checker
}

// Service keeps appointment requests.
type Service struct {
	cfg Config
	ids store.IDs
}

var _ connect.AppointmentService = (*Service)(nil)

// New returns a Service on cfg.Store.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.IdempotencyRetention <= 0 {
		cfg.IdempotencyRetention = store.DefaultIdempotencyRetention
	}
	if cfg.CustomerCheck == nil {
		cfg.CustomerCheck = mapping.RecognizeCustomer
	}
	return &Service{cfg: cfg}
}

// now is the clock in UTC at the precision that survives JSON round trips.
func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

// SubmitAppointmentRequest submits a request given as a Go value: its JSON,
// submitted as SubmitAppointmentRequestJSON submits it. See
// connect.AppointmentService.
func (s *Service) SubmitAppointmentRequest(ctx context.Context, caller connect.Caller, req connect.NewAppointmentRequest, opts connect.WriteOptions) (connect.AppointmentOutcome, error) {
	body, err := connect.EncodeRequest(req)
	if err != nil {
		return connect.AppointmentOutcome{}, err
	}
	return s.SubmitAppointmentRequestJSON(ctx, caller, body, opts)
}

// SubmitAppointmentRequestJSON submits a request given as JSON (the body of POST
// /connect/v1/appointment-requests). See connect.AppointmentService.
func (s *Service) SubmitAppointmentRequestJSON(ctx context.Context, caller connect.Caller, body []byte, opts connect.WriteOptions) (connect.AppointmentOutcome, error) {
	if err := caller.RequireScope(connect.Required.SubmitAppointment); err != nil {
		return connect.AppointmentOutcome{}, err
	}
	claim, err := store.ClaimWrite[connect.AppointmentRequest](ctx, s.cfg.Store, s.write(caller, opts, operationSubmit, body))
	if err != nil {
		return connect.AppointmentOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return submitOutcome(claim.Replay())
	}
	req, err := decodeSubmit(body)
	if err != nil {
		return submitOutcome(claim.Fail(ctx, err))
	}
	id, err := s.ids.Next(IDPrefix, s.cfg.Now())
	if err != nil {
		return submitOutcome(claim.Fail(ctx, err))
	}
	return submitOutcome(claim.Commit(ctx, s.create(ctx, caller, id, req)))
}

func submitOutcome(out store.Outcome[connect.AppointmentRequest], err error) (connect.AppointmentOutcome, error) {
	return connect.AppointmentOutcome{Request: out.Value, Replayed: out.Replayed}, err
}

// decodeSubmit decodes, normalizes and validates a submitted request.
func decodeSubmit(body []byte) (connect.NewAppointmentRequest, error) {
	var req connect.NewAppointmentRequest
	if err := decodeBody(body, &req, submitLimits); err != nil {
		return req, err
	}
	req, err := normalize(req)
	if err != nil {
		return req, err
	}
	return req, connect.Validate(req)
}

// create is the transactional part of a submit: the request is created
// Submitted and the automatic checks move it on before it is stored, so no
// reader ever sees it unchecked; its webhook events are appended with it. It
// starts afresh every time it runs.
func (s *Service) create(ctx context.Context, caller connect.Caller, id string, req connect.NewAppointmentRequest) store.TxFunc[connect.AppointmentRequest] {
	return func(tx store.Tx) (connect.AppointmentRequest, bool, error) {
		now := s.now()
		rec := &store.AppointmentRequest{TenantID: caller.TenantID, ClientID: caller.ClientID}
		rec.ID, rec.NewAppointmentRequest, rec.CreatedAt = id, req, now
		record(rec, connect.AppointmentSubmitted, now, "submitted by client "+caller.ClientID)
		action, note, err := s.check(ctx, tx, caller, &rec.AppointmentRequest)
		if err != nil {
			return connect.AppointmentRequest{}, false, err
		}
		if err := apply(rec, action, now, note); err != nil {
			return connect.AppointmentRequest{}, false, err
		}
		if err := tx.CreateAppointmentRequest(rec); err != nil {
			return connect.AppointmentRequest{}, false, err
		}
		if err := created(tx, rec); err != nil {
			return connect.AppointmentRequest{}, false, err
		}
		return rec.AppointmentRequest, true, nil
	}
}

// normalize gives a request its stored form: the default priority, time windows
// in UTC, metadata compacted and a null metadata absent. It copies what it
// changes, so the caller's value stays as it was.
func normalize(req connect.NewAppointmentRequest) (connect.NewAppointmentRequest, error) {
	if req.Priority == "" {
		req.Priority = connect.AppointmentPriorityNormal
	}
	windows := make([]connect.AppointmentTimeWindow, len(req.PreferredTimeWindows))
	for i, w := range req.PreferredTimeWindows {
		windows[i] = connect.AppointmentTimeWindow{StartUtc: w.StartUtc.UTC(), EndUtc: w.EndUtc.UTC()}
	}
	req.PreferredTimeWindows = windows
	var err error
	req.Metadata, err = compactMetadata(req.Metadata)
	return req, err
}

// compactMetadata returns metadata without white space, so its size limit
// counts content only; nil when it is absent or null.
func compactMetadata(m jsontext.Value) (jsontext.Value, error) {
	if len(m) == 0 {
		return nil, nil
	}
	m = m.Clone()
	if err := m.Compact(jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)); err != nil {
		return nil, connect.Errorf(connect.CodeInvalidRequest, "metadata is not valid JSON")
	}
	if m.Kind() == 'n' {
		return nil, nil
	}
	return m, nil
}

// GetAppointmentRequest returns one request of the caller's tenant. See
// connect.AppointmentService.
func (s *Service) GetAppointmentRequest(ctx context.Context, caller connect.Caller, id string) (connect.AppointmentRequest, error) {
	rec, err := s.read(ctx, caller, id)
	if err != nil {
		return connect.AppointmentRequest{}, err
	}
	return rec.AppointmentRequest, nil
}

// AppointmentRequestStatus returns a request's status and history. See
// connect.AppointmentService.
func (s *Service) AppointmentRequestStatus(ctx context.Context, caller connect.Caller, id string) (connect.AppointmentStatusResponse, error) {
	rec, err := s.read(ctx, caller, id)
	if err != nil {
		return connect.AppointmentStatusResponse{}, err
	}
	return statusOf(rec), nil
}

func (s *Service) read(ctx context.Context, caller connect.Caller, id string) (*store.AppointmentRequest, error) {
	if err := caller.RequireScope(connect.Required.ReadAppointments); err != nil {
		return nil, err
	}
	var rec *store.AppointmentRequest
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		rec, err = load(tx, caller.TenantID, id)
		return err
	})
	return rec, err
}

// load returns a request of a tenant. An unknown id and another tenant's id get
// the same NotFound, so ids of other tenants cannot be probed.
func load(tx store.Tx, tenantID, id string) (*store.AppointmentRequest, error) {
	rec, err := tx.AppointmentRequest(tenantID, id)
	if errors.Is(err, connect.ErrNotFound) {
		return nil, connect.Errorf(connect.CodeNotFound, "appointment request %s not found", connect.Quote(id))
	}
	return rec, err
}

func statusOf(rec *store.AppointmentRequest) connect.AppointmentStatusResponse {
	return connect.AppointmentStatusResponse{ID: rec.ID, Status: rec.Status, UpdatedAt: rec.UpdatedAt, History: rec.History}
}

// write describes a write of the service for the idempotent write path.
func (s *Service) write(caller connect.Caller, opts connect.WriteOptions, operation string, body []byte) store.Write {
	return store.Write{
		Caller: caller, Key: opts.IdempotencyKey, Operation: operation, Body: body,
		Now: s.now(), Retention: s.cfg.IdempotencyRetention,
	}
}
