package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/storetest"
	"github.com/integration-connect/connect/store/teststore"
)

// answer is what a batch import under an Idempotency-Key got.
type answer struct {
	status int
	body   []byte
	err    error // the connection broke: no answer
}

// postBatch sends one 50-target batch under idempotencyKey.
func postBatch(base, key, idempotencyKey string) answer {
	body := string(importertest.PlanningBatch(idempotencyKey, 50))
	status, b, _, err := send(testClient, "POST", base+"/inbound/targets/batch", key, body, "Idempotency-Key", idempotencyKey)
	return answer{status: status, body: b, err: err}
}

// migratedBinary builds connectd and points CONNECT_DATABASE_URL at a
// migrated database: url, or a new schema of the test server when it is "".
// Outside the PostgreSQL pass it skips t: replicas share a database.
func migratedBinary(t testing.TB, url string) string {
	t.Helper()
	if teststore.Engine() != "postgres" {
		t.Skip("replicas share a PostgreSQL database; this test runs in the PostgreSQL pass")
	}
	if url == "" {
		url = pgtest.URL(t)
	}
	bin := buildBinary(t)
	t.Setenv("CONNECT_DATABASE_URL", url)
	if r := cli(t, bin, "migrate"); r.status != 0 {
		t.Fatalf("connectd migrate: %+v", r)
	}
	return bin
}

// killRounds is how many kill -9 rounds TestKilledReplicaFreesItsKeys runs:
// 3 in CI, more with CONNECT_KILL_ROUNDS (the closing note's figure is 20).
func killRounds() int {
	if n, err := strconv.Atoi(os.Getenv("CONNECT_KILL_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 3
}

// TestKilledReplicaFreesItsKeys: two replicas on PostgreSQL; batches under
// new Idempotency-Keys go to replica 0, which is killed with SIGKILL while
// some are in flight. Every key whose request died with it answers on
// replica 1 — executed or replayed, never 409 IdempotencyKeyInUse for long:
// its claim died with replica 0's database session. The wait is bounded well
// below the one-minute claim lifetime a dead holder's claim once had, and the
// longest wait is logged.
func TestKilledReplicaFreesItsKeys(t *testing.T) {
	bin := migratedBinary(t, "")
	replicas := startReplicas(t, bin)
	var longest time.Duration
	orphans := 0
	for round := range killRounds() {
		// A client per round, so no round runs into the rate limit.
		key := createKey(t, bin, fmt.Sprintf("erp-%d", round), "inbound.targets.batch.write,import_jobs.read")
		var mu sync.Mutex
		var inFlight []string // keys whose request died with replica 0
		acked := 0
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					k := fmt.Sprintf("r%d-w%d-%d", round, w, i)
					a := postBatch(replicas[0].url, key, k)
					mu.Lock()
					switch {
					case a.err != nil:
						inFlight = append(inFlight, k)
						mu.Unlock()
						return
					case a.status != 200:
						mu.Unlock()
						t.Errorf("batch %s before the kill: %d %s", k, a.status, a.body)
						return
					}
					acked++
					if acked == 8 {
						_ = replicas[0].cmd.Process.Kill()
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		killedAt := time.Now()
		for _, k := range inFlight {
			for {
				a := postBatch(replicas[1].url, key, k)
				if a.err == nil && a.status == 200 {
					longest = max(longest, time.Since(killedAt))
					break
				}
				if a.err != nil || a.status != 409 || !strings.Contains(string(a.body), "IdempotencyKeyInUse") {
					t.Fatalf("round %d, key %s on replica 1: %v %d %s", round, k, a.err, a.status, a.body)
				}
				if time.Since(killedAt) > 30*time.Second {
					t.Fatalf("round %d: key %s still in use on replica 1 %v after replica 0 was killed", round, k, time.Since(killedAt))
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		orphans += len(inFlight)
		_ = replicas[0].cmd.Wait()
		replicas[0] = startDaemon(t, bin)
	}
	t.Logf("%d rounds, %d keys in flight at the kill; the longest a dead replica's key stayed in use: %v", killRounds(), orphans, longest.Round(time.Millisecond))
	if orphans == 0 {
		t.Error("no request was in flight when replica 0 was killed: the test tested nothing")
	}
}

// cluster is a PostgreSQL cluster of one test's own, which it may stop and
// start: initdb, pg_ctl and the server run as the user postgres, the socket
// in the cluster's directory, no TCP.
type cluster struct {
	bin, dir, url string
}

// newCluster starts a cluster for t. It needs root (the server runs as
// postgres) and PostgreSQL's binaries, as pgtest does.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("this test starts and stops a PostgreSQL cluster of its own, which needs root (the server runs as postgres)")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(bins) == 0 {
		t.Skip(pgtest.SkipMessage)
	}
	dir, err := os.MkdirTemp("", "cdb")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{bin: bins[len(bins)-1], dir: dir, url: "postgres://postgres@/postgres?host=" + dir + "&sslmode=disable"}
	t.Cleanup(func() {
		_ = exec.Command("runuser", "-u", "postgres", "--", filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(dir, "data"), "-m", "immediate", "stop").Run()
		os.RemoveAll(dir)
	})
	if out, err := exec.Command("chown", "postgres", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	c.pgctl(t, "initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust")
	c.start(t)
	return c
}

// pgctl runs one of PostgreSQL's programs as postgres.
func (c *cluster) pgctl(t *testing.T, program string, args ...string) {
	t.Helper()
	cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(c.bin, program)}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", program, args, err, out)
	}
}

func (c *cluster) start(t *testing.T) {
	c.pgctl(t, "pg_ctl", "-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "log"), "-w",
		"-o", "-k "+c.dir+" -c listen_addresses='' -c fsync=off", "start")
}

// stop shuts the server down as an operator restarting it does: fast mode,
// open transactions rolled back, sessions ended.
func (c *cluster) stop(t *testing.T) {
	c.pgctl(t, "pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "fast", "-w", "stop")
}

// TestDatabaseRestartUnderLoad: two replicas under batch imports from four
// clients while PostgreSQL is stopped (fast shutdown) and started again.
// During the outage requests answer 503 ServiceUnavailable with
// retryAfterSeconds (never a bare 500), and /readyz says 503 on both; once
// the database is back both replicas serve again without a restart of
// their own. Nothing acknowledged is lost, and every request refused during
// the outage, retried under its Idempotency-Key, runs once. The outage and
// recovery times are logged.
func TestDatabaseRestartUnderLoad(t *testing.T) {
	if teststore.Engine() != "postgres" {
		t.Skip("replicas share a PostgreSQL database; this test runs in the PostgreSQL pass")
	}
	db := newCluster(t)
	bin := migratedBinary(t, db.url)
	replicas := startReplicas(t, bin)
	key := createKey(t, bin, "erp", "inbound.targets.batch.write,import_jobs.read")

	var mu sync.Mutex
	acked := map[string]int64{} // Idempotency-Key: job id
	var refused []string        // keys answered 503
	var backAt time.Time
	recovered := [2]time.Duration{-1, -1}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := (w + i) % 2
				k := fmt.Sprintf("w%d-%d", w, i)
				a := postBatch(replicas[r].url, key, k)
				mu.Lock()
				switch {
				case a.err != nil:
					t.Errorf("batch %s on replica %d: %v", k, r, a.err)
				case a.status == 200:
					var res connect.InboundImportResult
					if err := json.Unmarshal(a.body, &res); err != nil {
						t.Errorf("batch %s: %v", k, err)
					}
					acked[k] = res.ImportJobID
					if !backAt.IsZero() && recovered[r] < 0 {
						recovered[r] = time.Since(backAt)
					}
				case a.status == 503 && strings.Contains(string(a.body), `"code":"ServiceUnavailable"`) && strings.Contains(string(a.body), `"retryAfterSeconds":2`):
					refused = append(refused, k)
				default:
					t.Errorf("batch %s on replica %d: %d %s; want 200, or 503 ServiceUnavailable while the database is away", k, r, a.status, a.body)
				}
				mu.Unlock()
				if a.status == 503 {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("gave up waiting for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("10 acknowledged batches", func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 10 })

	stoppedAt := time.Now()
	db.stop(t)
	waitFor("503s during the outage", func() bool { mu.Lock(); defer mu.Unlock(); return len(refused) >= 8 })
	for i, d := range replicas {
		if status, _ := call(t, "GET", strings.TrimSuffix(d.url, "/api/v1")+"/readyz", "", ""); status != 503 {
			t.Errorf("replica %d's /readyz during the outage: %d, want 503", i, status)
		}
	}
	db.start(t)
	mu.Lock()
	backAt = time.Now()
	outage := backAt.Sub(stoppedAt)
	mu.Unlock()
	waitFor("both replicas to serve again", func() bool { mu.Lock(); defer mu.Unlock(); return recovered[0] >= 0 && recovered[1] >= 0 })
	close(stop)
	wg.Wait()
	for i, d := range replicas {
		if status, body := call(t, "GET", strings.TrimSuffix(d.url, "/api/v1")+"/readyz", "", ""); status != 200 {
			t.Errorf("replica %d's /readyz after the outage: %d %s", i, status, body)
		}
	}

	for _, k := range refused {
		if a := postBatch(replicas[0].url, key, k); a.status != 200 {
			t.Errorf("retrying %s, refused during the outage: %d %s", k, a.status, a.body)
		}
	}
	for k, id := range acked {
		if status, body := call(t, "GET", fmt.Sprintf("%s/import-jobs/%d", replicas[1].url, id), key, ""); status != 200 {
			t.Errorf("job %d of %s, acknowledged, after the restart: %d %s", id, k, status, body)
		}
	}
	var list connect.ImportJobList
	_, body := call(t, "GET", replicas[0].url+"/import-jobs?take=1", key, "")
	if err := json.Unmarshal(body, &list); err != nil || list.Total != len(acked)+len(refused) {
		t.Errorf("%d jobs stored; want %d acknowledged + %d retried after the outage (%v)", list.Total, len(acked), len(refused), err)
	}
	t.Logf("outage %v (fast shutdown to started), %d batches acknowledged, %d answered 503 during it; replicas served again %v and %v after the database was back",
		outage.Round(time.Millisecond), len(acked), len(refused), recovered[0].Round(time.Millisecond), recovered[1].Round(time.Millisecond))
}

// TestKilledReplicaHandsOverDeliveries: replica 0 is mid-delivery — the
// receiver holds its request — when it is killed with SIGKILL; replica 1
// delivers the event within seconds, long before the lease replica 0 took
// (one attempt timeout, 10 s, plus 30 s) expires: the delivery claim died
// with replica 0's database session. The wait is logged.
func TestKilledReplicaHandsOverDeliveries(t *testing.T) {
	bin := migratedBinary(t, "")
	held, delivered, done := make(chan struct{}), make(chan time.Time, 8), make(chan struct{})
	var requests atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			close(held)
			<-done // replica 0's attempt: held until it dies
			return
		}
		delivered <- time.Now()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(func() { close(done) }) // runs first: lets the held request end, so Close returns
	first := startDaemon(t, bin)
	if r := cli(t, bin, "webhooks", "add", "--tenant", "acme", "--url", receiver.URL, "--events", "import_job.completed", "--allow-insecure-loopback"); r.status != 0 {
		t.Fatalf("webhooks add: %+v", r)
	}
	key := createKey(t, bin, "erp", "inbound.targets.write")
	if status, body := call(t, "POST", first.url+"/inbound/targets", key, `{"externalId":"H-1","title":"Handed over"}`); status != 201 {
		t.Fatalf("import: %d %s", status, body)
	}
	storetest.Receive(t, held, "replica 0's delivery attempt")
	startDaemon(t, bin)
	_ = first.cmd.Process.Kill()
	killedAt := time.Now()
	select {
	case at := <-delivered:
		t.Logf("replica 1 delivered the event %v after replica 0 was killed mid-delivery", at.Sub(killedAt).Round(time.Millisecond))
	case <-time.After(25 * time.Second):
		t.Fatal("replica 1 did not deliver within 25 s of replica 0's death: it waited for the dead replica's lease to expire")
	}
}
