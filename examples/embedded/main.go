// Command embedded shows Integration Connect used as a library: it opens a bbolt
// store in a temporary directory, imports a sample batch of three targets (one of
// them invalid), and prints the import result and the job list as JSON.
//
//	go run ./examples/embedded
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store/bolt"
)

// sampleBatch is what an ERP would send to POST /api/v1/inbound/targets/batch.
const sampleBatch = `{
  "sourceSystem": "erp-demo",
  "batchId": "2026-11-21-morning",
  "targets": [
    {"externalId": "WO-1001", "title": "Boiler maintenance",
     "address": {"street": "Alexanderplatz 1", "postalCode": "10178", "city": "Berlin", "country": "DE",
                 "latitude": 52.5219, "longitude": 13.4132},
     "planning": {"routeDate": "2026-11-23", "estimatedWorkMinutes": 45, "priority": "high"}},
    {"externalId": "WO-1002", "title": "Heat pump inspection",
     "location": {"name": "Depot Nord", "latitude": 52.5663, "longitude": 13.3822},
     "planning": {"routeDate": "2026-11-23", "estimatedWorkMinutes": 500}},
    {"externalId": "WO-1003", "title": "Replace thermostat", "planing": {"priority": "low"}}
  ]
}`

func main() {
	if err := run(context.Background()); err != nil {
		slog.Error("embedded example failed", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "connect-embedded-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	db, err := bolt.OpenDir(dir, nil)
	if err != nil {
		return err
	}
	defer db.Close()

	imports := importer.New(importer.Config{Store: db})
	caller := connect.Caller{
		TenantID: "acme", ClientID: "erp-demo-client", SourceSystem: "erp-demo",
		Scopes: []connect.Scope{connect.ScopeTargetsBatchWrite, connect.ScopeImportJobsRead},
	}

	outcome, err := imports.ImportBatchJSON(ctx, caller, []byte(sampleBatch), connect.WriteOptions{IdempotencyKey: "demo-batch-1"})
	if err != nil {
		return err
	}
	fmt.Println("Import result (WO-1002 is rejected: 500 minutes is over the limit; WO-1003 has a typo):")
	if err := printJSON(outcome.Result); err != nil {
		return err
	}

	jobs, err := imports.ListJobs(ctx, caller, connect.JobQuery{})
	if err != nil {
		return err
	}
	fmt.Println("Import jobs of tenant acme:")
	return printJSON(jobs)
}

func printJSON(v any) error {
	if err := json.MarshalWrite(os.Stdout, v, jsontext.WithIndent("  ")); err != nil {
		return err
	}
	_, err := fmt.Println()
	return err
}
