package importer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

// mappingEnv is an importer and the mapping service on one bbolt file.
type mappingEnv struct {
	store     *bolt.Store
	imports   *importer.Service
	customers *mapping.Service
}

func openMappingEnv(t testing.TB, opts *bolt.Options) mappingEnv {
	t.Helper()
	s := bolttest.OpenWith(t, opts)
	return mappingEnv{store: s, imports: importer.New(importer.Config{Store: s}), customers: mapping.New(mapping.Config{Store: s})}
}

var mappingCtx = context.Background()

func mapCaller(scopes ...connect.Scope) connect.Caller {
	return connect.Caller{TenantID: "acme", ClientID: "erp-client", SourceSystem: "erp", Scopes: scopes}
}

var (
	withMapping    = mapCaller(connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite, connect.ScopeCustomersMap)
	withoutMapping = mapCaller(connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite)
)

// recordCounts counts the customers, locations and contacts of a tenant
// through the host API.
func (e mappingEnv) recordCounts(t testing.TB, tenantID string) string {
	t.Helper()
	list, err := e.customers.ListCustomers(mappingCtx, tenantID, mapping.CustomerQuery{Take: new(200)})
	if err != nil {
		t.Fatal(err)
	}
	locations, contacts := 0, 0
	for _, c := range list.Customers {
		d, err := e.customers.Customer(mappingCtx, tenantID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		locations, contacts = locations+len(d.Locations), contacts+len(d.Contacts)
	}
	return fmt.Sprintf("%d customers, %d locations, %d contacts", list.Total, locations, contacts)
}

// workOrders is a morning's batch of an ERP: two customers, one with two shops;
// several orders share a customer, location or contact, so later items link
// what earlier items of the same batch created.
const workOrders = `{
  "sourceSystem": "erp",
  "batchId": "2026-11-21",
  "targets": [
    {"externalId": "WO-1", "title": "Boiler maintenance",
     "customer": {"externalId": "C-1", "customerNumber": "10001", "name": "Bäckerei Schmidt"},
     "location": {"externalId": "L-1", "street": "Hauptstraße 1", "postalCode": "10115", "city": "Berlin", "latitude": 52.531, "longitude": 13.3847},
     "contact": {"externalId": "P-1", "firstName": "Anna", "email": "anna@schmidt.example"}},
    {"externalId": "WO-2", "title": "Oven repair",
     "customer": {"externalId": "C-1", "customerNumber": "10001", "name": "Bäckerei Schmidt"},
     "location": {"externalId": "L-1", "street": "Hauptstraße 1", "postalCode": "10115", "city": "Berlin", "latitude": 52.531, "longitude": 13.3847},
     "contact": {"externalId": "P-1", "firstName": "Anna", "email": "anna@schmidt.example"}},
    {"externalId": "WO-3", "title": "Cold room check",
     "customer": {"customerNumber": "10001"},
     "location": {"street": "Torstraße 5", "postalCode": "10119", "city": "Berlin", "latitude": 52.529, "longitude": 13.401},
     "contact": {"email": "Ben@Schmidt.example", "firstName": "Ben"}},
    {"externalId": "WO-4", "title": "Cold room follow-up",
     "customer": {"externalId": "C-1"},
     "location": {"street": "torstraße  5", "postalCode": "10119", "city": "BERLIN"},
     "contact": {"email": "ben@schmidt.example"}},
    {"externalId": "WO-5", "title": "Heat pump inspection",
     "customer": {"externalId": "C-2", "name": "Metzgerei Weber"},
     "location": {"externalId": "W-1", "street": "Marktplatz 3", "postalCode": "14467", "city": "Potsdam", "latitude": 52.3989, "longitude": 13.0657},
     "contact": {"externalId": "P-9", "lastName": "Weber"}}
  ]
}`

func TestReimportingABatchCreatesNoDuplicates(t *testing.T) {
	e := openMappingEnv(t, nil)
	statuses := func(out connect.ImportOutcome) string {
		var s []string
		for _, it := range out.Result.Items {
			s = append(s, fmt.Sprintf("%s/%s", it.Status, it.CustomerMapping.Status))
		}
		return fmt.Sprint(s)
	}
	first, err := e.imports.ImportBatchJSON(mappingCtx, withMapping, []byte(workOrders), connect.WriteOptions{IdempotencyKey: "first"})
	if err != nil {
		t.Fatal(err)
	}
	// WO-3 links C-1 by number and adds Torstraße and Ben; WO-4 finds both by
	// address and e-mail.
	want := "[Imported/Created Imported/Mapped Imported/Created Imported/Mapped Imported/Created]"
	if got := statuses(first); got != want {
		t.Errorf("first import: %s, want %s", got, want)
	}
	const wantCounts = "2 customers, 3 locations, 3 contacts"
	if got := e.recordCounts(t, "acme"); got != wantCounts {
		t.Errorf("after the first import: %s, want %s", got, wantCounts)
	}
	second, err := e.imports.ImportBatchJSON(mappingCtx, withMapping, []byte(workOrders), connect.WriteOptions{IdempotencyKey: "second"})
	if err != nil || second.Replayed {
		t.Fatalf("second import: replayed %v, %v", second.Replayed, err)
	}
	want = "[Updated/Mapped Updated/Mapped Updated/Mapped Updated/Mapped Updated/Mapped]"
	if got := statuses(second); got != want {
		t.Errorf("second import: %s, want %s", got, want)
	}
	if got := e.recordCounts(t, "acme"); got != wantCounts {
		t.Errorf("after the second import: %s, want %s", got, wantCounts)
	}
	for i := range first.Result.Items {
		a, b := first.Result.Items[i].CustomerMapping, second.Result.Items[i].CustomerMapping
		if fmt.Sprint(*a.CustomerID, *a.CustomerLocationID, *a.CustomerContactID) != fmt.Sprint(*b.CustomerID, *b.CustomerLocationID, *b.CustomerContactID) {
			t.Errorf("item %d linked other records the second time", i)
		}
	}
	if same := first.Result.Items; *same[0].CustomerMapping.CustomerID != *same[2].CustomerMapping.CustomerID ||
		*same[2].CustomerMapping.CustomerLocationID != *same[3].CustomerMapping.CustomerLocationID ||
		*same[2].CustomerMapping.CustomerContactID != *same[3].CustomerMapping.CustomerContactID {
		t.Errorf("items of one batch did not share their records: %+v", same)
	}
}

func TestMappingNeedsTheScopeAndStoredData(t *testing.T) {
	e := openMappingEnv(t, nil)
	orderWith := func(id string) connect.InboundTarget {
		return connect.InboundTarget{
			ExternalID: id, Title: "Boiler maintenance",
			Customer: &connect.InboundTargetCustomer{ExternalID: new("C-1")},
			Location: &connect.InboundTargetLocation{ExternalID: new("L-1"), Latitude: new(52.5), Longitude: new(13.4)},
		}
	}
	bare := connect.InboundTarget{ExternalID: "WO-bare", Title: "No customer"}
	invalid := orderWith("WO-invalid")
	invalid.Location.DefaultEstimatedWorkMinutes = new(1)
	cancel := orderWith("WO-1")
	cancel.Operation = connect.OperationCancel
	create := orderWith("WO-1")
	create.Operation = connect.OperationCreate

	tests := []struct {
		name      string
		caller    connect.Caller
		batch     bool
		target    connect.InboundTarget
		want      connect.ItemStatus
		wantMap   connect.CustomerMappingStatus
		wantCount string
	}{
		{"single without customers.map", withoutMapping, false, orderWith("WO-1"), connect.ItemImported, connect.MappingSkipped, "0 customers, 0 locations, 0 contacts"},
		{"batch without customers.map", withoutMapping, true, orderWith("WO-2"), connect.ItemImported, connect.MappingSkipped, "0 customers, 0 locations, 0 contacts"},
		{"no customer data", withMapping, false, bare, connect.ItemImported, connect.MappingNotApplicable, "0 customers, 0 locations, 0 contacts"},
		{"rejected item", withMapping, true, invalid, connect.ItemRejected, connect.MappingSkipped, "0 customers, 0 locations, 0 contacts"},
		{"single with customers.map", withMapping, false, orderWith("WO-1"), connect.ItemUpdated, connect.MappingCreated, "1 customers, 1 locations, 0 contacts"},
		{"batch with customers.map", withMapping, true, orderWith("WO-2"), connect.ItemUpdated, connect.MappingMapped, "1 customers, 1 locations, 0 contacts"},
		{"create of an existing target", withMapping, false, create, connect.ItemRejected, connect.MappingSkipped, "1 customers, 1 locations, 0 contacts"},
		{"cancel", withMapping, true, cancel, connect.ItemCancelled, connect.MappingSkipped, "1 customers, 1 locations, 0 contacts"},
	}
	for _, tc := range tests {
		var out connect.ImportOutcome
		var err error
		if tc.batch {
			out, err = e.imports.ImportBatch(mappingCtx, tc.caller, connect.InboundTargetBatch{Targets: []connect.InboundTarget{tc.target}}, connect.WriteOptions{})
		} else {
			out, err = e.imports.ImportTarget(mappingCtx, tc.caller, tc.target, connect.WriteOptions{})
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		item := out.Result.Items[0]
		if item.Status != tc.want || item.CustomerMapping.Status != tc.wantMap {
			t.Errorf("%s: %s/%s, want %s/%s", tc.name, item.Status, item.CustomerMapping.Status, tc.want, tc.wantMap)
		}
		if got := e.recordCounts(t, "acme"); got != tc.wantCount {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.wantCount)
		}
	}
	// The cancel kept the links of WO-1; the decode failure of a batch item
	// has no data at all, so mapping does not apply to it.
	err := e.store.View(mappingCtx, func(tx store.Tx) error {
		target, err := tx.TargetByExternalID("acme", "erp", "WO-1")
		if err == nil && (target.Status != store.TargetCancelled || target.CustomerID == nil || target.LocationID == nil) {
			t.Errorf("cancelled target = %+v", target)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.imports.ImportBatchJSON(mappingCtx, withMapping, []byte(`{"targets": [{"externalId": "WO-x", "title": 7}]}`), connect.WriteOptions{})
	if err != nil || out.Result.Items[0].CustomerMapping.Status != connect.MappingNotApplicable {
		t.Errorf("undecodable item: %+v, %v; want NotApplicable", out.Result.Items, err)
	}
}

func TestUnmappedUpdateDropsTheLinks(t *testing.T) {
	e := openMappingEnv(t, nil)
	order := connect.InboundTarget{
		ExternalID: "WO-1", Title: "Boiler maintenance",
		Customer: &connect.InboundTargetCustomer{ExternalID: new("C-1")},
		Location: &connect.InboundTargetLocation{ExternalID: new("L-1"), Latitude: new(52.5), Longitude: new(13.4), DefaultEstimatedWorkMinutes: new(90)},
	}
	links := func() (string, int) {
		var s string
		var minutes int
		_ = e.store.View(mappingCtx, func(tx store.Tx) error {
			target, err := tx.TargetByExternalID("acme", "erp", "WO-1")
			if err != nil {
				t.Fatal(err)
			}
			s = fmt.Sprint(target.CustomerID != nil, target.LocationID != nil, target.ContactID != nil)
			minutes = target.Effective.EstimatedWorkMinutes
			return nil
		})
		return s, minutes
	}
	if _, err := e.imports.ImportTarget(mappingCtx, withMapping, order, connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, minutes := links(); got != "true true false" || minutes != 90 {
		t.Errorf("mapped target links %s, minutes %d", got, minutes)
	}
	order.Location.DefaultEstimatedWorkMinutes = nil
	if _, err := e.imports.ImportTarget(mappingCtx, withoutMapping, order, connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, minutes := links(); got != "false false false" || minutes != mapping.DefaultEstimatedWorkMinutes {
		t.Errorf("after an unmapped update: links %s, minutes %d; want none and the tenant default", got, minutes)
	}
}

func TestFailedMappingDoesNotRejectTheItem(t *testing.T) {
	e := openMappingEnv(t, nil)
	out, err := e.imports.ImportTarget(mappingCtx, withMapping, connect.InboundTarget{
		ExternalID: "WO-1", Title: "Boiler maintenance",
		Location: &connect.InboundTargetLocation{Name: new("Depot"), Latitude: new(52.5), Longitude: new(13.4)},
	}, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	item := out.Result.Items[0]
	m := item.CustomerMapping
	if item.Status != connect.ItemImported || !out.Created || m.Status != connect.MappingFailed || len(m.Errors) != 1 || m.CustomerID != nil || len(item.Warnings) != 0 {
		t.Errorf("item %s (created %v), mapping %s %q, warnings %+v; want Imported with a Failed mapping and no item warning", item.Status, out.Created, m.Status, m.Errors, item.Warnings)
	}
	if out.Result.Status != connect.JobAccepted || out.Result.WarningItems != 0 {
		t.Errorf("job %s with %d warning items", out.Result.Status, out.Result.WarningItems)
	}
}

func TestMappingSettingsAreReadPerImport(t *testing.T) {
	e := openMappingEnv(t, nil)
	if _, err := e.customers.UpdateSettings(mappingCtx, "acme", mapping.SettingsChange{AutoCreateCustomers: new(false)}); err != nil {
		t.Fatal(err)
	}
	order := connect.InboundTarget{ExternalID: "WO-1", Title: "Boiler maintenance", Customer: &connect.InboundTargetCustomer{ExternalID: new("C-1")}}
	out, err := e.imports.ImportTarget(mappingCtx, withMapping, order, connect.WriteOptions{})
	if err != nil || out.Result.Items[0].CustomerMapping.Status != connect.MappingWarning {
		t.Fatalf("auto-create off: %+v, %v", out.Result.Items[0].CustomerMapping, err)
	}
	if _, err := e.customers.UpdateSettings(mappingCtx, "acme", mapping.SettingsChange{AutoCreateCustomers: new(true)}); err != nil {
		t.Fatal(err)
	}
	out, err = e.imports.ImportTarget(mappingCtx, withMapping, order, connect.WriteOptions{})
	if err != nil || out.Result.Items[0].CustomerMapping.Status != connect.MappingCreated {
		t.Errorf("auto-create on again: %+v, %v", out.Result.Items[0].CustomerMapping, err)
	}
}
