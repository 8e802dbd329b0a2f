package httpapi

import (
	"io"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/integration-connect/connect"
)

// route is one entry of the route table: the only place that says which scope a
// route needs and whether it is rate limited.
type route struct {
	method string
	// pattern is the full path template, as registered and as labelled in metrics.
	pattern string
	// scope is required of the caller; "" means the route needs no API key.
	scope       connect.Scope
	rateLimited bool
	serve       func(w http.ResponseWriter, r *http.Request, c call) error
}

// call is what a route's serve function gets besides the request.
type call struct {
	caller connect.Caller
	params httprouter.Params
}

func (h *Handler) routes() []route {
	base := h.cfg.BasePath
	routes := []route{
		{http.MethodGet, base + "/integration/health", connect.Required.Health, true, h.health},
		{http.MethodPost, base + "/inbound/targets", connect.Required.ImportTarget, true, h.importTarget},
		{http.MethodPost, base + "/inbound/targets/batch", connect.Required.ImportBatch, true, h.importBatch},
		{http.MethodGet, base + "/import-jobs", connect.Required.ReadJobs, false, h.listJobs},
		{http.MethodGet, base + "/import-jobs/:id", connect.Required.ReadJobs, false, h.getJob},
		{http.MethodGet, base + "/openapi.json", "", false, h.serveOpenAPI},
	}
	routes = append(routes, h.routeSuggestionRoutes()...)
	routes = append(routes, h.routePlanRoutes()...)
	routes = append(routes, h.appointmentRoutes()...)
	routes = append(routes,
		route{http.MethodGet, "/healthz", "", false, h.serveLive},
		route{http.MethodGet, "/readyz", "", false, h.serveReady})
	routes = append(routes, h.subscriptionRoutes()...)
	routes = append(routes, h.eventRoutes()...)
	if !h.cfg.MetricsElsewhere {
		routes = append(routes, route{http.MethodGet, "/metrics", "", false, h.serveMetrics})
	}
	return routes
}

// handle runs the checks every route shares, in the order of the contract:
// authentication (401), scope (403), rate limit (429), then the route itself.
func (h *Handler) handle(rt route) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, params httprouter.Params) {
		info := requestInfoFrom(r.Context())
		info.route = rt.pattern
		c := call{params: params}
		err := h.admit(r, rt, &c)
		if err == nil {
			err = rt.serve(w, r, c)
		}
		if err != nil {
			h.writeError(w, r, err)
		}
	}
}

func (h *Handler) admit(r *http.Request, rt route, c *call) error {
	if rt.scope == "" {
		return nil
	}
	caller, err := h.authenticate(r)
	if err != nil {
		return err
	}
	requestInfoFrom(r.Context()).caller = &caller
	c.caller = caller
	if err := caller.RequireScope(rt.scope); err != nil {
		return err
	}
	if rt.rateLimited {
		if err := h.admitRate(r.Context(), caller); err != nil {
			h.metrics.rateLimited.WithLabelValues(rt.pattern).Inc()
			return err
		}
	}
	return nil
}

// authenticate reads "Authorization: Bearer <API key>". Every failure is the
// same Unauthorized answer, including two Authorization headers: which one
// counts would be a guess, and proxies may disagree with us about it.
func (h *Handler) authenticate(r *http.Request) (connect.Caller, error) {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return connect.Caller{}, connect.ErrUnauthorized
	}
	scheme, key, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return connect.Caller{}, connect.ErrUnauthorized
	}
	return h.cfg.Clients.Authenticate(r.Context(), strings.TrimSpace(key))
}

func (h *Handler) serveOpenAPI(w http.ResponseWriter, _ *http.Request, _ call) error {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(h.openapi)
	return nil
}

func (h *Handler) serveMetrics(w http.ResponseWriter, r *http.Request, _ call) error {
	h.metrics.handler().ServeHTTP(w, r)
	return nil
}

// probe is the body of the load balancers' probes.
type probe struct {
	Status string `json:"status"`
}

// serveLive answers GET /healthz: the process is up and serving.
func (h *Handler) serveLive(w http.ResponseWriter, _ *http.Request, _ call) error {
	return writeJSON(w, http.StatusOK, probe{Status: "ok"})
}

// serveReady answers GET /readyz: 200 while the store answers, else 503, so a
// load balancer sends requests only to replicas that can serve them. The
// cause is logged, not shown to whoever probes.
func (h *Handler) serveReady(w http.ResponseWriter, r *http.Request, _ call) error {
	if h.cfg.Ready != nil {
		if err := h.cfg.Ready(r.Context()); err != nil {
			h.log(r).Warn("not ready: the store does not answer", "error", err)
			// Plain text: a probe answer, not an error of the integrator contract.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "unavailable\n")
			return nil
		}
	}
	return writeJSON(w, http.StatusOK, probe{Status: "ready"})
}
