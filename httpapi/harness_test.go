package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/go-json-experiment/json"
	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/teststore"
)

// server is the real handler on a real store (a bbolt file, or a PostgreSQL
// schema in the package's second pass), behind a loopback listener.
// Every request it sends and every response it gets are checked against the
// OpenAPI document (the contract test).
type server struct {
	t       testing.TB
	url     string
	handler *httpapi.Handler
	store   store.Store
	clients *store.Clients
	logs    *syncBuffer
	// appointments is the service behind the preview routes, for host actions.
	appointments connect.AppointmentService
	// customers is the host's customer-record service, for settings and states.
	customers *mapping.Service
	// routes manages profiles and employees.
	routes *routesuggest.Service
}

// newServer starts a server on a new store; adjust may change the config
// before New.
func newServer(t testing.TB, adjust ...func(*httpapi.Config)) *server {
	t.Helper()
	return newServerOn(t, teststore.Open(t), adjust...)
}

// newServerOn starts a server on db.
func newServerOn(t testing.TB, db store.Store, adjust ...func(*httpapi.Config)) *server {
	t.Helper()
	logs := &syncBuffer{}
	imports := importer.New(importer.Config{Store: db})
	routes := routesuggest.New(routesuggest.Config{Store: db})
	cfg := httpapi.Config{
		Clients: &store.Clients{Store: db}, Importer: imports, Jobs: imports,
		Appointments: appointments.New(appointments.Config{Store: db}),
		Routes:       routes, DrawRoute: routesuggest.SVG, Plans: routes, DrawPlan: routesuggest.PlanSVG,
		Webhooks: &webhooks.Subscriptions{Store: db, URLs: webhooks.URLPolicy{Resolver: exampleDNS{}}},
		Events:   &webhooks.Events{Store: db},
		Logger:   slog.New(slog.NewTextHandler(logs, nil)),
	}
	for _, fn := range adjust {
		fn(&cfg)
	}
	h, err := httpapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return &server{t: t, url: ts.URL, handler: h, store: db, clients: cfg.Clients.(*store.Clients), logs: logs,
		appointments: cfg.Appointments, customers: mapping.New(mapping.Config{Store: db}), routes: cfg.Routes.(*routesuggest.Service)}
}

// key creates a client of tenant with scopes and returns its API key.
func (s *server) key(tenant, client string, scopes ...connect.Scope) string {
	s.t.Helper()
	_, key, err := s.clients.CreateClient(context.Background(), connect.NewClient{TenantID: tenant, ClientID: client, SourceSystem: "erp", Scopes: scopes})
	if err != nil {
		s.t.Fatal(err)
	}
	return key
}

// request is one call; invalid marks a request that breaks the contract on
// purpose, so only its response is checked against the document.
type request struct {
	method, path, body, key string
	header                  map[string]string
	invalid                 bool
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

func (r response) apiError(t testing.TB) connect.ApiError {
	t.Helper()
	var e connect.ApiErrorResponse
	r.json(t, &e)
	return e.Error
}

func (s *server) do(req request) response {
	s.t.Helper()
	httpReq, err := http.NewRequest(req.method, s.url+req.path, strings.NewReader(req.body))
	if err != nil {
		s.t.Fatal(err)
	}
	if req.body != "" {
		httpReq.Header.Set("Content-Type", "application/json")
	}
	if req.key != "" {
		httpReq.Header.Set("Authorization", "Bearer "+req.key)
	}
	for k, v := range req.header {
		httpReq.Header[http.CanonicalHeaderKey(k)] = []string{v}
	}
	route, input := findRoute(s.t, httpReq, req.body)
	if route != nil && !req.invalid {
		if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
			s.t.Errorf("contract: %s %s: request does not match the OpenAPI document: %v", req.method, req.path, err)
		}
	}
	httpResp, err := http.DefaultClient.Do(httpReq)
	if err != nil {
		s.t.Fatal(err)
	}
	defer httpResp.Body.Close()
	body, _ := io.ReadAll(httpResp.Body)
	resp := response{status: httpResp.StatusCode, header: httpResp.Header, body: body}
	checkResponse(s.t, req, route, input, resp)
	return resp
}

// checkResponse holds the rules every answer keeps, and the contract check.
func checkResponse(t testing.TB, req request, route *routers.Route, input *openapi3filter.RequestValidationInput, resp response) {
	t.Helper()
	corr := resp.header.Get("X-Correlation-Id")
	if corr == "" {
		t.Errorf("%s %s: no X-Correlation-Id", req.method, req.path)
	}
	if resp.status >= 400 && req.method != http.MethodHead && resp.header.Get("Content-Type") == "application/json" {
		var e connect.ApiErrorResponse
		if err := json.Unmarshal(resp.body, &e); err != nil || e.Error.Code == "" || e.Error.CorrelationID == nil || *e.Error.CorrelationID != corr {
			t.Errorf("%s %s: error body %s is not an ApiErrorResponse with the correlation id %q", req.method, req.path, resp.body, corr)
		}
	}
	if route == nil {
		return
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input, Status: resp.status, Header: resp.header,
		Body:    io.NopCloser(bytes.NewReader(resp.body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("contract: %s %s → %d: response does not match the OpenAPI document: %v\nbody: %.500s", req.method, req.path, resp.status, err, resp.body)
	}
}

var (
	contractOnce   sync.Once
	contractRouter routers.Router
)

// findRoute finds the operation of a request in the OpenAPI document. It
// returns nil for paths the document does not have (unknown routes).
func findRoute(t testing.TB, req *http.Request, body string) (*routers.Route, *openapi3filter.RequestValidationInput) {
	t.Helper()
	contractOnce.Do(func() {
		// The route picture is text the validator reads as a string.
		openapi3filter.RegisterBodyDecoder("image/svg+xml", openapi3filter.FileBodyDecoder)
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(httpapi.OpenAPI())
		if err != nil {
			t.Fatalf("loading the OpenAPI document: %v", err)
		}
		if err := doc.Validate(loader.Context); err != nil {
			t.Fatalf("the OpenAPI document is invalid: %v", err)
		}
		if contractRouter, err = gorillamux.NewRouter(doc); err != nil {
			t.Fatal(err)
		}
	})
	// The router matches on a copy; the body is given to the validator separately.
	probe := req.Clone(context.Background())
	probe.Body = io.NopCloser(strings.NewReader(body))
	route, params, err := contractRouter.FindRoute(probe)
	if err != nil {
		return nil, nil
	}
	return route, &openapi3filter.RequestValidationInput{
		Request: probe, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
}

// syncBuffer collects log output written from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newBenchServer is a server for benchmarks: no request log, no rate limit
// worth speaking of, and no contract check on the hot path.
func newBenchServer(b *testing.B) *server {
	return newServer(b, func(c *httpapi.Config) {
		c.Logger = slog.New(slog.DiscardHandler)
		c.RateLimit, c.RateBurst = rate.Inf, 1
	})
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// exampleDNS resolves every name under example.com to one public address and
// nothing else, so the tests never ask a real DNS server.
type exampleDNS struct{}

func (exampleDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".example.com") {
		return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// refusal is a request and the error it must be answered with: the status,
// the code, and a part of the message (often the field it names).
type refusal struct {
	name       string
	req        request
	wantStatus int
	wantCode   connect.ErrorCode
	wantInMsg  string
}

// checkRefusals sends each request and checks the answer's status, code and
// message.
func (s *server) checkRefusals(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tc := range tests {
		resp := s.do(tc.req)
		if resp.status != tc.wantStatus {
			t.Errorf("%s: status %d, want %d: %s", tc.name, resp.status, tc.wantStatus, resp.body)
			continue
		}
		if e := resp.apiError(t); e.Code != tc.wantCode || !strings.Contains(e.Message, tc.wantInMsg) {
			t.Errorf("%s: %s %q, want %s with %q", tc.name, e.Code, e.Message, tc.wantCode, tc.wantInMsg)
		}
	}
}
