package readme_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
)

// useTheLibrary is the README's first library snippet.
func useTheLibrary(ctx context.Context, dir string) error {
	// README: library
	db, err := bolt.OpenDir(dir, nil) // creates dir/connect.db
	if err != nil {
		return err
	}
	defer db.Close()

	imports := importer.New(importer.Config{Store: db})
	caller := connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "sap",
		Scopes: []connect.Scope{connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite, connect.ScopeImportJobsRead}}

	// Raw JSON, as the HTTP host receives it …
	body := []byte(`{"batchId":"morning","targets":[{"externalId":"WO-1","title":"Boiler"},{"externalId":"WO-2","title":""}]}`)
	out, err := imports.ImportBatchJSON(ctx, caller, body, connect.WriteOptions{IdempotencyKey: "sync-2026-11-21"})
	if err != nil {
		return err
	}
	fmt.Println(out.Result.Status, *out.Result.Items[1].ErrorMessage) // PartiallyAccepted title is required and must not be blank

	// … or typed Go values, taken as their JSON: both get exactly the same answers.
	out, err = imports.ImportTarget(ctx, caller, connect.InboundTarget{ExternalID: "WO-3", Title: "Pump"}, connect.WriteOptions{})
	if err != nil {
		return err
	}
	fmt.Println(out.Created, out.Result.Status) // true Accepted

	jobs, err := imports.ListJobs(ctx, caller, connect.JobQuery{Status: "Accepted"})
	if err != nil {
		return err
	}
	fmt.Println(jobs.Total, "accepted job") // 1 accepted job
	// README end
	return nil
}

// authenticateKeys is the README's client registry snippet.
func authenticateKeys(ctx context.Context, db store.Store) error {
	// README: clients
	clients := &store.Clients{Store: db}
	client, apiKey, err := clients.CreateClient(ctx, connect.NewClient{TenantID: "acme", ClientID: "erp",
		SourceSystem: "sap", Scopes: connect.AllScopes}) // apiKey is shown once; only its hash is stored
	if err != nil {
		return err
	}
	caller, err := clients.Authenticate(ctx, apiKey) // Unauthorized for unknown or revoked keys
	if err != nil {
		return err
	}
	fmt.Println(client.ClientID, caller.TenantID) // erp acme
	// README end
	return nil
}

// serveHTTP is the README's snippet serving HTTP from a host program; it
// returns the listener, which the caller closes.
func serveHTTP(db store.Store, addr string) (net.Listener, error) {
	clients := &store.Clients{Store: db}
	imports := importer.New(importer.Config{Store: db})
	// README: serve
	h, err := httpapi.New(httpapi.Config{Clients: clients, Importer: imports, Jobs: imports,
		Routes: routesuggest.New(routesuggest.Config{Store: db}), DrawRoute: routesuggest.SVG,
		Appointments: appointments.New(appointments.Config{Store: db}),
		Webhooks:     &webhooks.Subscriptions{Store: db}})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr) // such as "127.0.0.1:8080"
	if err != nil {
		return nil, err
	}
	go http.Serve(ln, h) // or an http.Server with timeouts, as connectd does
	// README end
	return ln, nil
}

// README: verify
func verify(secret string, h http.Header, body []byte, now time.Time) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	ts, terr := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || terr != nil || now.Sub(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return false // a replayed or delayed request
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) { // space-separated
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// README end

// tempDir is a fresh directory for one example; done removes it.
func tempDir() (dir string, done func()) {
	dir, err := os.MkdirTemp("", "connect-readme-")
	if err != nil {
		panic(err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }
}

func Example_library() {
	dir, done := tempDir()
	defer done()
	if err := useTheLibrary(context.Background(), dir); err != nil {
		fmt.Println(err)
	}
	// Output:
	// PartiallyAccepted title is required and must not be blank
	// true Accepted
	// 1 accepted job
}

func Example_clients() {
	dir, done := tempDir()
	defer done()
	db, err := bolt.OpenDir(dir, nil)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := authenticateKeys(context.Background(), db); err != nil {
		fmt.Println(err)
	}
	// Output: erp acme
}

func Example_serve() {
	dir, done := tempDir()
	defer done()
	db, err := bolt.OpenDir(dir, nil)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	_, key, err := (&store.Clients{Store: db}).CreateClient(ctx, connect.NewClient{TenantID: "acme", ClientID: "erp", SourceSystem: "sap", Scopes: connect.AllScopes})
	if err != nil {
		panic(err)
	}
	ln, err := serveHTTP(db, "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/v1/integration/health", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	fmt.Println(resp.Status)
	// Output: 200 OK
}

func Example_verify() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8vz2ZP7dVSo="
	body := []byte(`{"type":"import_job.completed","timestamp":"2026-11-21T08:30:00Z","data":{}}`)
	now := time.Now()
	sig, err := webhooks.Sign(secret, "evt_1", now.Unix(), body)
	if err != nil {
		panic(err)
	}
	h := http.Header{}
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", "v1,bm9wZQ== "+sig)
	fmt.Println(verify(secret, h, body, now), verify(secret, h, append(body, ' '), now), verify(secret, h, body, now.Add(time.Hour)))
	// Output: true false false
}

// region finds the snippets marked in this file: "// README: name" up to
// "// README end".
var region = regexp.MustCompile(`(?s)// README: \w+\n(.*?)\n\s*// README end`)

// TestREADMESnippets: every Go block of the README is one region of this
// file, and every region is in the README, up to indentation.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]bool{}
	for _, m := range region.FindAllStringSubmatch(string(source), -1) {
		regions[dedent(m[1])] = false
	}
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		block := dedent(m[1])
		if _, ok := regions[block]; !ok {
			t.Errorf("a README Go block is not a region of readme_test.go:\n%s", block)
			continue
		}
		regions[block] = true
	}
	for block, inREADME := range regions {
		if !inREADME {
			t.Errorf("a region of readme_test.go is not in the README:\n%s", block)
		}
	}
}

// dedent removes the indentation every non-blank line shares and trailing
// blank lines.
func dedent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	common := ""
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if i == 0 || common == "" || strings.HasPrefix(common, indent) {
			common = indent
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, common)
	}
	return strings.Join(lines, "\n")
}
