package webhooks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
)

// TestHangingReceiverDoesNotDelayImports: while the receiver holds the
// delivery of the first import's event, a second import over HTTP is
// answered; only then is the receiver released.
func TestHangingReceiverDoesNotDelayImports(t *testing.T) {
	f := newFixture(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	rc := newReceiver(t, func(r *http.Request, n int) int {
		if n == 0 {
			held.Store(true)
			close(entered)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			held.Store(false)
		}
		return http.StatusOK
	})
	sub, _ := f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	api, key := newAPI(t, f.store)
	f.start(func(c *webhooks.Config) { c.AttemptTimeout = time.Hour }) // the receiver holds on as long as the test wants

	if status, body := postTarget(t, api, key, "WO-1"); status != http.StatusCreated {
		t.Fatalf("first import: %d %s", status, body)
	}
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the receiver got no delivery")
	}
	answered := make(chan int, 1)
	go func() { status, _ := postTarget(t, api, key, "WO-2"); answered <- status }()
	select {
	case status := <-answered:
		if status != http.StatusCreated || !held.Load() {
			t.Errorf("second import answered %d; receiver still held: %v", status, held.Load())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the second import was not answered while the receiver held the first delivery")
	}
	close(release)
	events := f.events("acme")
	f.waitDelivered("acme", sub.ID, events[len(events)-1].Seq)
}

// newAPI serves the HTTP API on the store and returns its URL and an API key
// of tenant acme that may import targets.
func newAPI(t *testing.T, s store.Store) (string, string) {
	t.Helper()
	clients := &store.Clients{Store: s}
	imports := importer.New(importer.Config{Store: s})
	h, err := httpapi.New(httpapi.Config{Clients: clients, Importer: imports, Jobs: imports})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, key, err := clients.CreateClient(t.Context(), connect.NewClient{TenantID: "acme", ClientID: "erp", SourceSystem: "erp", Scopes: []connect.Scope{connect.ScopeTargetsWrite}})
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL + httpapi.DefaultBasePath, key
}

func postTarget(t *testing.T, api, key, externalID string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, api+"/inbound/targets", strings.NewReader(`{"externalId":"`+externalID+`","title":"Boiler"}`))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
