package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
)

// TestProbes: /healthz and /readyz answer at the server root without an API
// key; /readyz follows Config.Ready.
func TestProbes(t *testing.T) {
	var down error
	var mu sync.Mutex
	s := newServer(t, func(c *httpapi.Config) {
		c.Ready = func(context.Context) error { mu.Lock(); defer mu.Unlock(); return down }
	})
	tests := []struct {
		path   string
		down   error
		status int
		body   string
	}{
		{"/healthz", nil, http.StatusOK, `{"status":"ok"}`},
		{"/readyz", nil, http.StatusOK, `{"status":"ready"}`},
		{"/healthz", errors.New("connection refused"), http.StatusOK, `{"status":"ok"}`},
		{"/readyz", errors.New("connection refused"), http.StatusServiceUnavailable, "unavailable\n"},
	}
	for _, tc := range tests {
		mu.Lock()
		down = tc.down
		mu.Unlock()
		resp := s.do(request{method: http.MethodGet, path: tc.path})
		if resp.status != tc.status || string(resp.body) != tc.body {
			t.Errorf("GET %s with the store down=%v: %d %s, want %d %s", tc.path, tc.down != nil, resp.status, resp.body, tc.status, tc.body)
		}
	}
}

// sharedLimiter is a RateLimiter two handlers share, as replicas share one in
// their database: it allows the first n requests of each key.
type sharedLimiter struct {
	mu    sync.Mutex
	n     int
	taken map[string]int
	err   error
}

func (l *sharedLimiter) Allow(_ context.Context, key string) (bool, time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return false, 0, l.err
	}
	l.taken[key]++
	return l.taken[key] <= l.n, 1500 * time.Millisecond, nil
}

// TestSharedRateLimiter: a limiter made by Config.NewRateLimiter decides for
// the handler: it is made from the handler's one policy, which the 429
// message quotes; two handlers sharing it give a client its allowance once,
// not once each; the wait it reports becomes whole seconds of Retry-After; a
// limiter that cannot answer lets requests through.
func TestSharedRateLimiter(t *testing.T) {
	shared := &sharedLimiter{n: 3, taken: map[string]int{}}
	var policies []string
	share := func(c *httpapi.Config) {
		c.RateLimit, c.RateBurst = 2, 3
		c.NewRateLimiter = func(perSecond float64, burst int) httpapi.RateLimiter {
			policies = append(policies, fmt.Sprintf("%g/s burst %d", perSecond, burst))
			return shared
		}
	}
	a := newServer(t, share)
	key := a.key("acme", "erp-client", connect.ScopeHealthRead)
	b := newServer(t, func(c *httpapi.Config) { share(c); c.Clients = a.clients })
	if want := []string{"2/s burst 3", "2/s burst 3"}; !slices.Equal(policies, want) {
		t.Errorf("limiters made with %v, want %v", policies, want)
	}
	var statuses []int
	for i := range 6 {
		s := a
		if i%2 == 1 {
			s = b
		}
		resp := s.do(request{method: http.MethodGet, path: "/api/v1/integration/health", key: key})
		statuses = append(statuses, resp.status)
		if resp.status == http.StatusTooManyRequests && resp.header.Get("Retry-After") != "2" {
			t.Errorf("Retry-After %q, want 2 (1.5 s rounded up)", resp.header.Get("Retry-After"))
		}
		if want := "this client may send 2 requests per second (bursts of 3)"; resp.status == http.StatusTooManyRequests && !strings.Contains(string(resp.body), want) {
			t.Errorf("429 body %s does not say %q", resp.body, want)
		}
	}
	want := []int{200, 200, 200, 429, 429, 429}
	if !slices.Equal(statuses, want) {
		t.Errorf("alternating over two handlers: %v, want %v", statuses, want)
	}
	shared.err = errors.New("database unreachable")
	if resp := b.do(request{method: http.MethodGet, path: "/api/v1/integration/health", key: key}); resp.status != http.StatusOK {
		t.Errorf("with the limiter unavailable: %d, want 200", resp.status)
	}
}
