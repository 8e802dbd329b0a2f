package httpapi_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/teststore"
)

// newReplicas starts two servers on one PostgreSQL database, as two connectd
// replicas behind a load balancer: each its own store, services and handler,
// sharing the rate limit through the database.
func newReplicas(t *testing.T) (a, b *server) {
	t.Helper()
	if teststore.Engine() != "postgres" {
		t.Skip("replicas share a PostgreSQL database; this test runs in the PostgreSQL pass")
	}
	url := pgtest.URL(t)
	replica := func() *server {
		db := teststore.OpenPostgres(t, url)
		return newServerOn(t, db, func(c *httpapi.Config) {
			c.NewRateLimiter = func(perSecond float64, burst int) httpapi.RateLimiter { return db.RateLimiter(perSecond, burst) }
			c.Ready = db.Ping
		})
	}
	return replica(), replica()
}

// TestReplicasExecuteAKeyOnce: 64 concurrent requests with one
// Idempotency-Key, alternating over two replicas, import once; every other
// answer replays that import or is 409 IdempotencyKeyInUse.
func TestReplicasExecuteAKeyOnce(t *testing.T) {
	a, b := newReplicas(t)
	key := a.key("acme", "erp-client", connect.ScopeTargetsWrite, connect.ScopeImportJobsRead)
	const n = 64
	answers := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		s := []*server{a, b}[i%2]
		wg.Go(func() {
			answers[i] = s.do(request{method: http.MethodPost, path: "/api/v1/inbound/targets", key: key,
				body: `{"externalId":"R-1","title":"Replicated"}`, header: map[string]string{"Idempotency-Key": "one-key"}})
		})
	}
	wg.Wait()
	executed, replayed, inUse := 0, 0, 0
	jobs := map[int64]bool{}
	for i, resp := range answers {
		switch {
		case resp.status == http.StatusCreated && resp.header.Get("Idempotent-Replayed") == "true":
			replayed++
		case resp.status == http.StatusCreated:
			executed++
		case resp.status == http.StatusConflict && resp.apiError(t).Code == connect.CodeIdempotencyKeyInUse:
			inUse++
			continue
		default:
			t.Fatalf("answer %d: %d %s", i, resp.status, resp.body)
		}
		var result connect.InboundImportResult
		resp.json(t, &result)
		jobs[result.ImportJobID] = true
	}
	if executed != 1 || len(jobs) != 1 || executed+replayed+inUse != n {
		t.Errorf("%d executed, %d replayed, %d in use, jobs %v; want 1 execution and one job", executed, replayed, inUse, jobs)
	}
	var list connect.ImportJobList
	b.do(request{method: http.MethodGet, path: "/api/v1/import-jobs", key: key}).json(t, &list)
	if list.Total != 1 {
		t.Errorf("the service holds %d jobs, want 1", list.Total)
	}
}

// TestReplicasShareTheRateLimit: a client sending as fast as it can,
// alternating over two replicas, gets at most 10% more than one replica
// allows over the same time (its burst plus the rate times the time taken),
// and at least its burst.
func TestReplicasShareTheRateLimit(t *testing.T) {
	a, b := newReplicas(t)
	key := a.key("acme", "erp-client", connect.ScopeHealthRead)
	start := time.Now()
	admitted := 0
	for i := range 300 {
		s := []*server{a, b}[i%2]
		switch resp := s.do(request{method: http.MethodGet, path: "/api/v1/integration/health", key: key}); resp.status {
		case http.StatusOK:
			admitted++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("request %d: %d %s", i, resp.status, resp.body)
		}
	}
	oneReplica := float64(httpapi.DefaultRateBurst) + float64(httpapi.DefaultRateLimit)*time.Since(start).Seconds()
	if float64(admitted) > 1.1*oneReplica || admitted < httpapi.DefaultRateBurst {
		t.Errorf("admitted %d of 300 over two replicas; one replica allows %.0f in the same time", admitted, oneReplica)
	}
}

// TestReplicaReadiness: /readyz follows the database.
func TestReplicaReadiness(t *testing.T) {
	a, _ := newReplicas(t)
	if resp := a.do(request{method: http.MethodGet, path: "/readyz"}); resp.status != http.StatusOK {
		t.Errorf("GET /readyz: %d %s", resp.status, resp.body)
	}
}

// TestReplicasPlanAKeyOnce: one route plan request sent to both replicas at
// once under one Idempotency-Key stores one plan; the other answer replays it
// or is 409 IdempotencyKeyInUse.
func TestReplicasPlanAKeyOnce(t *testing.T) {
	a, b := newReplicas(t)
	crew(t, a)
	key := a.key("acme", "planner", connect.AllScopes...)
	seedJob(t, a)
	answers := make([]response, 2)
	var wg sync.WaitGroup
	for i, s := range []*server{a, b} {
		wg.Go(func() {
			answers[i] = s.do(request{method: http.MethodPost, path: "/api/v1/route-plans", key: key,
				body: `{"routeDate":"2026-11-23","employeeIds":["anna","ben"]}`, header: map[string]string{"Idempotency-Key": "plan-key"}})
		})
	}
	wg.Wait()
	plans := map[int64]bool{}
	for i, resp := range answers {
		if resp.status == http.StatusConflict && resp.apiError(t).Code == connect.CodeIdempotencyKeyInUse {
			continue
		}
		var created connect.CreateRoutePlanResponse
		resp.json(t, &created)
		if resp.status != http.StatusCreated {
			t.Fatalf("answer %d: %d %s", i, resp.status, resp.body)
		}
		plans[created.RoutePlanID] = true
	}
	retry := b.do(request{method: http.MethodPost, path: "/api/v1/route-plans", key: key,
		body: `{"routeDate":"2026-11-23","employeeIds":["anna","ben"]}`, header: map[string]string{"Idempotency-Key": "plan-key"}})
	var replayed connect.CreateRoutePlanResponse
	retry.json(t, &replayed)
	plans[replayed.RoutePlanID] = true
	if len(plans) != 1 || retry.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("plans %v, retry replayed %q; want one plan", plans, retry.header.Get("Idempotent-Replayed"))
	}
	if r := a.do(request{method: http.MethodGet, path: "/api/v1/route-plans/" + fmt.Sprint(replayed.RoutePlanID+1), key: key}); r.status != http.StatusNotFound {
		t.Errorf("a second plan was stored: %d %s", r.status, r.body)
	}
}
