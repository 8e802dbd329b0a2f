// Package httpapi is the REST host of Integration Connect: an http.Handler that
// authenticates, decodes, calls the library's services and encodes. Every rule of
// the contract that is not about HTTP (validation, batch semantics, idempotency)
// lives in the library; what lives here is each HTTP rule in one place: the route
// table (scope and rate limit per route), the error → status table, the
// correlation id, the body limit, and the metrics.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
)

// Defaults of Config.
const (
	DefaultBasePath     = "/api/v1"
	DefaultMaxBodyBytes = 10 << 20
	DefaultRateLimit    = rate.Limit(50)
	DefaultRateBurst    = 100
)

// AppointmentsBasePath is where the appointment request preview lives, whatever
// the import API's base path is.
const AppointmentsBasePath = "/connect/v1"

// Config configures a Handler. Zero values take the documented defaults.
type Config struct {
	// BasePath prefixes the import API's routes. Default /api/v1.
	BasePath string
	// Clients authenticates API keys. Required.
	Clients connect.ClientRegistry
	// Importer imports targets (endpoints 2 and 3). Required.
	Importer connect.Importer
	// Jobs reads import jobs (endpoints 4 and 5). Required.
	Jobs connect.JobStore
	// Routes serves endpoint 6 and the route suggestion reads; nil leaves
	// them out.
	Routes connect.RouteSuggester
	// DrawRoute draws a route suggestion as SVG for GET
	// …/route-suggestions/{id}/map.svg (routesuggest.SVG); nil leaves that
	// route out.
	DrawRoute func(connect.RouteSuggestion) []byte
	// Plans serves the route plans under {base_url}/route-plans (a team's
	// day in one solve, routesuggest.Service); nil leaves them out.
	Plans connect.RoutePlanner
	// DrawPlan draws a route plan as SVG for GET …/route-plans/{id}/map.svg
	// (routesuggest.PlanSVG); nil leaves that route out.
	DrawPlan func(connect.RoutePlan) []byte
	// Appointments serves the appointment request preview under
	// /connect/v1; nil leaves those routes out.
	Appointments connect.AppointmentService
	// Webhooks lets integrators manage their webhook subscriptions under
	// {base_url}/webhook-subscriptions (webhooks.Subscriptions); nil leaves
	// those routes out.
	Webhooks connect.WebhookSubscriptionService
	// Events serves the events feed under {base_url}/events
	// (webhooks.Events); nil leaves those routes out.
	Events connect.EventFeed
	// Logger receives one line per request and every fault; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxBodyBytes caps request bodies (PayloadTooLarge beyond). Default 10 MiB.
	MaxBodyBytes int64
	// RateLimit and RateBurst size each client's allowance. Defaults 50/s, 100.
	// They are the one statement of the policy: the limiter is made from them
	// and the 429 message quotes them.
	RateLimit rate.Limit
	RateBurst int
	// NewRateLimiter makes the limiter that keeps the allowances, from
	// RateLimit and RateBurst; nil means a token bucket per client in this
	// process's memory. Replicas pass one whose buckets they share (see
	// RateLimiter).
	NewRateLimiter func(perSecond float64, burst int) RateLimiter
	// Ready reports whether the service can answer: GET /readyz answers 503
	// while it returns an error. nil means always ready.
	Ready func(ctx context.Context) error
	// MetricsElsewhere, when true, leaves GET /metrics out of this handler; serve
	// Handler.Metrics() on another listener instead.
	MetricsElsewhere bool
	// Version is the version of the host, for the connect_build_info metric.
	// Default "dev".
	Version string
}

// Handler is the REST service. Create it with New.
type Handler struct {
	cfg     Config
	router  *httprouter.Router
	metrics *metrics
	limiter RateLimiter
	openapi []byte
}

// New returns the handler serving cfg's services.
func New(cfg Config) (*Handler, error) {
	if cfg.Clients == nil || cfg.Importer == nil || cfg.Jobs == nil {
		return nil, errors.New("httpapi: Config needs Clients, Importer and Jobs")
	}
	cfg = withDefaults(cfg)
	h := &Handler{
		cfg:     cfg,
		router:  httprouter.New(),
		metrics: newMetrics(cfg.Version),
		limiter: cfg.NewRateLimiter(float64(cfg.RateLimit), cfg.RateBurst),
	}
	var err error
	if h.openapi, err = openAPIDocument(cfg.BasePath); err != nil {
		return nil, err
	}
	h.router.NotFound = http.HandlerFunc(h.notFound)
	h.router.MethodNotAllowed = http.HandlerFunc(h.methodNotAllowed)
	h.router.RedirectTrailingSlash = false
	h.router.RedirectFixedPath = false
	h.router.HandleOPTIONS = false
	for _, rt := range h.routes() {
		h.router.Handle(rt.method, rt.pattern, h.handle(rt))
		if rt.method == http.MethodGet {
			// HEAD answers what GET would; net/http drops the body.
			h.router.Handle(http.MethodHead, rt.pattern, h.handle(rt))
		}
	}
	return h, nil
}

func withDefaults(cfg Config) Config {
	if cfg.BasePath == "" {
		cfg.BasePath = DefaultBasePath
	}
	cfg.BasePath = "/" + strings.Trim(cfg.BasePath, "/")
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.RateLimit <= 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	if cfg.RateBurst <= 0 {
		cfg.RateBurst = DefaultRateBurst
	}
	if cfg.NewRateLimiter == nil {
		now := cfg.Now
		cfg.NewRateLimiter = func(perSecond float64, burst int) RateLimiter {
			return newMemoryLimiter(rate.Limit(perSecond), burst, now)
		}
	}
	return cfg
}

// Metrics serves the handler's Prometheus metrics (its own registry, so two
// handlers in one process never clash).
func (h *Handler) Metrics() http.Handler { return h.metrics.handler() }

// Registerer is the handler's own registry, for metrics of the same process
// that GET /metrics should show too, such as the webhook dispatcher's.
func (h *Handler) Registerer() prometheus.Registerer { return h.metrics.registry }

// ServeHTTP implements http.Handler: it gives the request its correlation id,
// recovers panics as InternalError, and records the request in the log and the
// metrics once it is answered.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	info := &requestInfo{correlationID: correlationID(r), route: unmatchedRoute}
	w.Header().Set(headerCorrelationID, info.correlationID)
	rec := &statusRecorder{ResponseWriter: w}
	r = r.WithContext(withRequestInfo(r.Context(), info))
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log(r).Error("panic while serving a request", "panic", p, "stack", string(stack()))
			if rec.status == 0 {
				h.writeError(rec, r, errors.Newf("panic: %v", p))
			}
		}
		h.finish(r, info, rec, time.Since(start))
	}()
	h.router.ServeHTTP(rec, r)
}

// finish writes the access log line and the request metrics. The line of an
// error answer carries its code; 429 answers are logged at debug level, since a
// client hammering the API would otherwise flood the log; an unmatched request
// names its path (cut to maxLoggedPath bytes), since no route template does.
func (h *Handler) finish(r *http.Request, info *requestInfo, rec *statusRecorder, elapsed time.Duration) {
	status := rec.statusCode()
	h.metrics.observeRequest(info.route, methodLabel(r.Method), status, elapsed)
	attrs := []any{"method", methodLabel(r.Method), "route", info.route, "status", status, "durationMs", elapsed.Milliseconds()}
	if info.route == unmatchedRoute {
		attrs = append(attrs, "path", truncatePath(r.URL.Path))
	}
	if info.errorCode != "" {
		attrs = append(attrs, "errorCode", info.errorCode)
	}
	if info.caller != nil {
		attrs = append(attrs, "tenantId", info.caller.TenantID, "clientId", info.caller.ClientID)
	}
	level := slog.LevelInfo
	if status == http.StatusTooManyRequests {
		level = slog.LevelDebug
	}
	h.log(r).Log(r.Context(), level, "request", attrs...)
}

// unmatchedRoute labels requests no route matched, in metrics and the log.
const unmatchedRoute = "unmatched"

// maxLoggedPath bounds the path of an unmatched request in the log.
const maxLoggedPath = 200

func truncatePath(p string) string {
	if len(p) <= maxLoggedPath {
		return p
	}
	return strings.ToValidUTF8(p[:maxLoggedPath], "") + "…"
}

// log returns the logger for r: every line carries the correlation id.
func (h *Handler) log(r *http.Request) *slog.Logger {
	return h.cfg.Logger.With("correlationId", requestInfoFrom(r.Context()).correlationID)
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, connect.Errorf(connect.CodeNotFound, "no resource at %s", r.URL.Path))
}

// methodNotAllowed answers a known path with the wrong method. The Allow
// header lists the methods served, sorted (httprouter lists them in map order
// and would also name OPTIONS, which is not answered).
func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range strings.Split(w.Header().Get("Allow"), ", ") {
		if m != http.MethodOptions && m != "" {
			allowed = append(allowed, m)
		}
	}
	slices.Sort(allowed)
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	h.writeError(w, r, connect.Errorf(connect.CodeMethodNotAllowed, "%s is not allowed on %s; allowed: %s", methodLabel(r.Method), r.URL.Path, strings.Join(allowed, ", ")))
}

// methodLabel names a request method for metrics and messages: the standard
// methods as they are, anything else as OTHER, so a client cannot create
// metric series at will.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "OTHER"
}

// statusRecorder remembers the status code written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) statusCode() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
