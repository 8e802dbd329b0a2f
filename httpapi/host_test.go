package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
)

func TestUnknownRoutes(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		method, path string
		status       int
		code         connect.ErrorCode
		allow        string
	}{
		{"GET", "/nope", 404, connect.CodeNotFound, ""},
		{"GET", base + "/inbound/targets/", 404, connect.CodeNotFound, ""},
		{"DELETE", base + "/import-jobs", 405, connect.CodeMethodNotAllowed, "GET, HEAD"},
		{"PUT", base + "/inbound/targets", 405, connect.CodeMethodNotAllowed, "POST"},
		{"OPTIONS", base + "/import-jobs", 405, connect.CodeMethodNotAllowed, "GET, HEAD"},
		{"PUT", base + "/webhook-subscriptions/1", 405, connect.CodeMethodNotAllowed, "DELETE, GET, HEAD"},
	}
	for _, tc := range tests {
		resp := s.do(request{method: tc.method, path: tc.path, invalid: true})
		if resp.status != tc.status || resp.apiError(t).Code != tc.code {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, resp.status, resp.body)
		}
		if got := resp.header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
	// Unknown methods share one metric series.
	for _, m := range []string{"XA", "XB"} {
		s.do(request{method: m, path: base + "/import-jobs", invalid: true})
	}
	if text := scrape(t, s); strings.Contains(text, `method="XA"`) || !strings.Contains(text, `method="OTHER",route="unmatched",status="405"} 2`) {
		t.Errorf("unknown methods are not counted as OTHER")
	}
}

// panickingImporter is an Importer whose every call panics, to check that the
// host recovers.
type panickingImporter struct{ connect.Importer }

func (panickingImporter) ImportTargetJSON(context.Context, connect.Caller, []byte, connect.WriteOptions) (connect.ImportOutcome, error) {
	panic("boom")
}

func TestPanicIsInternalError(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.Importer = panickingImporter{c.Importer} })
	key := s.key("acme", "erp", connect.ScopeTargetsWrite)
	resp := s.do(request{method: "POST", path: base + "/inbound/targets", body: goodTarget, key: key, header: map[string]string{"X-Correlation-Id": "corr-panic-1"}})
	e := resp.apiError(t)
	if resp.status != 500 || e.Code != connect.CodeInternalError || strings.Contains(string(resp.body), "boom") {
		t.Fatalf("got %d %s; want 500 InternalError without details", resp.status, resp.body)
	}
	logs := s.logs.String()
	if !strings.Contains(logs, "boom") || !strings.Contains(logs, "correlationId=corr-panic-1") {
		t.Errorf("the panic is not logged with its correlation id:\n%s", logs)
	}
	// The server goes on serving.
	if resp := s.do(request{method: "GET", path: base + "/openapi.json"}); resp.status != 200 {
		t.Errorf("after a panic: %d", resp.status)
	}
}

func TestCorrelationID(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		sent     string
		echoed   bool
		describe string
	}{
		{"order-42/step-3", true, "sane id"},
		{strings.Repeat("c", 128), true, "128 characters"},
		{strings.Repeat("c", 129), false, "too long"},
		{"café", false, "not ASCII"},
	}
	for _, tc := range tests {
		resp := s.do(request{method: "GET", path: base + "/import-jobs", header: map[string]string{"X-Correlation-Id": tc.sent}, invalid: true})
		got := resp.header.Get("X-Correlation-Id")
		if (got == tc.sent) != tc.echoed || got == "" {
			t.Errorf("%s: sent %q, got %q", tc.describe, tc.sent, got)
		}
	}
	a := s.do(request{method: "GET", path: base + "/import-jobs"}).header.Get("X-Correlation-Id")
	b := s.do(request{method: "GET", path: base + "/import-jobs"}).header.Get("X-Correlation-Id")
	if a == b {
		t.Error("generated correlation ids repeat")
	}
	if !strings.Contains(s.logs.String(), "correlationId="+a) {
		t.Error("the request log line lacks the correlation id")
	}
}

func TestMetrics(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.AllScopes...)
	s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: goodBatch, key: key, header: map[string]string{"Idempotency-Key": "m1"}})
	s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: goodBatch, key: key, header: map[string]string{"Idempotency-Key": "m1"}})
	s.do(request{method: "GET", path: base + "/import-jobs/1", key: key})
	s.do(request{method: "GET", path: base + "/import-jobs/2", key: key})
	text := scrape(t, s)
	for _, want := range []string{
		`connect_http_requests_total{method="GET",route="/api/v1/import-jobs/:id",status="200"} 1`,
		`connect_http_requests_total{method="GET",route="/api/v1/import-jobs/:id",status="404"} 1`,
		`connect_http_requests_total{method="POST",route="/api/v1/inbound/targets/batch",status="200"} 2`,
		`connect_http_request_duration_seconds_count{method="POST",route="/api/v1/inbound/targets/batch",status="200"} 2`,
		`connect_imported_items_total{status="Imported"} 2`,
		`connect_idempotent_replays_total{route="/api/v1/inbound/targets/batch"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Two handlers in one process keep their own registries.
	other := newServer(t)
	if strings.Contains(scrape(t, other), "connect_imported_items_total{") {
		t.Error("a second handler shares the first one's metrics")
	}
}

func TestMetricsElsewhere(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.MetricsElsewhere = true })
	if resp := s.do(request{method: "GET", path: "/metrics", invalid: true}); resp.status != 404 {
		t.Errorf("/metrics on the main listener: %d", resp.status)
	}
	rec := httptest.NewRecorder()
	s.handler.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), "go_goroutines") {
		t.Error("Metrics() does not serve the metrics")
	}
}

func TestBuildInfo(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.Version = "v1.4.2" })
	want := fmt.Sprintf(`connect_build_info{goversion=%q,version="v1.4.2"} 1`, runtime.Version())
	if text := scrape(t, s); !strings.Contains(text, want) {
		t.Errorf("no %s in\n%s", want, text)
	}
	if text := scrape(t, newServer(t)); !strings.Contains(text, `version="dev"`) {
		t.Errorf("a handler without a version is not labelled dev")
	}
}

func TestOpenAPIServed(t *testing.T) {
	s := newServer(t)
	resp := s.do(request{method: "GET", path: base + "/openapi.json"})
	if resp.status != 200 || string(resp.body) != string(httpapi.OpenAPI()) {
		t.Errorf("openapi.json: %d", resp.status)
	}
	custom := newServer(t, func(c *httpapi.Config) { c.BasePath = "/integration/v9/" })
	key := custom.key("acme", "erp", connect.AllScopes...)
	doc := get(t, custom.url+"/integration/v9/openapi.json")
	if !strings.Contains(doc, `"servers":[{"url":"/integration/v9"}]`) {
		t.Errorf("custom base path not in the served document: %.200s", doc)
	}
	req, _ := http.NewRequest("GET", custom.url+"/integration/v9/integration/health", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	r, err := http.DefaultClient.Do(req)
	if err != nil || r.StatusCode != 200 {
		t.Errorf("health under the custom base path: %v %v", r, err)
	}
}

// TestDocumentCoversRoutes: every path of the document is served and every
// served route is in the document.
func TestDocumentCoversRoutes(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.AllScopes...)
	served := []struct{ method, path string }{
		{"GET", base + "/integration/health"}, {"POST", base + "/inbound/targets"}, {"POST", base + "/inbound/targets/batch"},
		{"GET", base + "/import-jobs"}, {"GET", base + "/import-jobs/1"}, {"GET", base + "/openapi.json"}, {"GET", "/metrics"},
		{"POST", "/connect/v1/appointment-requests"}, {"GET", "/connect/v1/appointment-requests/apr_1"},
		{"GET", "/connect/v1/appointment-requests/apr_1/status"}, {"POST", "/connect/v1/appointment-requests/apr_1/cancel"},
		{"POST", base + "/webhook-subscriptions"}, {"GET", base + "/webhook-subscriptions"}, {"GET", base + "/webhook-subscriptions/1"},
		{"DELETE", base + "/webhook-subscriptions/1"}, {"POST", base + "/webhook-subscriptions/1/rotate-secret"},
	}
	for _, r := range served {
		req, _ := http.NewRequest(r.method, s.url+r.path, nil)
		if route, _ := findRoute(t, req, ""); route == nil {
			t.Errorf("%s %s is served but not in the document", r.method, r.path)
		}
		resp := s.do(request{method: r.method, path: r.path, key: key, invalid: true})
		if resp.status == 404 && !strings.Contains(r.path, "/import-jobs/") && !strings.Contains(r.path, "apr_1") && !strings.Contains(r.path, "/webhook-subscriptions/") || resp.status == 405 {
			t.Errorf("%s %s is in the document but answers %d", r.method, r.path, resp.status)
		}
	}
}

func scrape(t testing.TB, s *server) string {
	t.Helper()
	return get(t, s.url+"/metrics")
}

func get(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestHeadOnEveryGet: every GET operation of the document answers HEAD with
// the status and headers of the GET and no body.
func TestHeadOnEveryGet(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.AllScopes...)
	var doc struct {
		Paths map[string]map[string]jsontext.Value `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		if _, ok := item["get"]; !ok {
			continue
		}
		prefix := base
		if strings.HasPrefix(path, "/appointment-requests") {
			prefix = "/connect/v1"
		} else if path == "/metrics" {
			prefix = ""
		}
		url := prefix + strings.NewReplacer("{id}", "1").Replace(path)
		get := s.do(request{method: "GET", path: url, key: key, invalid: true})
		head := s.do(request{method: "HEAD", path: url, key: key, invalid: true})
		if head.status != get.status || len(head.body) != 0 || head.header.Get("Content-Type") != get.header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q with %d bytes; GET: %d %q", url, head.status, head.header.Get("Content-Type"), len(head.body), get.status, get.header.Get("Content-Type"))
		}
		n++
	}
	if n < 8 {
		t.Errorf("only %d GET operations found", n)
	}
}
