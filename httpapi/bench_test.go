package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

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
