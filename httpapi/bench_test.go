package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/routesuggest/routetest"
)

// benchClient posts to the benchmark server over a real loopback connection,
// keeping connections alive like a real integration would.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}

func post(b *testing.B, url, key string, body []byte) int {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := benchClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// BenchmarkHTTPBatchImport sends batches of 1,000 realistic targets through the
// whole HTTP path; compare its items/s with importer's BenchmarkImportBatch.
func BenchmarkHTTPBatchImport(b *testing.B) {
	s := newBenchServer(b)
	key := s.key("acme", "erp", connect.ScopeTargetsBatchWrite)
	const n = 1000
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		body := importertest.RealisticBatch(fmt.Sprintf("H%d", i), n)
		b.StartTimer()
		if status := post(b, s.url+base+"/inbound/targets/batch", key, body); status != 200 {
			b.Fatalf("status %d", status)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkHTTPSingleImportParallel sends single imports from 64 concurrent
// clients; compare with importer's BenchmarkImportSingleParallel.
func BenchmarkHTTPSingleImportParallel(b *testing.B) {
	s := newBenchServer(b)
	key := s.key("acme", "erp", connect.ScopeTargetsWrite)
	var seq atomic.Int64
	b.SetParallelism(max(1, 64/runtimeProcs()))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := []byte(importertest.RealisticTarget("P", int(seq.Add(1))))
			if status := post(b, s.url+base+"/inbound/targets", key, body); status != 201 {
				b.Errorf("status %d", status)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkHTTPRouteSuggestion200 asks endpoint 6 for a day planned from a job
// of 200 routable targets, over a real loopback connection.
func BenchmarkHTTPRouteSuggestion200(b *testing.B) {
	s := newBenchServer(b)
	key := s.key("acme", "planner", connect.ScopeTargetsBatchWrite, connect.ScopeRouteSuggestionsCreate)
	body := []byte(`{"targets":[` + strings.Join(routetest.Targets(200), ",") + `]}`)
	if status := post(b, s.url+base+"/inbound/targets/batch", key, body); status != 200 {
		b.Fatalf("import: %d", status)
	}
	if _, err := s.routes.PutEmployee(b.Context(), "acme", routetest.Employee()); err != nil {
		b.Fatal(err)
	}
	request := []byte(`{"routeDate":"2026-11-23","employeeId":"tech-1"}`)
	b.ResetTimer()
	for range b.N {
		if status := post(b, s.url+base+"/import-jobs/1/route-suggestion", key, request); status != 200 {
			b.Fatalf("status %d", status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/request")
}

// BenchmarkHealthUnderRouteLoad keeps 32 route requests on a 1,000-target job
// in flight (the solve queue bounds how many run) and measures health checks
// and single imports meanwhile: their 99th-percentile latency, the route
// requests answered, the 429s among them, and the heap in use at its peak.
func BenchmarkHealthUnderRouteLoad(b *testing.B) {
	s := newBenchServer(b)
	key := s.key("acme", "planner", connect.AllScopes...)
	body := []byte(`{"targets":[` + strings.Join(routetest.Targets(1000), ",") + `]}`)
	if status := post(b, s.url+base+"/inbound/targets/batch", key, body); status != 200 {
		b.Fatalf("import: %d", status)
	}
	ctx, stop := context.WithCancel(b.Context())
	var routed, limited atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "POST", s.url+base+"/import-jobs/1/route-suggestion", strings.NewReader(`{"routeDate":"2026-11-23"}`))
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := benchClient.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				routed.Add(1)
				if resp.StatusCode == http.StatusTooManyRequests {
					limited.Add(1)
				}
			}
		})
	}
	var peak atomic.Uint64
	wg.Go(func() {
		var m runtime.MemStats
		for ctx.Err() == nil {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	var latencies []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		req, _ := http.NewRequest("GET", s.url+base+"/integration/health", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := benchClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("health: %v %v", resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if status := post(b, s.url+base+"/inbound/targets", key, []byte(fmt.Sprintf(`{"externalId":"L%d","title":"x"}`, i))); status != 201 {
			b.Fatalf("import: %d", status)
		}
		latencies = append(latencies, time.Since(start)/2)
	}
	b.StopTimer()
	stop()
	wg.Wait()
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(routed.Load()), "route-answers")
	b.ReportMetric(float64(limited.Load()), "route-429s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}
