// Package routesuggest builds draft routes for one technician's day from the
// targets of an import job (endpoint 6), keeps them, and draws them.
//
// The optimizer itself is the subpackage solver, which works on an abstract
// problem; this package is the adapter from targets to that problem
// (candidates, travel times, time windows, values; see plan.go and the README)
// and back to a RouteSuggestion, plus the optimization profiles and employees a
// tenant plans with.
package routesuggest

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Config configures a Service. Zero values take the documented defaults.
type Config struct {
	// Store keeps jobs, targets, suggestions, profiles and employees. Required.
	Store store.Store
	// Travel gives travel times and distances; nil means GreatCircle. A
	// profile whose TravelModel is connect.TravelGreatCircle plans with
	// GreatCircle whatever Travel is.
	Travel TravelModel
	// TravelFallback, when Travel is unavailable (its errors are marked
	// ErrTravelUnavailable), plans with GreatCircle instead and says so in
	// the suggestion (TravelFallback); when false, such a request fails with
	// ServiceUnavailable and may be retried.
	TravelFallback bool
	// Logger receives the faults of the travel model; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IdempotencyRetention is how long idempotency records are kept. Default 24h.
	IdempotencyRetention time.Duration
	// Iterations is the solver's search budget; 0 means solver.DefaultIterations.
	// The route depends on it, never on the clock.
	Iterations int
	// Concurrency is how many suggestions are solved at a time; 0 means one
	// per core (GOMAXPROCS).
	Concurrency int
	// QueueLength is how many suggestions may wait, first in first out, while
	// Concurrency are solved; a request beyond is refused with RateLimited.
	// 0 means DefaultQueueLength; negative means none may wait.
	QueueLength int
}

// Service implements connect.RouteSuggester and manages profiles and employees.
type Service struct {
	cfg   Config
	queue *queue
}

var _ connect.RouteSuggester = (*Service)(nil)

// New returns a Service on cfg.Store.
func New(cfg Config) *Service {
	if cfg.Travel == nil {
		cfg.Travel = GreatCircle{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.IdempotencyRetention <= 0 {
		cfg.IdempotencyRetention = store.DefaultIdempotencyRetention
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = runtime.GOMAXPROCS(0)
	}
	if cfg.QueueLength == 0 {
		cfg.QueueLength = DefaultQueueLength
	}
	return &Service{cfg: cfg, queue: newQueue(cfg.Concurrency, max(cfg.QueueLength, 0))}
}

// Load reports how many suggestions are being solved and how many wait, for
// metrics and health pages.
func (s *Service) Load() Load { return s.queue.load() }

func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

// CreateRouteSuggestion plans the best route for the request's day from the
// job's targets and stores it as a Draft: req's JSON, planned as
// CreateRouteSuggestionJSON plans it. See connect.RouteSuggester.
func (s *Service) CreateRouteSuggestion(ctx context.Context, caller connect.Caller, jobID int64, req connect.CreateImportJobRouteSuggestionRequest, opts connect.WriteOptions) (connect.RouteSuggestionOutcome, error) {
	body, err := connect.EncodeRequest(req)
	if err != nil {
		return connect.RouteSuggestionOutcome{}, err
	}
	return s.CreateRouteSuggestionJSON(ctx, caller, jobID, body, opts)
}

// CreateRouteSuggestionJSON decodes the body of endpoint 6 and creates a
// suggestion. The solver runs outside any store transaction; the suggestion
// and the idempotency record are written together. See
// connect.RouteSuggester.
//
// A request is solved when the queue gives it a solver (DECISIONS.md
// "Bounded cost of every request"). Like 401 and 403, a RateLimited refusal
// is decided before idempotency, so it is never recorded and a retry with the
// same key runs; a caller that leaves while waiting gives up its place, and
// one that leaves while solving stops the solve (the solver watches ctx).
func (s *Service) CreateRouteSuggestionJSON(ctx context.Context, caller connect.Caller, jobID int64, body []byte, opts connect.WriteOptions) (connect.RouteSuggestionOutcome, error) {
	if err := caller.RequireScope(connect.Required.CreateRouteSuggestion); err != nil {
		return connect.RouteSuggestionOutcome{}, err
	}
	w := store.Write{
		Caller: caller, Key: opts.IdempotencyKey, Operation: fmt.Sprintf("POST /import-jobs/%d/route-suggestion", jobID),
		Body: body, Now: s.now(), Retention: s.cfg.IdempotencyRetention,
	}
	claim, err := store.ClaimWrite[connect.CreateRouteSuggestionResponse](ctx, s.cfg.Store, w)
	if err != nil {
		return connect.RouteSuggestionOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return routeOutcome(claim.Replay())
	}
	req, err := decodeRequest(body)
	if err != nil {
		return routeOutcome(claim.Fail(ctx, err))
	}
	// Only new, valid work queues for a solver: a replay or a refusal answers
	// at once. A full queue's 429 is not recorded (it does not answer every
	// retry).
	leave, err := s.queue.enter(ctx)
	if err != nil {
		return connect.RouteSuggestionOutcome{}, err
	}
	defer leave()
	suggestion, included, err := s.suggest(ctx, caller.TenantID, jobID, req, w.Now)
	if err != nil {
		return routeOutcome(claim.Fail(ctx, err))
	}
	return routeOutcome(claim.Commit(ctx, func(tx store.Tx) (connect.CreateRouteSuggestionResponse, bool, error) {
		rec := &store.RouteSuggestion{TenantID: caller.TenantID, RouteSuggestion: suggestion}
		if err := tx.CreateRouteSuggestion(rec); err != nil {
			return connect.CreateRouteSuggestionResponse{}, false, err
		}
		resp := connect.CreateRouteSuggestionResponse{
			RouteSuggestionID: rec.ID, Status: rec.Status, IncludedTargets: included, ExcludedTargets: len(rec.Excluded),
		}
		return resp, true, store.AppendEvent(tx, caller.TenantID, connect.EventRouteSuggestionCreated, rec.CreatedAtUtc, connect.RouteSuggestionCreatedEvent{
			RouteSuggestionID: rec.ID, ImportJobID: rec.ImportJobID, RouteDate: rec.RouteDate, Status: rec.Status,
			IncludedTargets: resp.IncludedTargets, ExcludedTargets: resp.ExcludedTargets,
		})
	}))
}

func routeOutcome(out store.Outcome[connect.CreateRouteSuggestionResponse], err error) (connect.RouteSuggestionOutcome, error) {
	return connect.RouteSuggestionOutcome{Response: out.Value, Replayed: out.Replayed}, err
}

// decodeRequest decodes the body of endpoint 6, checks it and clamps its
// optional bounds. Members that are not in the schema are ignored:
// DECISIONS.md lets endpoint 6 answer 400 only for the route date.
func decodeRequest(body []byte) (connect.CreateImportJobRouteSuggestionRequest, error) {
	var req connect.CreateImportJobRouteSuggestionRequest
	if err := connect.DecodeObject(body, &req, "route suggestion request"); err != nil {
		return req, err
	}
	return normalize(req)
}

// Bounds of the optional request fields; values outside are clamped, as the
// list endpoints clamp skip and take.
const (
	maxBufferMinutes = 480
	maxStopsLimit    = 1000
)

// normalize checks the route date, the one field a request cannot do without,
// and clamps the optional bounds.
func normalize(req connect.CreateImportJobRouteSuggestionRequest) (connect.CreateImportJobRouteSuggestionRequest, error) {
	if req.RouteDate.IsZero() {
		return req, connect.Errorf(connect.CodeInvalidRequest, "routeDate is required, a date such as 2026-11-21")
	}
	if err := connect.Validate(req); err != nil {
		return req, err
	}
	if b := req.MinimumBufferMinutes; b != nil {
		req.MinimumBufferMinutes = new(min(max(*b, 0), maxBufferMinutes))
	}
	if m := req.MaxStops; m != nil {
		req.MaxStops = new(min(max(*m, 1), maxStopsLimit))
	}
	return req, nil
}
