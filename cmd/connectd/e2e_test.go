package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store/teststore"
)

// buildBinary builds connectd once for the end-to-end tests.
func buildBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := filepath.Join(t.TempDir(), "connectd")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// daemon is a running connectd serve.
type daemon struct {
	cmd    *exec.Cmd
	url    string
	stderr *logWatcher
	stdout *bufio.Scanner
}

// listening finds the URL in the start line of the log, text or JSON.
var listening = regexp.MustCompile(`connectd listening"?[ ,]"?url"?[=:]"?(http://[^\s"]+)`)

func startDaemon(t testing.TB, bin string, args ...string) *daemon {
	t.Helper()
	d := spawnDaemon(t, bin, args...)
	d.waitListening(t)
	return d
}

// spawnDaemon starts connectd serve on a free port without waiting for it.
func spawnDaemon(t testing.TB, bin string, args ...string) *daemon {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, stderr: newLogWatcher(listening), stdout: bufio.NewScanner(stdout)}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return d
}

// waitListening waits until the daemon logs that it listens.
func (d *daemon) waitListening(t testing.TB) {
	t.Helper()
	select {
	case d.url = <-d.stderr.found:
	case <-time.After(60 * time.Second):
		t.Fatalf("connectd did not start: %s", d.stderr)
	}
}

// logWatcher collects a process's log and sends the first submatch of re
// found in it.
type logWatcher struct {
	mu    sync.Mutex
	buf   strings.Builder
	re    *regexp.Regexp
	found chan string
}

func newLogWatcher(re *regexp.Regexp) *logWatcher {
	return &logWatcher{re: re, found: make(chan string, 1)}
}

func (w *logWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := w.re.MatchString(w.buf.String())
	w.buf.Write(p)
	if m := w.re.FindStringSubmatch(w.buf.String()); !seen && m != nil {
		w.found <- m[1]
	}
	return len(p), nil
}

func (w *logWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// stop sends SIGTERM and returns the exit status.
func (d *daemon) stop(t *testing.T) int {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("connectd did not stop within 20 s of SIGTERM")
	}
	return d.cmd.ProcessState.ExitCode()
}

// call sends an authenticated request from the test's goroutine (see send)
// and returns the answer's status and body; no answer fails the test.
func call(t *testing.T, method, url, key, body string) (int, []byte) {
	t.Helper()
	status, b, _, err := send(testClient, method, url, key, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, b
}

// testClient sends the tests' requests: none waits more than a minute for
// its answer.
var testClient = &http.Client{Timeout: time.Minute}

// send sends an authenticated JSON request, with headers (name, value
// pairs) besides, and returns the answer's status, body and headers; err
// when no whole answer came.
func send(client *http.Client, method, url, key, body string, headers ...string) (int, []byte, http.Header, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// TestEndToEnd builds the binary, creates a key, serves, imports a batch,
// reads the job back, stops with SIGTERM and finds the data after a restart.
func TestEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	data := dataDir(t)

	out, err := exec.Command(bin, "keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "sap",
		"--scopes", "inbound.targets.batch.write,import_jobs.read", "--data", data).Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]

	d := startDaemon(t, bin, "--data", data)
	status, body := call(t, "POST", d.url+"/inbound/targets/batch", key,
		`{"batchId":"e2e","targets":[{"externalId":"E1","title":"One","address":{"latitude":52.5,"longitude":13.4}},{"externalId":"E2","title":"Two","planning":{"estimatedWorkMinutes":1000}}]}`)
	var result connect.InboundImportResult
	if err := json.Unmarshal(body, &result); status != 200 || err != nil || result.CreatedItems != 1 || result.RejectedItems != 1 {
		t.Fatalf("batch import: %d %s", status, body)
	}
	jobPath := fmt.Sprintf("/import-jobs/%d", result.ImportJobID)
	status, before := call(t, "GET", d.url+jobPath, key, "")
	if status != 200 {
		t.Fatalf("read job: %d %s", status, before)
	}

	if code := d.stop(t); code != 0 {
		t.Fatalf("exit status %d after SIGTERM; stderr:\n%s", code, d.stderr)
	}
	if logs := d.stderr.String(); !strings.Contains(logs, "shutting down") || !strings.HasSuffix(logs, "level=INFO msg=stopped\n") {
		t.Errorf("no shutdown log line, or not the final stopped line:\n%s", logs)
	}

	d = startDaemon(t, bin, "--data", data)
	status, after := call(t, "GET", d.url+jobPath, key, "")
	if status != 200 || string(after) != string(before) {
		t.Errorf("after restart: %d\n%s\nwant\n%s", status, after, before)
	}
	if code := d.stop(t); code != 0 {
		t.Errorf("second exit status %d", code)
	}
}

// TestDevMode: --dev on an empty store creates one demo client, prints its key
// and a curl line, and does it only once.
func TestDevMode(t *testing.T) {
	bin := buildBinary(t)
	data := dataDir(t)
	d := startDaemon(t, bin, "--dev", "--data", data)
	var key, curl string
	for d.stdout.Scan() && curl == "" {
		line := strings.TrimSpace(d.stdout.Text())
		switch {
		case strings.HasPrefix(line, "ick_"):
			key = line
		case strings.HasPrefix(line, "curl "):
			curl = line
		}
	}
	if key == "" || !strings.Contains(curl, key) || !strings.Contains(curl, "/integration/health") {
		t.Fatalf("dev output lacks the key or the curl line: key %q curl %q", key, curl)
	}
	if status, body := call(t, "GET", d.url+"/integration/health", key, ""); status != 200 {
		t.Errorf("demo key: %d %s", status, body)
	}
	d.stop(t)

	second := startDaemon(t, bin, "--dev", "--data", data)
	second.stop(t)
	if out, _ := exec.Command(bin, "keys", "list", "--data", data).Output(); strings.Count(string(out), "demo-client") != 1 {
		t.Errorf("demo client created more than once:\n%s", out)
	}
}

// TestAdminWhileServing: with the real binary, admin commands reach a running
// server through its admin socket: a key created while serving authenticates
// on the next request, a revoked one fails on the next request, and output and
// exit status are those of the same command on the file.
func TestAdminWhileServing(t *testing.T) {
	if teststore.Engine() == "postgres" {
		t.Skip("admin.sock is bbolt's; with PostgreSQL admin commands use the database (TestTwoReplicas)")
	}
	bin := buildBinary(t)
	data := dataDir(t)
	offline := cli(t, bin, "keys", "revoke", "--tenant", "acme", "--client", "nobody", "--data", data)

	d := startDaemon(t, bin, "--data", data)
	if info, err := os.Stat(filepath.Join(data, "admin.sock")); err != nil || info.Mode()&os.ModeSocket == 0 || info.Mode().Perm() != 0o600 {
		t.Fatalf("admin.sock: %v %v", info, err)
	}
	created := cli(t, bin, "keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "sap",
		"--scopes", "integration.health.read", "--data", data)
	lines := strings.Split(strings.TrimSpace(created.stdout), "\n")
	key := lines[len(lines)-1]
	if created.status != 0 || !strings.HasPrefix(key, "ick_") {
		t.Fatalf("keys create while serving: %+v", created)
	}
	if status, body := call(t, "GET", d.url+"/integration/health", key, ""); status != 200 {
		t.Fatalf("the new key: %d %s", status, body)
	}
	if status, body := call(t, "GET", d.url+"/import-jobs", key, ""); status != 403 {
		t.Fatalf("a key without import_jobs.read: %d %s", status, body)
	}
	if rescoped := cli(t, bin, "keys", "set-scopes", "--tenant", "acme", "--client", "erp", "--scopes", "integration.health.read,import_jobs.read", "--data", data); rescoped.status != 0 {
		t.Fatalf("keys set-scopes while serving: %+v", rescoped)
	}
	if status, body := call(t, "GET", d.url+"/import-jobs", key, ""); status != 200 {
		t.Errorf("the same key after set-scopes: %d %s", status, body)
	}
	if revoked := cli(t, bin, "keys", "revoke", "--tenant", "acme", "--client", "erp", "--data", data); revoked.status != 0 {
		t.Fatalf("keys revoke while serving: %+v", revoked)
	}
	if status, body := call(t, "GET", d.url+"/integration/health", key, ""); status != 401 {
		t.Errorf("the revoked key: %d %s", status, body)
	}
	served := cli(t, bin, "keys", "revoke", "--tenant", "acme", "--client", "nobody", "--data", data)
	if served != offline || served.status != 1 {
		t.Errorf("keys revoke of an unknown client while serving: %+v, without a server: %+v", served, offline)
	}
	if usage := cli(t, bin, "keys", "create", "--tenant", "acme", "--data", data); usage.status != 2 {
		t.Errorf("a usage error while serving: %+v", usage)
	}
	if code := d.stop(t); code != 0 {
		t.Fatalf("exit status %d after SIGTERM; stderr:\n%s", code, d.stderr)
	}
	if !strings.Contains(d.stderr.String(), `msg="client scopes changed" tenantId=acme clientId=erp from=[integration.health.read] to="[integration.health.read import_jobs.read]"`) {
		t.Errorf("the server's log has no audit line of keys set-scopes:\n%s", d.stderr)
	}
	if !strings.Contains(d.stderr.String(), `msg="admin command" command="keys create" exitStatus=0`) {
		t.Errorf("the server does not log the admin commands it ran:\n%s", d.stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "admin.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("admin.sock left behind after a clean stop: %v", err)
	}
	if listed := cli(t, bin, "keys", "list", "--data", data); listed.status != 0 || !strings.Contains(listed.stdout, "erp") {
		t.Errorf("keys list after the server stopped: %+v", listed)
	}
}

// result is what a command line printed and its exit status.
type result struct {
	stdout, stderr string
	status         int
}

// cli runs the binary with args.
func cli(t testing.TB, bin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// TestServeLogs: with --log-format json every line of the server's log is a
// JSON object, from the start line to the final "stopped" line; request lines
// carry error codes and unmatched paths; a bad --log-level is a usage error.
func TestServeLogs(t *testing.T) {
	bin := buildBinary(t)
	data := dataDir(t)
	if bad := cli(t, bin, "serve", "--log-level", "verbose", "--data", data); bad.status != 2 || !strings.Contains(bad.stderr, "log-level") {
		t.Errorf("serve --log-level verbose: %+v", bad)
	}
	d := startDaemon(t, bin, "--data", data, "--log-format", "json", "--log-level", "debug", "--metrics-addr", "127.0.0.1:0")
	metricsURL := regexp.MustCompile(`"msg":"metrics listening","url":"(http://[^"]+)"`).FindStringSubmatch(d.stderr.String())
	if metricsURL == nil {
		t.Fatalf("no metrics line:\n%s", d.stderr)
	}
	// The metrics listener serves /metrics and nothing else; the webhook
	// counters are there before any delivery.
	if status, body := call(t, "GET", metricsURL[1], "", ""); status != 200 || !strings.Contains(string(body), `connect_build_info{goversion="go`) ||
		!strings.Contains(string(body), `connect_webhook_deliveries_total{outcome="delivered"} 0`) {
		t.Errorf("metrics: %d\n%s", status, body)
	}
	if status, _ := call(t, "GET", strings.TrimSuffix(metricsURL[1], "/metrics")+"/api/v1/integration/health", "", ""); status != 404 {
		t.Errorf("another path on the metrics listener: %d", status)
	}
	if status, _ := call(t, "GET", d.url+"/nowhere", "", ""); status != 404 {
		t.Errorf("unknown path: %d", status)
	}
	if code := d.stop(t); code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, d.stderr)
	}
	lines := strings.Split(strings.TrimSpace(d.stderr.String()), "\n")
	for _, line := range lines {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Errorf("not a JSON log line: %s", line)
		}
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last["msg"] != "stopped" {
		t.Errorf("the last line is not the stopped line: %s", lines[len(lines)-1])
	}
	if logs := d.stderr.String(); !strings.Contains(logs, `"route":"unmatched","status":404`) || !strings.Contains(logs, `"path":"/api/v1/nowhere","errorCode":"NotFound"`) {
		t.Errorf("no request line with the path and error code of the unmatched request:\n%s", logs)
	}
}
