package main

import (
	"fmt"
	"net/http"
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
// 64 goroutines, each with a key of its own, into two connectd serve
// processes on one PostgreSQL database (issue 22), in phases of 2,000
// imports that alternate between sending every request to one replica and
// alternating requests between both, so that both see the same database
// (its growth, its vacuum, the machine's other load). On one machine the
// replicas, the database and this load share the cores, so the database is
// the limit, and two replicas must lose nothing to each other: it reports
// the rate of each and two's as a percentage of one's. It runs in the
// PostgreSQL pass (CONNECT_TEST_STORE=postgres, or CONNECT_TEST_DATABASE_URL
// for a server of your own); use -benchtime 40000x or more.
func BenchmarkReplicasHTTP(b *testing.B) {
	bin := migratedBinary(b, "")
	l := &load{client: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}}}
	for i := range loadClients {
		l.keys = append(l.keys, createKey(b, bin, fmt.Sprintf("load-%d", i), "inbound.targets.write"))
	}
	replicas := startReplicas(b, bin)
	// Warm up both replicas and the database (statistics of the new
	// tables, connections, caches) first: the first seconds on a new
	// database run at a fraction of the steady rate.
	l.run(b, replicas[:], 4*loadClients*10)
	const phase = 2000
	var elapsed [2]time.Duration
	var done [2]int
	b.ResetTimer()
	for i := 0; i*phase < b.N; i++ {
		n, both := min(phase, b.N-i*phase), i%2
		began := time.Now()
		l.run(b, replicas[:1+both], n)
		elapsed[both] += time.Since(began)
		done[both] += n
	}
	if done[1] == 0 {
		return // too few imports to compare
	}
	one, two := float64(done[0])/elapsed[0].Seconds(), float64(done[1])/elapsed[1].Seconds()
	b.ReportMetric(one, "imports/s-one")
	b.ReportMetric(two, "imports/s-two")
	b.ReportMetric(100*two/one, "two-%-of-one")
}

// load is the client side of BenchmarkReplicasHTTP.
type load struct {
	client  *http.Client
	keys    []string     // one per goroutine
	targets atomic.Int64 // numbers every target imported
}

// run imports n targets from one goroutine per key, each sending its
// requests to replicas in turn.
func (l *load) run(b *testing.B, replicas []*daemon, n int) {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	for w, key := range l.keys {
		wg.Go(func() {
			for i := w; left.Add(-1) >= 0; i++ {
				base := replicas[i%len(replicas)].url
				body := importertest.RealisticTarget("LOAD", int(l.targets.Add(1)))
				if status, answer, _, err := send(l.client, "POST", base+"/inbound/targets", key, body); status != http.StatusCreated {
					b.Errorf("import through %s: %d %s %v", base, status, answer, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
