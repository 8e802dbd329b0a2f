package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/storetest"
)

// crew puts two employees of tenant acme on the server's store.
func crew(t *testing.T, s *server) {
	t.Helper()
	for _, id := range []string{"anna", "ben"} {
		emp := store.Employee{ID: id, Start: &connect.RoutePoint{Latitude: 52.50, Longitude: 13.35}}
		if _, err := s.routes.PutEmployee(t.Context(), "acme", emp); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRoutePlanEndpoints: POST /route-plans answers 201 with links, replays
// under its Idempotency-Key, and refuses with the exact status and code of
// every rule; the plan and its map are read with import_jobs.read.
func TestRoutePlanEndpoints(t *testing.T) {
	s := newServer(t)
	crew(t, s)
	key := s.key("acme", "planner", connect.ScopeRouteSuggestionsCreate, connect.ScopeImportJobsRead)
	other := s.key("globex", "planner", connect.ScopeRouteSuggestionsCreate, connect.ScopeImportJobsRead)
	readOnly := s.key("acme", "reader", connect.ScopeImportJobsRead)
	jobID := seedJob(t, s) // B1 with coordinates, B2 without
	path := base + "/route-plans"
	body := fmt.Sprintf(`{"routeDate":"2026-11-23","employeeIds":["anna","ben"],"importJobIds":[%d]}`, jobID)
	post := func(key, body, idem string, invalid bool) response {
		req := request{method: "POST", path: path, body: body, key: key, invalid: invalid}
		if idem != "" {
			req.header = map[string]string{"Idempotency-Key": idem}
		}
		return s.do(req)
	}

	created := post(key, body, "p-1", false)
	var resp connect.CreateRoutePlanResponse
	created.json(t, &resp)
	self := fmt.Sprintf("%s/route-plans/%d", base, resp.RoutePlanID)
	if created.status != 201 || resp.Status != connect.RouteDraft || len(resp.Routes) != 2 || resp.IncludedTargets != 1 || resp.LeftOutTargets != 1 ||
		resp.Links["self"] != self || resp.Links["map"] != self+"/map.svg" {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	replay := post(key, body, "p-1", false)
	if replay.status != 201 || replay.header.Get("Idempotent-Replayed") != "true" || string(replay.body) != string(created.body) {
		t.Errorf("replay: %d %q %s", replay.status, replay.header.Get("Idempotent-Replayed"), replay.body)
	}
	if r := post(key, `{"routeDate":"2026-11-24","employeeIds":["anna"]}`, "p-1", false); r.status != 409 || r.apiError(t).Code != connect.CodeIdempotencyKeyReused {
		t.Errorf("reused key: %d %s", r.status, r.body)
	}

	var plan connect.RoutePlan
	read := s.do(request{method: "GET", path: self, key: readOnly})
	read.json(t, &plan)
	if read.status != 200 || plan.ID != resp.RoutePlanID || len(plan.Routes) != 2 || len(plan.LeftOut) != 1 ||
		plan.LeftOut[0].Reason != connect.ExcludedMissingCoordinates || plan.LeftOut[0].Message == "" {
		t.Errorf("read: %d %s", read.status, read.body)
	}
	picture := s.do(request{method: "GET", path: self + "/map.svg", key: readOnly})
	if picture.status != 200 || picture.header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(string(picture.body), "<svg") ||
		!strings.Contains(string(picture.body), "anna") || !strings.Contains(string(picture.body), "ben") {
		t.Errorf("map: %d %s %.200s", picture.status, picture.header.Get("Content-Type"), picture.body)
	}

	fiftyOne := `"e0"` + strings.Repeat(`,"e"`, connect.MaxPlanEmployees)
	refusals := []struct {
		name, key, body string
		status          int
		code            connect.ErrorCode
		field           string
	}{
		{"no key", "", body, 401, connect.CodeUnauthorized, ""},
		{"no scope", readOnly, body, 403, connect.CodeInsufficientScope, ""},
		{"other tenant's employee", other, strings.Replace(body, `"anna","ben"`, `"anna"`, 1), 404, connect.CodeNotFound, "employeeIds[0]"},
		{"unknown job", key, fmt.Sprintf(`{"routeDate":"2026-11-23","employeeIds":["anna"],"importJobIds":[%d]}`, jobID+100), 404, connect.CodeNotFound, "importJobIds[0]"},
		{"unknown employee", key, `{"routeDate":"2026-11-23","employeeIds":["anna","ghost"]}`, 404, connect.CodeNotFound, "employeeIds[1]"},
		{"unknown profile", key, `{"routeDate":"2026-11-23","employeeIds":["anna"],"optimizationProfileId":5}`, 404, connect.CodeNotFound, "optimizationProfileId is 5"},
		{"no route date", key, `{"employeeIds":["anna"]}`, 400, connect.CodeInvalidRequest, "routeDate"},
		{"no employees", key, `{"routeDate":"2026-11-23","employeeIds":[]}`, 400, connect.CodeInvalidRequest, "employeeIds"},
		{"employee twice", key, `{"routeDate":"2026-11-23","employeeIds":["anna","anna"]}`, 400, connect.CodeInvalidRequest, "employeeIds[1]"},
		{"too many employees", key, `{"routeDate":"2026-11-23","employeeIds":[` + fiftyOne + `]}`, 400, connect.CodeInvalidRequest, "employeeIds"},
		{"unknown field", key, `{"routeDate":"2026-11-23","employeeIds":["anna"],"vehicles":2}`, 400, connect.CodeInvalidRequest, "vehicles"},
	}
	for _, tc := range refusals {
		r := post(tc.key, tc.body, "", true)
		if e := r.apiError(t); r.status != tc.status || e.Code != tc.code || !strings.Contains(e.Message, tc.field) {
			t.Errorf("%s: %d %s; want %d %s naming %q", tc.name, r.status, r.body, tc.status, tc.code, tc.field)
		}
	}
	// The other tenant cannot use acme's job even with an employee of its own.
	if _, err := s.routes.PutEmployee(t.Context(), "globex", store.Employee{ID: "gus"}); err != nil {
		t.Fatal(err)
	}
	theirs := fmt.Sprintf(`{"routeDate":"2026-11-23","employeeIds":["gus"],"importJobIds":[%d]}`, jobID)
	if r := post(other, theirs, "", true); r.status != 404 || r.apiError(t).Code != connect.CodeNotFound || !strings.Contains(r.apiError(t).Message, "importJobIds[0]") {
		t.Errorf("another tenant's job: %d %s", r.status, r.body)
	}
	for _, tc := range []struct{ key, path string }{{other, self}, {other, self + "/map.svg"}, {key, base + "/route-plans/999"}, {key, base + "/route-plans/abc"}} {
		if r := s.do(request{method: "GET", path: tc.path, key: tc.key, invalid: strings.HasSuffix(tc.path, "abc")}); r.status != 404 || r.apiError(t).Code != connect.CodeNotFound {
			t.Errorf("GET %s: %d %s", tc.path, r.status, r.body)
		}
	}
}

// TestRoutePlanQueueFullIs429: plans share endpoint 6's solve queue; when it
// is full a plan answers 429 with Retry-After and the refusal is not recorded
// against its Idempotency-Key.
func TestRoutePlanQueueFullIs429(t *testing.T) {
	held := heldTravel{started: make(chan struct{}, 4), release: make(chan struct{})}
	s := newServer(t, func(cfg *httpapi.Config) {
		routes := routesuggest.New(routesuggest.Config{Store: cfg.Clients.(*store.Clients).Store, Travel: held, Concurrency: 1, QueueLength: -1})
		cfg.Routes, cfg.Plans = routes, routes
	})
	crew(t, s)
	key := s.key("acme", "planner", connect.AllScopes...)
	jobID := seedJob(t, s)
	suggestion := fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID)
	first := make(chan response, 1)
	go func() {
		first <- s.do(request{method: "POST", path: suggestion, body: `{"routeDate":"2026-11-23"}`, key: key})
	}()
	storetest.Receive(t, held.started, "the held solve to start")

	body := `{"routeDate":"2026-11-23","employeeIds":["anna","ben"]}`
	busy := s.do(request{method: "POST", path: base + "/route-plans", body: body, key: key, header: map[string]string{"Idempotency-Key": "q-1"}})
	e := busy.apiError(t)
	if busy.status != 429 || e.Code != connect.CodeRateLimited || e.RetryAfterSeconds == nil || busy.header.Get("Retry-After") != fmt.Sprint(*e.RetryAfterSeconds) {
		t.Fatalf("queue full: %d %s (Retry-After %q)", busy.status, busy.body, busy.header.Get("Retry-After"))
	}
	close(held.release)
	storetest.Receive(t, first, "the held request's answer")
	if r := s.do(request{method: "POST", path: base + "/route-plans", body: body, key: key, header: map[string]string{"Idempotency-Key": "q-1"}}); r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry with the refused request's key: %d %s (replayed %q)", r.status, r.body, r.header.Get("Idempotent-Replayed"))
	}
}
