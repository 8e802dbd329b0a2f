package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/teststore"
)

// TestTwoReplicas runs two connectd serve processes on one PostgreSQL
// database, as behind a load balancer, with requests alternating between
// them: one demo client for two --dev replicas started together, keys made
// with the CLI while both serve, one execution per Idempotency-Key, webhooks
// delivered once and in order, one rate limit for the service, and no
// acknowledged job lost when one replica is killed under load.
func TestTwoReplicas(t *testing.T) {
	if teststore.Engine() != "postgres" {
		t.Skip("replicas share a PostgreSQL database; this test runs in the PostgreSQL pass")
	}
	bin := buildBinary(t)
	t.Setenv("CONNECT_DATABASE_URL", pgtest.URL(t))
	if r := cli(t, bin, "migrate"); r.status != 0 || !strings.Contains(r.stdout, "has the schema") {
		t.Fatalf("connectd migrate: %+v", r)
	}
	replicas := startReplicas(t, bin, "--dev")
	if listed := cli(t, bin, "keys", "list"); strings.Count(listed.stdout, "demo-client") != 1 {
		t.Fatalf("two --dev replicas started together made %d demo clients:\n%s", strings.Count(listed.stdout, "demo-client"), listed.stdout)
	}
	key := createKey(t, bin, "erp", "inbound.targets.write,import_jobs.read")
	receiver := newOrderedReceiver(t)
	if r := cli(t, bin, "webhooks", "add", "--tenant", "acme", "--url", receiver.URL, "--events", "import_job.completed", "--allow-insecure-loopback"); r.status != 0 {
		t.Fatalf("webhooks add: %+v", r)
	}

	t.Run("AlternatingImports", func(t *testing.T) {
		for i := range 20 {
			d := replicas[i%2]
			if status, body := call(t, "POST", d.url+"/inbound/targets", key, fmt.Sprintf(`{"externalId":"ALT-%d","title":"Alternating"}`, i)); status != 201 {
				t.Fatalf("import %d on replica %d: %d %s", i, i%2, status, body)
			}
		}
	})
	t.Run("IdempotencyAcrossReplicas", func(t *testing.T) {
		var wg sync.WaitGroup
		var executed, replayed, inUse atomic.Int32
		for i := range 16 {
			d := replicas[i%2]
			wg.Go(func() {
				req, _ := http.NewRequest("POST", d.url+"/inbound/targets", strings.NewReader(`{"externalId":"ONCE","title":"Once"}`))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Idempotency-Key", "replicated-key")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				switch {
				case resp.StatusCode == 201 && resp.Header.Get("Idempotent-Replayed") == "true":
					replayed.Add(1)
				case resp.StatusCode == 201:
					executed.Add(1)
				case resp.StatusCode == 409:
					inUse.Add(1)
				default:
					t.Errorf("answer %d", resp.StatusCode)
				}
			})
		}
		wg.Wait()
		if executed.Load() != 1 {
			t.Errorf("one key over two replicas: %d executed, %d replayed, %d in use; want exactly 1 execution", executed.Load(), replayed.Load(), inUse.Load())
		}
	})
	t.Run("WebhooksOnceInOrder", func(t *testing.T) {
		receiver.waitFor(t, 21) // 20 alternating imports and the idempotent one
		if got := receiver.jobIDs(); !strictlyIncreasing(got) || len(got) != 21 {
			t.Errorf("import job ids in delivery order: %v; want 21, each once, increasing", got)
		}
		if receiver.overlaps.Load() != 0 {
			t.Errorf("%d deliveries overlapped: two replicas delivered to one subscription at once", receiver.overlaps.Load())
		}
	})
	t.Run("ReplayWhileTheOtherDeliversLive", func(t *testing.T) {
		replayWhileLive(t, bin, replicas, key, receiver)
	})
	t.Run("OneRateLimit", func(t *testing.T) {
		health := createKey(t, bin, "monitor", "integration.health.read")
		start, admitted := time.Now(), 0
		for i := range 200 {
			if status, _ := call(t, "GET", replicas[i%2].url+"/integration/health", health, ""); status == 200 {
				admitted++
			}
		}
		oneReplica := 100 + 50*time.Since(start).Seconds()
		if float64(admitted) > 1.1*oneReplica || admitted < 100 {
			t.Errorf("admitted %d of 200 alternating over two replicas; one replica allows %.0f in that time", admitted, oneReplica)
		}
	})
	t.Run("ScopesChangeOnEveryReplica", func(t *testing.T) {
		reader := createKey(t, bin, "reader", "integration.health.read")
		for _, d := range replicas {
			if status, body := call(t, "GET", d.url+"/import-jobs", reader, ""); status != 403 {
				t.Fatalf("before set-scopes: %d %s", status, body)
			}
		}
		if r := cli(t, bin, "keys", "set-scopes", "--tenant", "acme", "--client", "reader", "--scopes", "import_jobs.read"); r.status != 0 {
			t.Fatalf("keys set-scopes while both replicas serve: %+v", r)
		}
		for i, d := range replicas {
			if status, body := call(t, "GET", d.url+"/import-jobs", reader, ""); status != 200 {
				t.Errorf("replica %d on the next request: %d %s", i, status, body)
			}
		}
	})
	t.Run("KillOneUnderLoad", func(t *testing.T) {
		acked := importUntilKilled(t, replicas, key)
		for _, id := range acked {
			if status, body := call(t, "GET", fmt.Sprintf("%s/import-jobs/%d", replicas[1].url, id), key, ""); status != 200 {
				t.Errorf("acknowledged job %d after replica 0 was killed: %d %s", id, status, body)
			}
		}
		if len(acked) < 20 {
			t.Errorf("only %d imports acknowledged under load", len(acked))
		}
	})
}

// startReplicas starts two serve processes at the same time and waits until
// both listen.
func startReplicas(t testing.TB, bin string, args ...string) [2]*daemon {
	t.Helper()
	var replicas [2]*daemon
	for i := range replicas {
		replicas[i] = spawnDaemon(t, bin, args...)
	}
	for _, d := range replicas {
		d.waitListening(t)
	}
	return replicas
}

func createKey(t testing.TB, bin, client, scopes string) string {
	t.Helper()
	r := cli(t, bin, "keys", "create", "--tenant", "acme", "--client", client, "--source-system", "erp", "--scopes", scopes)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.status != 0 || !strings.HasPrefix(lines[len(lines)-1], "ick_") {
		t.Fatalf("keys create while both replicas serve: %+v", r)
	}
	return lines[len(lines)-1]
}

// importUntilKilled imports from four clients alternating over the replicas,
// kills replica 0 with SIGKILL once 20 imports were acknowledged, goes on on
// replica 1 for 20 more, and returns the ids of every acknowledged job.
func importUntilKilled(t *testing.T, replicas [2]*daemon, key string) []int64 {
	t.Helper()
	var mu sync.Mutex
	var acked []int64
	var n atomic.Int64
	stop := make(chan struct{})
	var stopOnce sync.Once
	killed := atomic.Bool{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				d := replicas[(w+i)%2]
				if killed.Load() {
					d = replicas[1]
				}
				id, ok := tryImport(d.url, key, fmt.Sprintf(`{"externalId":"LOAD-%d-%d","title":"Under load"}`, w, i))
				if !ok {
					continue // the killed replica's connection broke: not acknowledged
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
				switch c := n.Add(1); {
				case c == 20:
					_ = replicas[0].cmd.Process.Kill()
					killed.Store(true)
				case c >= 40:
					stopOnce.Do(func() { close(stop) })
				}
			}
		})
	}
	wg.Wait()
	return acked
}

// tryImport imports one target and returns its job id when the answer was an
// acknowledgement (201).
func tryImport(base, key, body string) (int64, bool) {
	status, answer, _, err := send(testClient, "POST", base+"/inbound/targets", key, body)
	var result connect.InboundImportResult
	if err != nil || status != 201 || json.Unmarshal(answer, &result) != nil {
		return 0, false
	}
	return result.ImportJobID, true
}

// orderedReceiver is a webhook receiver that records the import job ids of
// the events it gets and notices deliveries that overlap.
type orderedReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	ids      []int64
	inFlight atomic.Int32
	overlaps atomic.Int32
}

func newOrderedReceiver(t *testing.T) *orderedReceiver {
	rc := &orderedReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rc.inFlight.Add(1) > 1 {
			rc.overlaps.Add(1)
		}
		defer rc.inFlight.Add(-1)
		var event struct {
			Data connect.ImportJobSummary `json:"data"`
		}
		if err := json.UnmarshalRead(r.Body, &event); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.ids = append(rc.ids, event.Data.ID)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *orderedReceiver) jobIDs() []int64 {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]int64(nil), rc.ids...)
}

func (rc *orderedReceiver) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(rc.jobIDs()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got %d events within a minute, want %d", len(rc.jobIDs()), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func strictlyIncreasing(ids []int64) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return false
		}
	}
	return true
}

// replayWhileLive asks replica 0 to replay the subscription's events after
// the 5th while 20 imports on replica 1 make live events: the receiver gets
// every live event once, in order, and the replay as one block in order,
// between two live events, nothing twice besides it.
func replayWhileLive(t *testing.T, bin string, replicas [2]*daemon, key string, receiver *orderedReceiver) {
	hooks := createKey(t, bin, "hooks", "webhooks.manage,events.read")
	var subs connect.WebhookSubscriptionList
	if status, body := call(t, "GET", replicas[0].url+"/webhook-subscriptions", hooks, ""); status != 200 || json.Unmarshal(body, &subs) != nil || len(subs.Subscriptions) != 1 {
		t.Fatalf("listing the subscription: %d %s", status, body)
	}
	sub := fmt.Sprintf("%s/webhook-subscriptions/%d", replicas[0].url, subs.Subscriptions[0].ID)
	before := feedJobIDs(t, replicas[1].url, hooks)
	delivered := len(receiver.jobIDs())
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 20 {
			// Not call: t.Fatal belongs to the test's goroutine.
			status, body, _, err := send(testClient, "POST", replicas[1].url+"/inbound/targets", key, fmt.Sprintf(`{"externalId":"LIVE-%d","title":"Live"}`, i))
			if status != 201 {
				t.Errorf("live import %d: %d %s %v", i, status, body, err)
			}
		}
	})
	if status, body := call(t, "POST", sub+"/replay", hooks, fmt.Sprintf(`{"afterEventId":%q}`, before[4].event)); status != 202 {
		t.Fatalf("replay: %d %s", status, body)
	}
	wg.Wait()
	all := feedJobIDs(t, replicas[1].url, hooks)
	deadline := time.Now().Add(time.Minute)
	for {
		var info connect.WebhookSubscriptionInfo
		_, body := call(t, "GET", sub, hooks, "")
		if json.Unmarshal(body, &info) == nil && info.PendingReplays == 0 && info.LastDeliveredEventID != nil && *info.LastDeliveredEventID == all[len(all)-1].event {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replay and the live events were not delivered within a minute: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := receiver.jobIDs()[delivered:]
	live, block, contiguous := splitReplay(got, slices.Max(receiver.jobIDs()[:delivered]))
	var wantLive []int64
	for _, e := range all[len(before):] {
		wantLive = append(wantLive, e.job)
	}
	if !slices.Equal(live, wantLive) {
		t.Errorf("live events delivered %v, want each once in order: %v", live, wantLive)
	}
	var wantBlock []int64
	for _, e := range all[5:] {
		if len(wantBlock) < len(block) {
			wantBlock = append(wantBlock, e.job)
		}
	}
	if len(block) < len(before)-5 || !slices.Equal(block, wantBlock) {
		t.Errorf("replayed %v, want the events after the 5th in order, at least up to the last one delivered before the request (%d)", block, before[len(before)-1].job)
	}
	if !contiguous {
		t.Errorf("the replay was not delivered as one block between two live events: %v", got)
	}
	if receiver.overlaps.Load() != 0 {
		t.Errorf("%d deliveries overlapped", receiver.overlaps.Load())
	}
}

// feedEvent is an event of the feed: its id and its import job.
type feedEvent struct {
	event string
	job   int64
}

// feedJobIDs reads the tenant's import_job.completed events from the feed.
func feedJobIDs(t *testing.T, base, key string) []feedEvent {
	t.Helper()
	var page struct {
		Events []struct {
			ID   string                   `json:"id"`
			Data connect.ImportJobSummary `json:"data"`
		} `json:"events"`
	}
	if status, body := call(t, "GET", base+"/events?limit=200&type=import_job.completed", key, ""); status != 200 || json.Unmarshal(body, &page) != nil {
		t.Fatalf("reading the events feed: %d %s", status, body)
	}
	var events []feedEvent
	for _, e := range page.Events {
		events = append(events, feedEvent{e.ID, e.Data.ID})
	}
	return events
}

// splitReplay splits deliveries after one of job highest into the live
// stream, whose job ids rise, and the replayed events, whose ids are not
// above one delivered before them; contiguous reports whether the replayed
// ones came as one block.
func splitReplay(ids []int64, highest int64) (live, replayed []int64, contiguous bool) {
	first, last := -1, -1
	for i, id := range ids {
		if id > highest {
			live, highest = append(live, id), id
			continue
		}
		replayed = append(replayed, id)
		if first < 0 {
			first = i
		}
		last = i
	}
	return live, replayed, first < 0 || last-first+1 == len(replayed)
}
