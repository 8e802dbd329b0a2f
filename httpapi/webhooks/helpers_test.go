package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/storetest"
)

var t0 = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

// clock is a settable test clock, safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock(at time.Time) *clock {
	c := &clock{}
	c.Set(at)
	return c
}

func (c *clock) Now() time.Time   { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Set(at time.Time) { c.ns.Store(at.UnixNano()) }

// fixture is a real bbolt store in a temporary directory with the
// subscription service on it.
type fixture struct {
	t     *testing.T
	dir   string
	store *bolt.Store
	subs  *webhooks.Subscriptions
	n     int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.open()
	t.Cleanup(f.close)
	return f
}

func (f *fixture) open() {
	f.t.Helper()
	s, err := bolt.OpenDir(f.dir, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.store, f.subs = s, &webhooks.Subscriptions{Store: s, URLs: testURLs}
}

// close checks the database file and closes it; closing twice is harmless.
func (f *fixture) close() {
	if err := f.store.Check(); err != nil {
		f.t.Errorf("database check: %v", err)
	}
	_ = f.store.Close()
}

// subscribe adds a subscription of tenant to url (a loopback test server)
// and returns it with its secret.
func (f *fixture) subscribe(tenant, url string, kinds ...connect.EventKind) (connect.WebhookSubscription, string) {
	f.t.Helper()
	sub, secret, err := f.subs.Add(f.t.Context(), connect.NewWebhookSubscription{TenantID: tenant, URL: url, Kinds: kinds, AllowInsecureLoopback: true})
	if err != nil {
		f.t.Fatalf("Add: %v", err)
	}
	return sub, secret
}

// subscription returns the stored state of a subscription.
func (f *fixture) subscription(tenant string, id int64) connect.WebhookSubscription {
	f.t.Helper()
	list, err := f.subs.List(f.t.Context(), tenant)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, s := range list {
		if s.ID == id {
			return s
		}
	}
	f.t.Fatalf("no subscription %d of %s", id, tenant)
	return connect.WebhookSubscription{}
}

// waitDelivered waits until the subscription recorded the delivery of the
// event with sequence number seq.
func (f *fixture) waitDelivered(tenant string, id, seq int64) {
	f.t.Helper()
	waitFor(f.t, fmt.Sprintf("subscription %d to record event %d", id, seq), func() bool { return f.subscription(tenant, id).Cursor >= seq })
}

// appendEvent appends an import_job.completed event of tenant created at at,
// as a producer would, and returns it.
func (f *fixture) appendEvent(tenant string, at time.Time) store.Event {
	f.t.Helper()
	f.n++
	e := &store.Event{ID: "evt_test_" + string(rune('A'-1+f.n)), TenantID: tenant, Kind: connect.EventImportJobCompleted, CreatedAt: at}
	e.Data, _ = json.Marshal(map[string]int{"n": f.n})
	if err := f.store.Update(f.t.Context(), func(tx store.Tx) error { return tx.AppendEvent(e) }); err != nil {
		f.t.Fatal(err)
	}
	return *e
}

// start starts a dispatcher that polls every 2 ms, retries after 1 ms and
// does not jitter; adjust changes that config first. It is stopped when the
// test ends.
func (f *fixture) start(adjust ...func(*webhooks.Config)) *webhooks.Dispatcher {
	f.t.Helper()
	cfg := webhooks.Config{
		Store: f.store, URLs: testURLs, PollInterval: 2 * time.Millisecond, RetryMin: time.Millisecond,
		Rand: func() float64 { return 0 }, Logger: slog.New(slog.DiscardHandler),
	}
	for _, fn := range adjust {
		fn(&cfg)
	}
	d, err := webhooks.NewDispatcher(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := d.Start(f.t.Context()); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(d.Stop)
	return d
}

// delivery is one request a receiver got.
type delivery struct {
	header http.Header
	body   []byte
	event  connect.WebhookEvent
}

func (d delivery) id() string { return d.header.Get("webhook-id") }

// receiver is a webhook receiver on a loopback test server. answer gives
// the status of its nth request (0-based); nil answers 204.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []delivery
	answer func(r *http.Request, n int) int
}

func newReceiver(t *testing.T, answer func(r *http.Request, n int) int) *receiver {
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d := delivery{header: r.Header.Clone(), body: body}
	_ = json.Unmarshal(body, &d.event)
	rc.mu.Lock()
	n := len(rc.got)
	rc.got = append(rc.got, d)
	rc.mu.Unlock()
	status := http.StatusNoContent
	if rc.answer != nil {
		status = rc.answer(r, n)
	}
	w.WriteHeader(status)
}

// deliveries returns a copy of what the receiver got so far.
func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

func (rc *receiver) ids() []string {
	var ids []string
	for _, d := range rc.deliveries() {
		ids = append(ids, d.id())
	}
	return ids
}

// waitFor polls cond until it holds, failing the test after a deadline far
// beyond what a busy machine needs.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// verify checks a delivery's signature the way a receiver does, with the
// standard library only and independently of webhooks.Sign.
func verify(secret string, h http.Header, body []byte) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no signature matches")
}

// events returns every event of tenant still in the outbox, oldest first.
func (f *fixture) events(tenant string) []store.Event { return storetest.Events(f.t, f.store, tenant) }

// testURLs is the URL rule of the tests, with names resolved by testDNS.
var testURLs = webhooks.URLPolicy{Resolver: testDNS}

// testDNS resolves the names the tests use without a network.
var testDNS = &fakeResolver{names: map[string][]string{
	"hooks.example.com":    {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
	"localhost":            {"127.0.0.1", "::1"},
	"internal.example.com": {"10.1.2.3"},
	"mixed.example.com":    {"93.184.215.14", "192.168.1.20"},
	"metadata.example.com": {"169.254.169.254"},
}}

// fakeResolver answers from names; a name may be given a sequence of
// answers (one per lookup, the last repeated) to act out DNS rebinding.
type fakeResolver struct {
	mu       sync.Mutex
	names    map[string][]string
	sequence map[string][][]string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	answer, ok := r.names[strings.ToLower(host)]
	if seq := r.sequence[host]; len(seq) > 0 {
		answer, ok = seq[0], true
		if len(seq) > 1 {
			r.sequence[host] = seq[1:]
		}
	}
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	addrs := make([]netip.Addr, len(answer))
	for i, a := range answer {
		addrs[i] = netip.MustParseAddr(a)
	}
	return addrs, nil
}

// rebind makes host resolve to each answer in turn, one per lookup.
func (r *fakeResolver) rebind(host string, answers ...[]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sequence == nil {
		r.sequence = map[string][][]string{}
	}
	r.sequence[host] = answers
}
