package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// TestWebhooksEndToEnd: with the real binary, a subscription added by
// `connectd webhooks add` receives the import_job.completed event of an
// import, signed with the secret it printed, after one refused attempt
// retried --webhook-retry-min later; /metrics counts both attempts.
func TestWebhooksEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	data := dataDir(t)
	rc := &recorder{}
	receiver := httptest.NewServer(rc)
	t.Cleanup(receiver.Close)

	key := lastLine(t, exec.Command(bin, "keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "sap",
		"--scopes", "inbound.targets.write", "--data", data))
	secret := lastLine(t, exec.Command(bin, "webhooks", "add", "--tenant", "acme", "--url", receiver.URL+"/hooks",
		"--events", "import_job.completed", "--allow-insecure-loopback", "--data", data))

	d := startDaemon(t, bin, "--data", data, "--webhook-retry-min", "20ms")
	status, body := call(t, "POST", d.url+"/inbound/targets", key, `{"externalId":"E1","title":"One"}`)
	var result connect.InboundImportResult
	if err := json.Unmarshal(body, &result); status != 201 || err != nil {
		t.Fatalf("import: %d %s", status, body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(rc.got()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := rc.got()
	if len(got) != 2 {
		t.Fatalf("receiver got %d requests, want a refused one and its retry", len(got))
	}
	var event connect.WebhookEvent
	var summary connect.ImportJobSummary
	last := got[1]
	if err := json.Unmarshal(last.body, &event); err != nil || event.Type != connect.EventImportJobCompleted || json.Unmarshal(event.Data, &summary) != nil || summary.ID != result.ImportJobID {
		t.Errorf("delivered %s, want import_job.completed of job %d", last.body, result.ImportJobID)
	}
	if !signedWith(secret, last.header, last.body) || last.header.Get("webhook-id") != got[0].header.Get("webhook-id") {
		t.Errorf("the delivery is not signed with the secret of webhooks add, or its retry changed id: %v", last.header)
	}
	// The receiver answers before the daemon counts the attempt: poll.
	wants := []string{`connect_webhook_deliveries_total{outcome="http_error"} 1`, `connect_webhook_deliveries_total{outcome="delivered"} 1`}
	var missing []string
	for {
		status, metrics := call(t, "GET", strings.TrimSuffix(d.url, "/api/v1")+"/metrics", "", "")
		missing = missing[:0]
		for _, want := range wants {
			if status != 200 || !strings.Contains(string(metrics), want) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range missing {
		t.Errorf("/metrics lacks %s", want)
	}
	if code := d.stop(t); code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, d.stderr)
	}
	if out, err := exec.Command(bin, "webhooks", "list", "--data", data).Output(); err != nil || !strings.Contains(string(out), "  enabled  ") {
		t.Errorf("webhooks list after serving: %v\n%s", err, out)
	}
}

// lastLine runs cmd and returns the last line of its stdout.
func lastLine(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(cmd.Args[1:3], " "), err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// recorder is a webhook receiver that refuses its first request.
type recorder struct {
	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	header http.Header
	body   []byte
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.requests = append(rc.requests, recorded{header: r.Header.Clone(), body: body})
	first := len(rc.requests) == 1
	rc.mu.Unlock()
	if first {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

func (rc *recorder) got() []recorded {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]recorded(nil), rc.requests...)
}

// signedWith checks a Standard Webhooks signature with the standard library.
func signedWith(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(h.Get("webhook-signature")), []byte(want))
}
