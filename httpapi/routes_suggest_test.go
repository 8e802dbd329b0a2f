package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/storetest"
)

func TestRouteSuggestionEndpoint(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "planner", connect.ScopeRouteSuggestionsCreate, connect.ScopeImportJobsRead)
	other := s.key("globex", "planner", connect.ScopeRouteSuggestionsCreate, connect.ScopeImportJobsRead)
	readOnly := s.key("acme", "reader", connect.ScopeImportJobsRead)
	jobID := seedJob(t, s) // B1 with coordinates, B2 without
	path := fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID)
	post := func(key, path, body, idem string, invalid bool) response {
		req := request{method: "POST", path: path, body: body, key: key, invalid: invalid}
		if idem != "" {
			req.header = map[string]string{"Idempotency-Key": idem}
		}
		return s.do(req)
	}

	created := post(key, path, `{"routeDate":"2026-11-23","minimumBufferMinutes":5}`, "r-1", false)
	var resp connect.CreateRouteSuggestionResponse
	created.json(t, &resp)
	self := fmt.Sprintf("%s/route-suggestions/%d", base, resp.RouteSuggestionID)
	if created.status != 200 || resp.Status != connect.RouteDraft || resp.IncludedTargets != 1 || resp.ExcludedTargets != 1 || resp.Links["self"] != self || resp.Links["map"] != self+"/map.svg" {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	replay := post(key, path, `{"minimumBufferMinutes":5, "routeDate":"2026-11-23"}`, "r-1", false)
	if replay.status != 200 || replay.header.Get("Idempotent-Replayed") != "true" || string(replay.body) != string(created.body) {
		t.Errorf("replay: %d %q %s", replay.status, replay.header.Get("Idempotent-Replayed"), replay.body)
	}
	if r := post(key, path, `{"routeDate":"2026-11-24"}`, "r-1", false); r.status != 409 || r.apiError(t).Code != connect.CodeIdempotencyKeyReused {
		t.Errorf("reused key: %d %s", r.status, r.body)
	}

	var got connect.RouteSuggestion
	read := s.do(request{method: "GET", path: self, key: readOnly})
	read.json(t, &got)
	if read.status != 200 || got.ID != resp.RouteSuggestionID || len(got.Stops) != 1 || got.Stops[0].ExternalID != "B1" || got.Excluded[0].Reason != connect.ExcludedMissingCoordinates {
		t.Errorf("read: %d %s", read.status, read.body)
	}
	picture := s.do(request{method: "GET", path: self + "/map.svg", key: readOnly})
	if picture.status != 200 || picture.header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(string(picture.body), "<svg") {
		t.Errorf("map: %d %s %.100s", picture.status, picture.header.Get("Content-Type"), picture.body)
	}

	errorsWanted := []struct {
		name, key, path, body string
		status                int
		code                  connect.ErrorCode
	}{
		{"no key", "", path, `{"routeDate":"2026-11-23"}`, 401, connect.CodeUnauthorized},
		{"no scope", readOnly, path, `{"routeDate":"2026-11-23"}`, 403, connect.CodeInsufficientScope},
		{"unknown job", key, fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID+100), `{"routeDate":"2026-11-23"}`, 404, connect.CodeNotFound},
		{"other tenant's job", other, path, `{"routeDate":"2026-11-23"}`, 404, connect.CodeNotFound},
		{"job id not an int64", key, base + "/import-jobs/abc/route-suggestion", `{"routeDate":"2026-11-23"}`, 404, connect.CodeNotFound},
		{"unknown employee", key, path, `{"routeDate":"2026-11-23","employeeId":"ghost"}`, 404, connect.CodeNotFound},
		{"unknown profile", key, path, `{"routeDate":"2026-11-23","optimizationProfileId":5}`, 404, connect.CodeNotFound},
		{"no route date", key, path, `{}`, 400, connect.CodeInvalidRequest},
		{"bad route date", key, path, `{"routeDate":"tomorrow"}`, 400, connect.CodeInvalidRequest},
	}
	for _, tc := range errorsWanted {
		r := post(tc.key, tc.path, tc.body, "", true)
		if r.status != tc.status || r.apiError(t).Code != tc.code {
			t.Errorf("%s: %d %s; want %d %s", tc.name, r.status, r.body, tc.status, tc.code)
		}
	}
	for _, who := range []string{other, key} {
		p := self
		if who == key {
			p = base + "/route-suggestions/999"
		}
		if r := s.do(request{method: "GET", path: p, key: who}); r.status != 404 {
			t.Errorf("GET %s: %d", p, r.status)
		}
	}
}

// TestImportLinksToRouteSuggestion: an import result links to endpoint 6.
func TestImportLinksToRouteSuggestion(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeTargetsWrite)
	var r connect.InboundImportResult
	s.do(request{method: "POST", path: base + "/inbound/targets", body: goodTarget, key: key}).json(t, &r)
	if want := fmt.Sprintf("/api/v1/import-jobs/%d/route-suggestion", r.ImportJobID); r.Links["routeSuggestion"] != want {
		t.Errorf("links %v, want routeSuggestion %s", r.Links, want)
	}
}

// heldTravel holds every solve until the test releases it.
type heldTravel struct {
	started chan struct{}
	release chan struct{}
}

func (h heldTravel) Matrix(ctx context.Context, points []routesuggest.Point, profile store.OptimizationProfile) (routesuggest.Travel, error) {
	h.started <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
		return routesuggest.Travel{}, ctx.Err()
	}
	return routesuggest.GreatCircle{}.Matrix(ctx, points, profile)
}

// TestRouteSuggestionQueueFullIs429: with every solver busy and no room to
// wait, endpoint 6 answers 429 RateLimited with retryAfterSeconds and
// Retry-After, while health checks and imports keep answering; the 429 is
// not recorded against the Idempotency-Key.
func TestRouteSuggestionQueueFullIs429(t *testing.T) {
	held := heldTravel{started: make(chan struct{}, 4), release: make(chan struct{})}
	s := newServer(t, func(cfg *httpapi.Config) {
		cfg.Routes = routesuggest.New(routesuggest.Config{Store: cfg.Clients.(*store.Clients).Store, Travel: held, Concurrency: 1, QueueLength: -1})
	})
	key := s.key("acme", "planner", connect.AllScopes...)
	jobID := seedJob(t, s)
	path := fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID)
	first := make(chan response, 1)
	go func() {
		first <- s.do(request{method: "POST", path: path, body: `{"routeDate":"2026-11-23"}`, key: key})
	}()
	storetest.Receive(t, held.started, "the held solve to start")

	busy := s.do(request{method: "POST", path: path, body: `{"routeDate":"2026-11-23"}`, key: key, header: map[string]string{"Idempotency-Key": "q-1"}})
	e := busy.apiError(t)
	if busy.status != 429 || e.Code != connect.CodeRateLimited || e.RetryAfterSeconds == nil || *e.RetryAfterSeconds < 1 ||
		busy.header.Get("Retry-After") != fmt.Sprint(*e.RetryAfterSeconds) {
		t.Fatalf("queue full: %d %s (Retry-After %q)", busy.status, busy.body, busy.header.Get("Retry-After"))
	}
	if r := s.do(request{method: "GET", path: base + "/integration/health", key: key}); r.status != 200 {
		t.Errorf("health while solving: %d", r.status)
	}
	if r := s.do(request{method: "POST", path: base + "/inbound/targets", body: `{"externalId":"Q1","title":"x"}`, key: key}); r.status != 201 {
		t.Errorf("import while solving: %d %s", r.status, r.body)
	}
	close(held.release)
	if r := storetest.Receive(t, first, "the held request's answer"); r.status != 200 {
		t.Errorf("the held request: %d %s", r.status, r.body)
	}
	if r := s.do(request{method: "POST", path: path, body: `{"routeDate":"2026-11-23"}`, key: key, header: map[string]string{"Idempotency-Key": "q-1"}}); r.status != 200 || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry with the refused request's key: %d %s (replayed %q)", r.status, r.body, r.header.Get("Idempotent-Replayed"))
	}
}

// TestKeyInUseTellsWhenToRetry: a request whose Idempotency-Key is held by
// one still running answers 409 IdempotencyKeyInUse with Retry-After and
// retryAfterSeconds of 1, on every store; once the first is done, the retry
// replays it.
func TestKeyInUseTellsWhenToRetry(t *testing.T) {
	held := heldTravel{started: make(chan struct{}, 4), release: make(chan struct{})}
	s := newServer(t, func(cfg *httpapi.Config) {
		cfg.Routes = routesuggest.New(routesuggest.Config{Store: cfg.Clients.(*store.Clients).Store, Travel: held})
	})
	key := s.key("acme", "planner", connect.AllScopes...)
	path := fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, seedJob(t, s))
	send := func() response {
		return s.do(request{method: "POST", path: path, body: `{"routeDate":"2026-11-23"}`, key: key, header: map[string]string{"Idempotency-Key": "held-key"}})
	}
	first := make(chan response, 1)
	go func() { first <- send() }()
	storetest.Receive(t, held.started, "the held solve to start")

	busy := send()
	e := busy.apiError(t)
	if busy.status != 409 || e.Code != connect.CodeIdempotencyKeyInUse || e.RetryAfterSeconds == nil || *e.RetryAfterSeconds != 1 || busy.header.Get("Retry-After") != "1" {
		t.Errorf("key in use: %d %s (Retry-After %q)", busy.status, busy.body, busy.header.Get("Retry-After"))
	}
	close(held.release)
	if r := storetest.Receive(t, first, "the held request's answer"); r.status != 200 {
		t.Fatalf("the held request: %d %s", r.status, r.body)
	}
	if r := send(); r.status != 200 || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry: %d %s (replayed %q)", r.status, r.body, r.header.Get("Idempotent-Replayed"))
	}
}
