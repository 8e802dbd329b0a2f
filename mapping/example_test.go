package mapping_test

import (
	"context"
	"fmt"
	"os"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store/bolt"
)

// Example shows customer mapping from both sides: a source system imports a
// work order with its customer, location and contact (its key holds
// customers.map), and the host application turns off the creation of
// customers and archives the one the import created.
func Example() {
	dir, _ := os.MkdirTemp("", "mapping-example-*")
	defer os.RemoveAll(dir)
	db, err := bolt.OpenDir(dir, nil)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	imports := importer.New(importer.Config{Store: db})
	customers := mapping.New(mapping.Config{Store: db})

	erp := connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "erp",
		Scopes: []connect.Scope{connect.ScopeTargetsWrite, connect.ScopeCustomersMap}}
	order := connect.InboundTarget{
		ExternalID: "WO-1001", Title: "Boiler maintenance",
		Customer: &connect.InboundTargetCustomer{ExternalID: ptr("C-1"), CustomerNumber: ptr("10001"), Name: ptr("Bäckerei Schmidt")},
		Location: &connect.InboundTargetLocation{ExternalID: ptr("L-1"), Street: ptr("Hauptstraße 1"), PostalCode: ptr("10115"), City: ptr("Berlin")},
		Contact:  &connect.InboundTargetContact{Email: ptr("anna@schmidt.example")},
	}
	out, err := imports.ImportTarget(ctx, erp, order, connect.WriteOptions{})
	if err != nil {
		panic(err)
	}
	m := out.Result.Items[0].CustomerMapping
	fmt.Println("mapping:", m.Status, *m.CustomerID, *m.CustomerLocationID, *m.CustomerContactID, m.Warnings)

	settings, _ := customers.UpdateSettings(ctx, "acme", mapping.SettingsChange{AutoCreateCustomers: ptr(false)})
	fmt.Printf("settings: %+v\n", settings)
	archived, _ := customers.ArchiveCustomer(ctx, "acme", *m.CustomerID)
	fmt.Println("customer:", archived.ID, archived.Name, archived.State)

	order.ExternalID = "WO-1002"
	out, _ = imports.ImportTarget(ctx, erp, order, connect.WriteOptions{})
	m = out.Result.Items[0].CustomerMapping
	fmt.Println("mapping:", m.Status, *m.CustomerID, m.Warnings)
	// Output:
	// mapping: Warning 1 1 1 [LocationMissingCoordinates]
	// settings: {AutoCreateCustomers:false AutoCreateLocations:true AutoCreateContacts:true}
	// customer: 1 Bäckerei Schmidt Archived
	// mapping: Warning 1 [CustomerArchivedOrBlocked LocationMissingCoordinates]
}
