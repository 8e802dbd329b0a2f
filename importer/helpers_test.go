package importer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

var bg = context.Background()

// caller holds every scope; tests that check scopes build their own.
var caller = connect.Caller{TenantID: "acme", ClientID: "erp-client", SourceSystem: "erp", Scopes: connect.AllScopes}

var clock = time.Date(2026, 11, 21, 8, 30, 0, 0, time.UTC)

// env is an importer on a real bbolt file in a temporary directory.
type env struct {
	svc   *importer.Service
	store *bolt.Store
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, importer.Config{})
}

func newEnvWith(t testing.TB, cfg importer.Config) *env {
	t.Helper()
	s := bolttest.Open(t)
	cfg.Store = s
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return clock }
	}
	return &env{svc: importer.New(cfg), store: s}
}

func (e *env) single(t testing.TB, body string) connect.ImportOutcome {
	t.Helper()
	out, err := e.svc.ImportTargetJSON(bg, caller, []byte(body), connect.WriteOptions{})
	if err != nil {
		t.Fatalf("single import: %v", err)
	}
	return out
}

func (e *env) batch(t testing.TB, body string) connect.InboundImportResult {
	t.Helper()
	out, err := e.svc.ImportBatchJSON(bg, caller, []byte(body), connect.WriteOptions{})
	if err != nil {
		t.Fatalf("batch import: %v", err)
	}
	return out.Result
}

// target returns the stored target, failing the test when it is missing.
func (e *env) target(t testing.TB, source, externalID string) *store.Target {
	t.Helper()
	var target *store.Target
	err := e.store.View(bg, func(tx store.Tx) (err error) {
		target, err = tx.TargetByExternalID(caller.TenantID, source, externalID)
		return err
	})
	if err != nil {
		t.Fatalf("target %s/%s: %v", source, externalID, err)
	}
	return target
}

func (e *env) jobCount(t testing.TB) int {
	t.Helper()
	list, err := e.svc.ListJobs(bg, caller, connect.JobQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Total
}

// checkCounters asserts that a result's counters match its items and add up.
func checkCounters(t testing.TB, r connect.InboundImportResult) {
	t.Helper()
	if want := connect.CountItems(r.Items); r.ImportCounters != want {
		t.Errorf("counters %+v do not match the items (%+v)", r.ImportCounters, want)
	}
	c := r.ImportCounters
	if c.CreatedItems+c.UpdatedItems+c.CancelledItems+c.RejectedItems != c.TotalItems || c.TotalItems != len(r.Items) {
		t.Errorf("counters do not add up: %+v with %d items", c, len(r.Items))
	}
}

func warningCodes(ws []connect.InboundImportWarning) string {
	codes := make([]string, len(ws))
	for i, w := range ws {
		codes[i] = string(w.Code)
	}
	return strings.Join(codes, ",")
}

func errorCode(it connect.InboundImportItemResult) connect.ErrorCode {
	if it.ErrorCode == nil {
		return ""
	}
	return *it.ErrorCode
}

func errorMessage(it connect.InboundImportItemResult) string {
	if it.ErrorMessage == nil {
		return ""
	}
	return *it.ErrorMessage
}

// routable is a minimal valid target with coordinates, so no warning is expected.
func routable(externalID string, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"externalId":%q,"title":"Service %s","address":{"latitude":52.52,"longitude":13.40}%s}`, externalID, externalID, extra)
}

func importerConfig(maxBatchTargets int) importer.Config {
	return importer.Config{MaxBatchTargets: maxBatchTargets}
}
