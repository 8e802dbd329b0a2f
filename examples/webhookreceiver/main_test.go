package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

// TestReceivesFromTheDispatcher: the receiver accepts what the real
// dispatcher sends for a real import.
func TestReceivesFromTheDispatcher(t *testing.T) {
	db := bolttest.Open(t)
	var mu sync.Mutex
	var handled []string
	var rc *receiver
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rc.ServeHTTP(w, r) }))
	defer srv.Close()
	subs := &webhooks.Subscriptions{Store: db}
	_, secret, err := subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "acme", URL: srv.URL, Kinds: connect.EventKinds, AllowInsecureLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	key, err := decodeSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc = newReceiver(key, func(id string, e event) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, e.Type)
	})
	caller := connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "erp", Scopes: connect.AllScopes}
	if _, err := importer.New(importer.Config{Store: db}).ImportTarget(t.Context(), caller, connect.InboundTarget{ExternalID: "A", Title: "A"}, connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := webhooks.NewDispatcher(webhooks.Config{Store: db, PollInterval: 5 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(handled)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(handled) != 1 || handled[0] != "import_job.completed" {
		t.Errorf("handled %v, want the import's event", handled)
	}
}

func TestVerify(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	key, _ := decodeSecret(secret)
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	body := []byte(`{"type":"import_job.completed","timestamp":"2026-11-21T08:00:00Z","data":{"id":1}}`)
	sign := func(secret string, at time.Time, body []byte) string {
		sig, err := webhooks.Sign(secret, "evt_1", at.Unix(), body)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	tests := []struct {
		name       string
		ts         time.Time
		signature  string
		body       []byte
		wantStatus int
	}{
		{"valid", now, sign(secret, now, body), body, http.StatusNoContent},
		{"4 minutes old", now.Add(-4 * time.Minute), sign(secret, now.Add(-4*time.Minute), body), body, http.StatusNoContent},
		{"one of several signatures", now, "v1,bm90IGl0 v2,abc " + sign(secret, now, body), body, http.StatusNoContent},
		{"6 minutes old", now.Add(-6 * time.Minute), sign(secret, now.Add(-6*time.Minute), body), body, http.StatusUnauthorized},
		{"6 minutes ahead", now.Add(6 * time.Minute), sign(secret, now.Add(6*time.Minute), body), body, http.StatusUnauthorized},
		{"tampered body", now, sign(secret, now, body), []byte(strings.Replace(string(body), `"id":1`, `"id":2`, 1)), http.StatusUnauthorized},
		{"another secret", now, sign("whsec_c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==", now, body), body, http.StatusUnauthorized},
		{"signed with another timestamp", now, sign(secret, now.Add(time.Second), body), body, http.StatusUnauthorized},
		{"no signature", now, "", body, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(key, func(string, event) {})
			rc.now = func() time.Time { return now }
			req := httptest.NewRequest(http.MethodPost, "/webhooks", strings.NewReader(string(tc.body)))
			req.Header.Set("webhook-id", "evt_1")
			req.Header.Set("webhook-timestamp", strconv.FormatInt(tc.ts.Unix(), 10))
			if tc.signature != "" {
				req.Header.Set("webhook-signature", tc.signature)
			}
			w := httptest.NewRecorder()
			rc.ServeHTTP(w, req)
			if w.Code != tc.wantStatus {
				t.Errorf("status %d (%s), want %d", w.Code, strings.TrimSpace(w.Body.String()), tc.wantStatus)
			}
		})
	}
}

// TestRepeatedDeliveryIsHandledOnce: a delivery repeated with the same
// webhook-id is acknowledged but handled once.
func TestRepeatedDeliveryIsHandledOnce(t *testing.T) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	key, _ := decodeSecret(secret)
	calls := 0
	rc := newReceiver(key, func(string, event) { calls++ })
	body := `{"type":"import_job.completed","timestamp":"2026-11-21T08:00:00Z","data":{}}`
	for range 2 {
		now := time.Now()
		sig, _ := webhooks.Sign(secret, "evt_2", now.Unix(), []byte(body))
		req := httptest.NewRequest(http.MethodPost, "/webhooks", strings.NewReader(body))
		req.Header.Set("webhook-id", "evt_2")
		req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
		req.Header.Set("webhook-signature", sig)
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		if w.Code != http.StatusNoContent {
			t.Fatalf("status %d", w.Code)
		}
	}
	if calls != 1 {
		t.Errorf("handled %d times, want once", calls)
	}
}
