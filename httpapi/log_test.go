package httpapi_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
)

// TestRequestLog: one line per request; error answers carry their code, 429
// answers are logged at debug level, unmatched requests name their path.
func TestRequestLog(t *testing.T) {
	logs := &syncBuffer{}
	s := newServer(t, func(c *httpapi.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.RateLimit, c.RateBurst = rate.Every(time.Hour), 1
	})
	key := s.key("acme", "erp", connect.ScopeHealthRead)
	tests := []struct {
		req  request
		want string
	}{
		{request{method: "GET", path: base + "/integration/health", key: key, header: map[string]string{"X-Correlation-Id": "log-ok"}},
			`level=INFO msg=request correlationId=log-ok method=GET route=/api/v1/integration/health status=200`},
		{request{method: "GET", path: base + "/integration/health", key: key, header: map[string]string{"X-Correlation-Id": "log-429"}},
			`level=DEBUG msg=request correlationId=log-429 method=GET route=/api/v1/integration/health status=429`},
		{request{method: "GET", path: base + "/import-jobs", key: key, header: map[string]string{"X-Correlation-Id": "log-403"}},
			`errorCode=InsufficientScope tenantId=acme clientId=erp`},
		{request{method: "GET", path: "/no/such/thing", header: map[string]string{"X-Correlation-Id": "log-404"}},
			`level=INFO msg=request correlationId=log-404 method=GET route=unmatched status=404`},
	}
	for _, tc := range tests {
		s.do(tc.req)
		if !strings.Contains(logs.String(), tc.want) {
			t.Errorf("%s %s: no log line with %q in\n%s", tc.req.method, tc.req.path, tc.want, logs)
		}
	}
	for _, want := range []string{"path=/no/such/thing", "errorCode=NotFound", "correlationId=log-429 method=GET route=/api/v1/integration/health status=429 durationMs="} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no %q in\n%s", want, logs)
		}
	}
	if line := lineWith(logs.String(), "correlationId=log-429"); !strings.Contains(line, "errorCode=RateLimited") {
		t.Errorf("the 429 line lacks its error code: %s", line)
	}
	if line := lineWith(logs.String(), "correlationId=log-ok"); strings.Contains(line, "errorCode") {
		t.Errorf("a success carries an error code: %s", line)
	}
}

func lineWith(logs, s string) string {
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
