package importer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// The shape of the mapping benchmarks: batches of benchTargets orders spread
// over benchCustomers customers with two shops and two contacts each, all
// already in the store, as in the steady state of a daily ERP export.
const (
	benchTargets   = 1000
	benchCustomers = 200
	benchPerSite   = 2
)

// BenchmarkImportBatchWithMapping imports batches of 1,000 orders, each with a
// customer, location and contact, by a key holding customers.map; bbolt syncs
// every commit. Compare items/s with BenchmarkImportBatchNoMapping, which
// imports the same batches by a key without customers.map, in the same run.
func BenchmarkImportBatchWithMapping(b *testing.B) { benchmarkImportBatch(b, withMapping) }

// BenchmarkImportBatchNoMapping is BenchmarkImportBatchWithMapping without
// customers.map: the same bodies, only mapping is Skipped.
func BenchmarkImportBatchNoMapping(b *testing.B) { benchmarkImportBatch(b, withoutMapping) }

func benchmarkImportBatch(b *testing.B, caller connect.Caller) {
	e := openMappingEnv(b, nil)
	seed := benchBatch("seed", benchCustomers*benchPerSite)
	if _, err := e.imports.ImportBatchJSON(mappingCtx, withMapping, seed, connect.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	if got := e.recordCounts(b, "acme"); got != "200 customers, 400 locations, 400 contacts" {
		b.Fatalf("seeded %s", got)
	}
	want := connect.MappingSkipped
	if caller.HasScope(connect.ScopeCustomersMap) {
		want = connect.MappingMapped
	}
	bodies := make([][]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if i == len(bodies) {
			bodies = append(bodies, benchBatch(fmt.Sprintf("run%d", i), benchTargets))
		}
		b.StartTimer()
		out, err := e.imports.ImportBatchJSON(mappingCtx, caller, bodies[i], connect.WriteOptions{})
		if err != nil || out.Result.CreatedItems != benchTargets || out.Result.Items[benchTargets-1].CustomerMapping.Status != want {
			b.Fatalf("import: %v; created %d, last mapping %s", err, out.Result.CreatedItems, out.Result.Items[benchTargets-1].CustomerMapping.Status)
		}
	}
	b.ReportMetric(float64(b.N*benchTargets)/b.Elapsed().Seconds(), "items/s")
}

// benchBatch is the JSON body of a batch of n new orders (externalIds prefixed
// by run); order j belongs to customer j mod 200 at one of its two shops.
func benchBatch(run string, n int) []byte {
	batch := connect.InboundTargetBatch{SourceSystem: ptrTo("erp"), BatchID: ptrTo(run)}
	for j := range n {
		batch.Targets = append(batch.Targets, benchOrder(run, j))
	}
	body, err := json.Marshal(batch)
	if err != nil {
		panic(err)
	}
	return body
}

func benchOrder(run string, j int) connect.InboundTarget {
	c, site := j%benchCustomers, (j/benchCustomers)%benchPerSite
	lat, lon := 52.40+float64(c)*0.001, 13.10+float64(site)*0.01
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	start, end := day.Add(8*time.Hour), day.Add(12*time.Hour)
	routeDate := connect.DateOf(day)
	return connect.InboundTarget{
		ExternalID: fmt.Sprintf("%s-WO-%05d", run, j), ExternalType: ptrTo("workOrder"),
		Title: fmt.Sprintf("Heating maintenance %d", j), Description: ptrTo("Annual maintenance of the gas boiler, check the flue and replace the filter."),
		Customer: &connect.InboundTargetCustomer{
			ExternalID: ptrTo(fmt.Sprintf("C-%04d", c)), CustomerNumber: ptrTo(fmt.Sprintf("%06d", 100000+c)),
			Name: ptrTo(fmt.Sprintf("Customer %d GmbH", c)), Type: ptrTo("business"), Industry: ptrTo("retail"),
			Email: ptrTo(fmt.Sprintf("office@customer%d.example", c)), Phone: ptrTo("+49 30 1234567"),
		},
		Location: &connect.InboundTargetLocation{
			ExternalID: ptrTo(fmt.Sprintf("C-%04d-L%d", c, site)), Name: ptrTo(fmt.Sprintf("Shop %d", site)), Type: ptrTo("shop"),
			Street: ptrTo(fmt.Sprintf("Hauptstraße %d", c*10+site)), PostalCode: ptrTo("14467"), City: ptrTo("Potsdam"), Country: ptrTo("DE"),
			Latitude: &lat, Longitude: &lon, DefaultEstimatedWorkMinutes: ptrTo(60), DefaultPriority: ptrTo("normal"),
			AccessNotes: ptrTo("Ring at the back door"),
		},
		Contact: &connect.InboundTargetContact{
			ExternalID: ptrTo(fmt.Sprintf("C-%04d-P%d", c, site)), FirstName: ptrTo("Anna"), LastName: ptrTo(fmt.Sprintf("Schmidt %d", c)),
			Role: ptrTo("manager"), Email: ptrTo(fmt.Sprintf("anna%d.%d@customer%d.example", site, c, c)), Phone: ptrTo("+49 30 7654321"),
			PreferredContactMethod: ptrTo("phone"),
		},
		Planning: &connect.InboundTargetPlanning{
			RouteDate: &routeDate, TimeWindowStartUtc: &start, TimeWindowEndUtc: &end,
			EstimatedWorkMinutes: ptrTo(45), Priority: ptrTo("normal"),
		},
		BusinessValue: &connect.InboundTargetBusinessValue{ExpectedRevenue: ptrTo(250.0), CustomerTier: ptrTo("gold")},
		CustomFields:  map[string]*string{"costCenter": ptrTo("4711"), "contract": ptrTo(fmt.Sprintf("K-%d", c))},
	}
}

func ptrTo[T any](v T) *T { return &v }
