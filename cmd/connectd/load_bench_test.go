package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect/importer/importertest"
)

// loadClients is how many clients BenchmarkReplicasHTTP imports as, one per
// goroutine: each stays far below the per-client rate limit (50/s), which
// the replicas enforce together through the database as in production.
const loadClients = 64

// BenchmarkReplicasHTTP imports single realistic targets through HTTP from
// 64 goroutines, each with a key of its own, into connectd serve processes
// on one PostgreSQL database (issue 22): replicas=1 sends every request to
// one replica, replicas=2 alternates between two. On one machine the
// replicas, the database and this load share the cores, so the database is
// the limit, and two replicas must lose nothing to each other: compare
// their imports/s. It runs in the PostgreSQL pass (CONNECT_TEST_STORE=
// postgres, or CONNECT_TEST_DATABASE_URL for a server of your own).
func BenchmarkReplicasHTTP(b *testing.B) {
	bin := migratedBinary(b, "")
	keys := make([]string, loadClients)
	for i := range keys {
		keys[i] = createKey(b, bin, fmt.Sprintf("load-%d", i), "inbound.targets.write")
	}
	replicas := startReplicas(b, bin)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}}
	var targets atomic.Int64 // numbers every target of every run
	// Warm up both replicas and the database (statistics of the new
	// tables, connections, caches) before either is measured: the first
	// seconds on a new database run at a fraction of the steady rate.
	var wg sync.WaitGroup
	for w := range loadClients {
		wg.Go(func() {
			for i := range 40 {
				body := importertest.RealisticTarget("WARM", int(targets.Add(1)))
				if status, err := postTarget(client, replicas[(w+i)%2].url, keys[w], body); status != http.StatusCreated {
					b.Errorf("warming up: %d %v", status, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			var workers atomic.Int64
			b.SetParallelism((loadClients + 1) / 2) // 64 goroutines on 2 cores
			b.RunParallel(func(pb *testing.PB) {
				w := int(workers.Add(1) - 1)
				key := keys[w%loadClients]
				for i := 0; pb.Next(); i++ {
					base := replicas[(w+i)%n].url
					body := importertest.RealisticTarget("LOAD", int(targets.Add(1)))
					if status, err := postTarget(client, base, key, body); status != http.StatusCreated {
						b.Errorf("import through %s: %d %v", base, status, err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "imports/s")
		})
	}
}

// postTarget imports one target and returns the status of the answer, or
// the error and its body.
func postTarget(client *http.Client, base, key, body string) (int, error) {
	req, err := http.NewRequest("POST", base+"/inbound/targets", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusCreated {
		err = fmt.Errorf("%s", answer)
	}
	return resp.StatusCode, err
}
