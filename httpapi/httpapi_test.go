package httpapi_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/importer/importertest"
)

const (
	base       = "/api/v1"
	goodTarget = `{"externalId":"T1","title":"Boiler","address":{"latitude":52.5,"longitude":13.4}}`
	goodBatch  = `{"sourceSystem":"erp","targets":[{"externalId":"B1","title":"One","address":{"latitude":52.5,"longitude":13.4}},{"externalId":"B2","title":"Two"}]}`
)

// endpoint is one operation of the import API with a valid request.
type endpoint struct {
	name, method, path, body string
	scope                    connect.Scope
	okStatus                 int
}

// endpoints returns endpoints 1-5; jobID must be an existing job of the tenant.
func endpoints(jobID int64) []endpoint {
	return []endpoint{
		{"1 health", http.MethodGet, base + "/integration/health", "", connect.ScopeHealthRead, 200},
		{"2 single import", http.MethodPost, base + "/inbound/targets", goodTarget, connect.ScopeTargetsWrite, 0},
		{"3 batch import", http.MethodPost, base + "/inbound/targets/batch", goodBatch, connect.ScopeTargetsBatchWrite, 200},
		{"4 list jobs", http.MethodGet, base + "/import-jobs", "", connect.ScopeImportJobsRead, 200},
		{"5 get job", http.MethodGet, fmt.Sprintf("%s/import-jobs/%d", base, jobID), "", connect.ScopeImportJobsRead, 200},
	}
}

// seedJob imports one batch for tenant acme and returns its job id.
func seedJob(t *testing.T, s *server) int64 {
	t.Helper()
	key := s.key("acme", "seeder", connect.ScopeTargetsBatchWrite)
	resp := s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: goodBatch, key: key})
	var r connect.InboundImportResult
	resp.json(t, &r)
	return r.ImportJobID
}

// TestScopeMatrix: every endpoint with a key lacking its scope answers 403
// naming the scope; with only that scope it is not 403.
func TestScopeMatrix(t *testing.T) {
	s := newServer(t)
	jobID := seedJob(t, s)
	for _, ep := range endpoints(jobID) {
		for _, scope := range connect.AllScopes {
			t.Run(ep.name+"/"+string(scope), func(t *testing.T) {
				key := s.key("acme", "m-"+strconv.Itoa(len(ep.name))+ep.method+string(scope)+strings.ReplaceAll(ep.name, " ", ""), scope)
				resp := s.do(request{method: ep.method, path: ep.path, body: ep.body, key: key})
				if scope == ep.scope {
					if resp.status == http.StatusForbidden {
						t.Fatalf("403 with the required scope: %s", resp.body)
					}
					return
				}
				e := resp.apiError(t)
				if resp.status != http.StatusForbidden || e.Code != connect.CodeInsufficientScope || e.RequiredScope == nil || *e.RequiredScope != ep.scope {
					t.Fatalf("got %d %s; want 403 InsufficientScope naming %s", resp.status, resp.body, ep.scope)
				}
			})
		}
	}
}

// TestTwoAuthorizationHeadersAreUnauthorized: a request with two
// Authorization headers is 401, whichever of them is valid (DECISIONS.md
// "Bounded cost of every request").
func TestTwoAuthorizationHeadersAreUnauthorized(t *testing.T) {
	s := newServer(t)
	key := "Bearer " + s.key("acme", "erp", connect.AllScopes...)
	other := "Bearer " + s.key("acme", "crm", connect.AllScopes...)
	tests := []struct {
		name    string
		headers []string
		want    int
	}{
		{"one valid header", []string{key}, 200},
		{"the same valid key twice", []string{key, key}, 401},
		{"two valid keys", []string{key, other}, 401},
		{"valid, then unknown", []string{key, "Bearer ick_0123456789012345678901234567890123456789012"}, 401},
		{"unknown, then valid", []string{"Basic dXNlcjpwYXNz", key}, 401},
		{"valid, then empty", []string{key, ""}, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", s.url+base+"/integration/health", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header["Authorization"] = tc.headers
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want || tc.want == 401 && resp.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("status %d (WWW-Authenticate %q), want %d", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.want)
			}
		})
	}
}

func TestUnauthorized(t *testing.T) {
	s := newServer(t)
	jobID := seedJob(t, s)
	revoked := s.key("acme", "revoked", connect.AllScopes...)
	if err := s.clients.RevokeClient(t.Context(), "acme", "revoked"); err != nil {
		t.Fatal(err)
	}
	authHeaders := map[string]string{
		"missing":    "",
		"not bearer": "Basic dXNlcjpwYXNz",
		"unknown":    "Bearer ick_0123456789012345678901234567890123456789012",
		"malformed":  "Bearer nonsense",
		"revoked":    "Bearer " + revoked,
	}
	var bodies []string
	for _, ep := range endpoints(jobID) {
		for name, auth := range authHeaders {
			req := request{method: ep.method, path: ep.path, body: ep.body}
			if auth != "" {
				req.header = map[string]string{"Authorization": auth}
			}
			resp := s.do(req)
			e := resp.apiError(t)
			if resp.status != 401 || e.Code != connect.CodeUnauthorized || resp.header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("%s, %s key: got %d %s (WWW-Authenticate %q)", ep.name, name, resp.status, resp.body, resp.header.Get("WWW-Authenticate"))
			}
			bodies = append(bodies, e.Message)
		}
	}
	for _, m := range bodies {
		if m != bodies[0] {
			t.Errorf("401 messages differ (%q vs %q): they must not tell which check failed", m, bodies[0])
		}
	}
}

func TestSingleImportStatuses(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeTargetsWrite)
	post := func(body string, header map[string]string) response {
		return s.do(request{method: "POST", path: base + "/inbound/targets", body: body, key: key, header: header})
	}
	created := post(goodTarget, nil)
	var r connect.InboundImportResult
	created.json(t, &r)
	if created.status != 201 || r.Items[0].Status != connect.ItemImported || r.Links["self"] != fmt.Sprintf("/api/v1/import-jobs/%d", r.ImportJobID) {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	if updated := post(goodTarget, nil); updated.status != 200 {
		t.Errorf("update: %d", updated.status)
	}
	rejected := s.do(request{method: "POST", path: base + "/inbound/targets", body: `{"externalId":"T2","title":"x","planning":{"estimatedWorkMinutes":4}}`, key: key, invalid: true})
	rejected.json(t, &r)
	if rejected.status != 200 || r.Items[0].Status != connect.ItemRejected || *r.Items[0].ErrorMessage != "planning.estimatedWorkMinutes must be between 5 and 480" {
		t.Errorf("rejected item: %d %s", rejected.status, rejected.body)
	}
	for _, bad := range []string{`not json`, `[1,2]`, ``} {
		resp := s.do(request{method: "POST", path: base + "/inbound/targets", body: bad, key: key, invalid: true})
		if resp.status != 400 || resp.apiError(t).Code != connect.CodeInvalidRequest {
			t.Errorf("body %q: %d %s", bad, resp.status, resp.body)
		}
	}
}

func TestBatchImportStatuses(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.MaxBodyBytes = 64 << 10 })
	key := s.key("acme", "erp", connect.ScopeTargetsBatchWrite, connect.ScopeImportJobsRead)
	post := func(body string, invalid bool) response {
		return s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: body, key: key, invalid: invalid})
	}
	ok := post(`{"targets":[{"externalId":"A","title":"a"},{"externalId":"B","title":"b","planning":{"estimatedWorkMinutes":"x"}}]}`, true)
	var r connect.InboundImportResult
	ok.json(t, &r)
	if ok.status != 200 || r.Status != connect.JobPartiallyAccepted || r.RejectedItems != 1 || r.CreatedItems != 1 {
		t.Errorf("partial batch: %d %s", ok.status, ok.body)
	}
	tests := []struct {
		name, body string
		status     int
		code       connect.ErrorCode
	}{
		{"not JSON", `{"targets":`, 400, connect.CodeInvalidRequest},
		{"no targets", `{"targets":[]}`, 400, connect.CodeInvalidRequest},
		{"unknown operation", `{"operation":"merge","targets":[{"externalId":"A","title":"a"}]}`, 400, connect.CodeInvalidRequest},
		{"too many targets", `{"targets":[` + strings.Repeat(`{},`, 1000) + `{}]}`, 413, connect.CodePayloadTooLarge},
		{"body too large", `{"targets":[{"externalId":"A","title":"` + strings.Repeat("x", 70<<10) + `"}]}`, 413, connect.CodePayloadTooLarge},
	}
	for _, tc := range tests {
		resp := post(tc.body, true)
		if resp.status != tc.status || resp.apiError(t).Code != tc.code {
			t.Errorf("%s: got %d %s; want %d %s", tc.name, resp.status, resp.body, tc.status, tc.code)
		}
	}
	list := s.do(request{method: "GET", path: base + "/import-jobs", key: key})
	var jobs connect.ImportJobList
	list.json(t, &jobs)
	if jobs.Total != 1 {
		t.Errorf("%d jobs after refused requests, want 1", jobs.Total)
	}
}

// TestBodyLimitWhileReading: a chunked body without Content-Length is cut off
// at the limit while it is read.
func TestBodyLimitWhileReading(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.MaxBodyBytes = 1 << 10 })
	key := s.key("acme", "erp", connect.ScopeTargetsBatchWrite)
	body := strings.NewReader(`{"targets":[{"externalId":"A","title":"` + strings.Repeat("x", 4<<10) + `"}]}`)
	req, _ := http.NewRequest("POST", s.url+base+"/inbound/targets/batch", struct{ *strings.Reader }{body})
	req.Header.Set("Authorization", "Bearer "+key)
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}

// TestBatchReplayIsByteIdentical: the replay of a batch of 1,000 targets is
// the original answer byte for byte, however the store keeps the result.
func TestBatchReplayIsByteIdentical(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeTargetsBatchWrite)
	body := string(importertest.RealisticBatch("R", 1000))
	post := func() response {
		return s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: body, key: key, header: map[string]string{"Idempotency-Key": "batch-1"}})
	}
	first, replay := post(), post()
	if first.status != 200 || replay.status != 200 || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("first %d, replay %d (replayed %q); want 200 twice, the second replayed", first.status, replay.status, replay.header.Get("Idempotent-Replayed"))
	}
	if !bytes.Equal(first.body, replay.body) {
		t.Errorf("the replayed body (%d bytes) differs from the original (%d bytes)", len(replay.body), len(first.body))
	}
}

func TestIdempotencyOverHTTP(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite)
	post := func(path, body, idem string, invalid bool) response {
		return s.do(request{method: "POST", path: base + path, body: body, key: key, header: map[string]string{"Idempotency-Key": idem}, invalid: invalid})
	}
	first := post("/inbound/targets", goodTarget, "k-1", false)
	replay := post("/inbound/targets", `{"title":"Boiler","externalId":"T1","address":{"longitude":13.4,"latitude":52.5}}`, "k-1", false)
	if first.status != 201 || replay.status != 201 || replay.header.Get("Idempotent-Replayed") != "true" || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first %d (%q), replay %d (%q); want 201 and a replayed 201", first.status, first.header.Get("Idempotent-Replayed"), replay.status, replay.header.Get("Idempotent-Replayed"))
	}
	if string(first.body) != string(replay.body) {
		t.Errorf("replayed body differs:\n%s\n%s", first.body, replay.body)
	}
	reused := post("/inbound/targets", `{"externalId":"T9","title":"other"}`, "k-1", false)
	if reused.status != 409 || reused.apiError(t).Code != connect.CodeIdempotencyKeyReused {
		t.Errorf("reused key: %d %s", reused.status, reused.body)
	}
	otherPath := post("/inbound/targets/batch", goodTarget, "k-1", true)
	if otherPath.status != 409 || otherPath.apiError(t).Code != connect.CodeIdempotencyKeyReused {
		t.Errorf("same key on another path: %d %s", otherPath.status, otherPath.body)
	}
	for _, bad := range []string{"", strings.Repeat("k", 256), "tab\tkey"} {
		resp := post("/inbound/targets", goodTarget, bad, true)
		if resp.status != 400 || resp.apiError(t).Code != connect.CodeInvalidRequest {
			t.Errorf("Idempotency-Key %q: %d %s", bad, resp.status, resp.body)
		}
	}
	// A recorded 400 is replayed with its status.
	for i, want := range []string{"", "true"} {
		resp := post("/inbound/targets/batch", `{"targets":[]}`, "k-empty", true)
		if resp.status != 400 || resp.header.Get("Idempotent-Replayed") != want {
			t.Errorf("empty batch, call %d: %d replayed %q", i, resp.status, resp.header.Get("Idempotent-Replayed"))
		}
	}
}

// TestConcurrentIdempotentRequests: many clients send one request with one key
// at once; it runs once, the others get the replay or 409 IdempotencyKeyInUse.
func TestConcurrentIdempotentRequests(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeTargetsBatchWrite, connect.ScopeImportJobsRead)
	var body strings.Builder
	body.WriteString(`{"targets":[`)
	for i := range 500 {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `{"externalId":"C%d","title":"t"}`, i)
	}
	body.WriteString("]}")
	const clients = 16
	resps := make([]response, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			resps[i] = s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: body.String(), key: key, header: map[string]string{"Idempotency-Key": "same"}})
		})
	}
	wg.Wait()
	executed := 0
	for _, r := range resps {
		switch {
		case r.status == 409 && r.apiError(t).Code == connect.CodeIdempotencyKeyInUse:
		case r.status == 200 && r.header.Get("Idempotent-Replayed") == "true":
		case r.status == 200:
			executed++
		default:
			t.Errorf("unexpected answer %d %s", r.status, r.body)
		}
	}
	list := s.do(request{method: "GET", path: base + "/import-jobs", key: key})
	var jobs connect.ImportJobList
	list.json(t, &jobs)
	if executed != 1 || jobs.Total != 1 {
		t.Errorf("%d executions, %d jobs; want 1 and 1", executed, jobs.Total)
	}
}

func TestRateLimit(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.RateLimit = rate.Every(time.Minute); c.RateBurst = 2 })
	key := s.key("acme", "erp", connect.AllScopes...)
	other := s.key("acme", "other", connect.AllScopes...)
	limited := []endpoint{
		{"1", "GET", base + "/integration/health", "", "", 200},
		{"2", "POST", base + "/inbound/targets", goodTarget, "", 0},
		{"3", "POST", base + "/inbound/targets/batch", goodBatch, "", 200},
	}
	for _, ep := range limited {
		t.Run(ep.name, func(t *testing.T) {
			s := newServer(t, func(c *httpapi.Config) { c.RateLimit = rate.Every(time.Minute); c.RateBurst = 2 })
			key := s.key("acme", "erp", connect.AllScopes...)
			for i := range 2 {
				if resp := s.do(request{method: ep.method, path: ep.path, body: ep.body, key: key}); resp.status >= 300 {
					t.Fatalf("request %d: %d", i, resp.status)
				}
			}
			resp := s.do(request{method: ep.method, path: ep.path, body: ep.body, key: key})
			e := resp.apiError(t)
			if resp.status != 429 || e.Code != connect.CodeRateLimited || e.RetryAfterSeconds == nil {
				t.Fatalf("third request: %d %s", resp.status, resp.body)
			}
			header, _ := strconv.Atoi(resp.header.Get("Retry-After"))
			if header != *e.RetryAfterSeconds || header < 1 || header > 60 {
				t.Errorf("Retry-After %q, retryAfterSeconds %d: want the same whole seconds in 1..60", resp.header.Get("Retry-After"), *e.RetryAfterSeconds)
			}
		})
	}
	// The bucket is per client and the job endpoints are not limited.
	for i, want := range []int{200, 200, 429} {
		if resp := s.do(request{method: "GET", path: base + "/integration/health", key: key}); resp.status != want {
			t.Errorf("health %d: %d, want %d", i, resp.status, want)
		}
	}
	if resp := s.do(request{method: "GET", path: base + "/integration/health", key: other}); resp.status != 200 {
		t.Errorf("another client was limited: %d", resp.status)
	}
	for range 3 {
		if resp := s.do(request{method: "GET", path: base + "/import-jobs", key: key}); resp.status != 200 {
			t.Errorf("list jobs limited: %d", resp.status)
		}
	}
	if !strings.Contains(scrape(t, s), `connect_rate_limited_requests_total{route="/api/v1/integration/health"} 1`) {
		t.Error("rate-limited request not counted")
	}
}

func TestTenantIsolation(t *testing.T) {
	s := newServer(t)
	acme := s.key("acme", "erp", connect.AllScopes...)
	globex := s.key("globex", "erp", connect.AllScopes...)
	resp := s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: goodBatch, key: acme})
	var r connect.InboundImportResult
	resp.json(t, &r)
	job := fmt.Sprintf("%s/import-jobs/%d", base, r.ImportJobID)
	if resp := s.do(request{method: "GET", path: job, key: acme}); resp.status != 200 {
		t.Errorf("own job: %d", resp.status)
	}
	if resp := s.do(request{method: "GET", path: job, key: globex}); resp.status != 404 || resp.apiError(t).Code != connect.CodeNotFound {
		t.Errorf("other tenant's job: %d %s", resp.status, resp.body)
	}
	var list connect.ImportJobList
	s.do(request{method: "GET", path: base + "/import-jobs", key: globex}).json(t, &list)
	if list.Total != 0 || len(list.Jobs) != 0 {
		t.Errorf("globex lists %d jobs", list.Total)
	}
	var health connect.IntegrationHealthResponse
	s.do(request{method: "GET", path: base + "/integration/health", key: globex}).json(t, &health)
	if health.TenantID != "globex" || health.ClientID != "erp" || health.SourceSystem != "erp" || health.Status != "Healthy" {
		t.Errorf("health %+v", health)
	}
}

func TestJobEndpoints(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.AllScopes...)
	for i := range 3 {
		s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: fmt.Sprintf(`{"sourceSystem":"src%d","targets":[{"externalId":"X","title":"x"}]}`, i%2), key: key})
	}
	tests := []struct {
		query                   string
		wantSkip, wantTake, tot int
	}{
		{"", 0, 50, 3},
		{"?take=500&skip=-3", 0, 200, 3},
		{"?take=0", 0, 1, 3},
		{"?take=abc&skip=xyz", 0, 50, 3},
		{"?take=999999999999999999999&skip=-999999999999999999999", 0, 200, 3},
		{"?sourceSystem=SRC0", 0, 50, 2},
		{"?status=accepted&skip=1&take=1", 1, 1, 3},
		{"?status=Nope", 0, 50, 0},
	}
	for _, tc := range tests {
		resp := s.do(request{method: "GET", path: base + "/import-jobs" + tc.query, key: key, invalid: true})
		var list connect.ImportJobList
		resp.json(t, &list)
		if resp.status != 200 || list.Skip != tc.wantSkip || list.Take != tc.wantTake || list.Total != tc.tot {
			t.Errorf("%s: %d skip %d take %d total %d", tc.query, resp.status, list.Skip, list.Take, list.Total)
		}
	}
	for _, id := range []string{"999", "abc", "9223372036854775808", "-1"} {
		resp := s.do(request{method: "GET", path: base + "/import-jobs/" + id, key: key, invalid: true})
		if resp.status != 404 || resp.apiError(t).Code != connect.CodeNotFound {
			t.Errorf("job %s: %d %s", id, resp.status, resp.body)
		}
	}
	var job connect.ImportJobDetails
	s.do(request{method: "GET", path: base + "/import-jobs/1", key: key}).json(t, &job)
	if job.ID != 1 || job.SourceSystem != "src0" || len(job.Items) != 1 {
		t.Errorf("job 1: %+v", job)
	}
}

// TestOversizeBodies: only the batch endpoint has 413 in the contract; the
// others refuse an oversize body with 400.
func TestOversizeBodies(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.MaxBodyBytes = 1 << 10 })
	key := s.key("acme", "erp", connect.AllScopes...)
	jobID := seedJob(t, s)
	big := `{"externalId":"X","title":"` + strings.Repeat("x", 2<<10) + `"}`
	tests := []struct {
		path   string
		status int
		code   connect.ErrorCode
	}{
		{base + "/inbound/targets/batch", 413, connect.CodePayloadTooLarge},
		{base + "/inbound/targets", 400, connect.CodeInvalidRequest},
		{fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID), 400, connect.CodeInvalidRequest},
		{"/connect/v1/appointment-requests", 400, connect.CodeInvalidRequest},
	}
	for _, tc := range tests {
		resp := s.do(request{method: "POST", path: tc.path, body: big, key: key, invalid: true})
		if e := resp.apiError(t); resp.status != tc.status || e.Code != tc.code || !strings.Contains(e.Message, "larger than the limit") {
			t.Errorf("%s: %d %s", tc.path, resp.status, resp.body)
		}
	}
}

// TestQuotedValuesAreCut: a value quoted in an error message, or kept in a
// rejected item's result, is cut to 200 characters followed by "…"
// (DECISIONS.md "Bounded cost of every request").
func TestQuotedValuesAreCut(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.AllScopes...)
	jobID := seedJob(t, s)
	long := strings.Repeat("x", 10_000) // longer strings are refused unread
	cut := strings.Repeat("x", 200) + "…"
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantMessage              string
	}{
		{"unknown employee", "POST", fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID), `{"routeDate":"2026-11-23","employeeId":"` + long + `"}`,
			404, `employee "` + cut + `" not found`},
		{"unknown appointment request", "GET", "/connect/v1/appointment-requests/apr_" + long, "", 404, `appointment request "apr_` + strings.Repeat("x", 196) + `…" not found`},
		{"id that is not an id", "GET", base + "/import-jobs/" + long, "", 404, `"` + cut + `" is not an id`},
		{"duplicate long member name", "POST", "/connect/v1/appointment-requests", `{"` + long + `":1,"` + long + `":2}`, 400, cut + " is given twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.do(request{method: tc.method, path: tc.path, body: tc.body, key: key, invalid: true})
			if e := resp.apiError(t); resp.status != tc.wantStatus || e.Message != tc.wantMessage {
				t.Errorf("got %d %q…, want %d %q…", resp.status, e.Message[:min(len(e.Message), 60)], tc.wantStatus, tc.wantMessage[:60])
			}
		})
	}
	t.Run("rejected item keeps its externalId cut", func(t *testing.T) {
		var r connect.InboundImportResult
		s.do(request{method: "POST", path: base + "/inbound/targets", body: `{"externalId":"` + long + `","title":"t"}`, key: key, invalid: true}).json(t, &r)
		if item := r.Items[0]; item.Status != connect.ItemRejected || item.ExternalID != cut {
			t.Errorf("item %s with an externalId of %d bytes, want Rejected and %d", item.Status, len(item.ExternalID), len(cut))
		}
		job := s.do(request{method: "GET", path: fmt.Sprintf("%s/import-jobs/%d", base, r.ImportJobID), key: key})
		if strings.Contains(string(job.body), strings.Repeat("x", 201)) {
			t.Errorf("the job keeps more than 200 characters of the externalId (%d bytes)", len(job.body))
		}
	})
}
