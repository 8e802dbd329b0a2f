package storetest

import (
	"fmt"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// testCustomerRecords runs the conformance tests of store.CustomerTx.
func testCustomerRecords(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"Customers", testCustomers},
		{"CustomerNumbers", testCustomerNumbers},
		{"CustomerList", testCustomerList},
		{"Locations", testLocations},
		{"Contacts", testContacts},
		{"MappingSettings", testMappingSettings},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

func ptr[T any](v T) *T { return &v }

func newCustomer(tenant, source string, externalID, number *string) *store.Customer {
	return &store.Customer{
		TenantID: tenant, SourceSystem: source, ExternalID: externalID, CustomerNumber: number,
		Name: "Customer", State: store.CustomerActive, CreatedAt: t0, UpdatedAt: t0,
	}
}

func wantCode(t *testing.T, what string, err error, code connect.ErrorCode) {
	t.Helper()
	if got := connect.ErrorCodeOf(err); got != code {
		t.Errorf("%s: got error %v, want %s", what, err, code)
	}
}

func createAll(t *testing.T, s store.Store, customers ...*store.Customer) {
	t.Helper()
	update(t, s, func(tx store.Tx) error {
		for _, c := range customers {
			if err := tx.CreateCustomer(c); err != nil {
				return err
			}
		}
		return nil
	})
}

func customerIDs(list []store.Customer) []int64 {
	ids := []int64{}
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids
}

func testCustomers(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	erp := newCustomer("t1", "erp", ptr("C1"), ptr("N1"))
	crm := newCustomer("t1", "crm", ptr("C1"), nil)
	other := newCustomer("t2", "erp", ptr("C1"), nil)
	byNumber := newCustomer("t1", "erp", nil, ptr("N2"))
	createAll(t, s, erp, crm, other, byNumber)
	if erp.ID <= 0 || crm.ID <= erp.ID || other.ID <= crm.ID || byNumber.ID <= other.ID {
		t.Fatalf("ids not assigned in increasing order: %d %d %d %d", erp.ID, crm.ID, other.ID, byNumber.ID)
	}
	err := s.Update(ctx, func(tx store.Tx) error { return tx.CreateCustomer(newCustomer("t1", "erp", ptr("C1"), nil)) })
	wantCode(t, "creating a customer with a taken externalId", err, connect.CodeInvalidRequest)

	view(t, s, func(tx store.Tx) error {
		for _, tc := range []struct {
			tenant, source, externalID string
			want                       int64
		}{
			{"t1", "erp", "C1", erp.ID},
			{"t1", "crm", "C1", crm.ID}, // same externalId, other source system: another customer
			{"t2", "erp", "C1", other.ID},
		} {
			got, err := tx.CustomerByExternalID(tc.tenant, tc.source, tc.externalID)
			if err != nil || got.ID != tc.want || got.TenantID != tc.tenant || got.SourceSystem != tc.source {
				t.Errorf("CustomerByExternalID(%s, %s, %s) = %+v, %v; want id %d", tc.tenant, tc.source, tc.externalID, got, err, tc.want)
			}
		}
		_, err := tx.CustomerByExternalID("t1", "erp", "c1")
		wantNotFound(t, "externalId in another case", err)
		_, err = tx.Customer("t2", erp.ID)
		wantNotFound(t, "another tenant's customer by id", err)
		got, err := tx.Customer("t1", byNumber.ID)
		if err != nil || got.ExternalID != nil || got.CustomerNumber == nil || *got.CustomerNumber != "N2" || got.State != store.CustomerActive || !got.CreatedAt.Equal(t0) {
			t.Errorf("Customer(t1, %d) = %+v, %v", byNumber.ID, got, err)
		}
		return nil
	})

	// A customer known by number adopts an externalId; the old entry of the
	// first customer moves with its changed externalId.
	byNumber.ExternalID, byNumber.Name = ptr("C2"), "Renamed"
	erp.ExternalID = ptr("C9")
	update(t, s, func(tx store.Tx) error {
		if err := tx.UpdateCustomer(byNumber); err != nil {
			return err
		}
		return tx.UpdateCustomer(erp)
	})
	view(t, s, func(tx store.Tx) error {
		got, err := tx.CustomerByExternalID("t1", "erp", "C2")
		if err != nil || got.ID != byNumber.ID || got.Name != "Renamed" {
			t.Errorf("adopted externalId: %+v, %v", got, err)
		}
		got, err = tx.CustomerByExternalID("t1", "erp", "C9")
		if err != nil || got.ID != erp.ID {
			t.Errorf("changed externalId: %+v, %v", got, err)
		}
		_, err = tx.CustomerByExternalID("t1", "erp", "C1")
		wantNotFound(t, "the old externalId", err)
		return nil
	})

	taken := *byNumber
	taken.ExternalID = ptr("C9")
	err = s.Update(ctx, func(tx store.Tx) error { return tx.UpdateCustomer(&taken) })
	wantCode(t, "updating to another customer's externalId", err, connect.CodeInvalidRequest)
	missing := *erp
	missing.ID = byNumber.ID + 100
	err = s.Update(ctx, func(tx store.Tx) error { return tx.UpdateCustomer(&missing) })
	wantNotFound(t, "updating an unknown customer", err)
	foreign := *other
	foreign.TenantID = "t1"
	err = s.Update(ctx, func(tx store.Tx) error { return tx.UpdateCustomer(&foreign) })
	wantNotFound(t, "updating another tenant's customer", err)
}

func testCustomerNumbers(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	a := newCustomer("t1", "erp", ptr("A"), ptr("N1"))
	b := newCustomer("t1", "crm", ptr("B"), ptr("N1"))
	c := newCustomer("t1", "erp", ptr("C"), ptr("N2"))
	foreign := newCustomer("t2", "erp", ptr("A"), ptr("N1"))
	createAll(t, s, a, b, c, foreign)

	check := func(name string, tenant, number string, want []int64) {
		t.Helper()
		view(t, s, func(tx store.Tx) error {
			list, err := tx.CustomersByNumber(tenant, number)
			if err != nil || fmt.Sprint(customerIDs(list)) != fmt.Sprint(want) {
				t.Errorf("%s: CustomersByNumber(%s, %s) = %v, %v; want %v", name, tenant, number, customerIDs(list), err, want)
			}
			return nil
		})
	}
	check("ambiguous within a tenant", "t1", "N1", []int64{a.ID, b.ID})
	check("never across tenants", "t2", "N1", []int64{foreign.ID})
	check("unique", "t1", "N2", []int64{c.ID})
	check("exact match only", "t1", "n1", []int64{})
	check("unknown", "t1", "N3", []int64{})

	b.CustomerNumber = ptr("N2")
	c.CustomerNumber = nil
	update(t, s, func(tx store.Tx) error {
		if err := tx.UpdateCustomer(b); err != nil {
			return err
		}
		return tx.UpdateCustomer(c)
	})
	check("after b moved away", "t1", "N1", []int64{a.ID})
	check("after b moved in and c dropped its number", "t1", "N2", []int64{b.ID})
}

func testCustomerList(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	var t1 []int64
	for i := range 5 {
		c := newCustomer("t1", "erp", ptr(fmt.Sprintf("C%d", i)), nil)
		createAll(t, s, c, newCustomer("t2", "erp", ptr(fmt.Sprintf("C%d", i)), nil))
		t1 = append(t1, c.ID)
	}
	tests := []struct {
		name       string
		tenant     string
		skip, take int
		want       []int64
		wantTotal  int
	}{
		{"all", "t1", 0, 50, t1, 5},
		{"first page", "t1", 0, 2, t1[:2], 5},
		{"middle page", "t1", 2, 2, t1[2:4], 5},
		{"past the end", "t1", 5, 2, []int64{}, 5},
		{"take zero", "t1", 0, 0, []int64{}, 5},
		{"unknown tenant", "t3", 0, 50, []int64{}, 0},
		{"tenant that is a prefix", "t", 0, 50, []int64{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx store.Tx) error {
				list, total, err := tx.Customers(tc.tenant, tc.skip, tc.take)
				if err != nil || total != tc.wantTotal || fmt.Sprint(customerIDs(list)) != fmt.Sprint(tc.want) {
					t.Errorf("Customers = %v, total %d, %v; want %v, total %d", customerIDs(list), total, err, tc.want, tc.wantTotal)
				}
				return nil
			})
		})
	}
}

func newLocation(c *store.Customer, externalID *string, street, postalCode, city, country string) *store.CustomerLocation {
	return &store.CustomerLocation{
		TenantID: c.TenantID, CustomerID: c.ID, ExternalID: externalID,
		Street: street, PostalCode: postalCode, City: city, Country: country, CreatedAt: t0, UpdatedAt: t0,
	}
}

func locationIDs(list []store.CustomerLocation) []int64 {
	ids := []int64{}
	for _, l := range list {
		ids = append(ids, l.ID)
	}
	return ids
}

func testLocations(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	a, b, foreign := newCustomer("t1", "erp", ptr("A"), nil), newCustomer("t1", "erp", ptr("B"), nil), newCustomer("t2", "erp", ptr("A"), nil)
	createAll(t, s, a, b, foreign)
	a1 := newLocation(a, ptr("L1"), "Hauptstraße 1", "10115", "Berlin", "DE")
	a2 := newLocation(a, nil, "  hauptstraße   1 ", "10115", "BERLIN", "de")
	b1 := newLocation(b, ptr("L1"), "Hauptstraße 1", "10115", "Berlin", "DE")
	a1.Latitude, a1.Longitude, a1.DefaultEstimatedWorkMinutes = ptr(52.5), ptr(13.4), ptr(45)
	update(t, s, func(tx store.Tx) error {
		for _, l := range []*store.CustomerLocation{a1, a2, b1} {
			if err := tx.CreateLocation(l); err != nil {
				return err
			}
		}
		return nil
	})
	err := s.Update(ctx, func(tx store.Tx) error { return tx.CreateLocation(newLocation(a, ptr("L1"), "", "", "", "")) })
	wantCode(t, "a second location L1 of the same customer", err, connect.CodeInvalidRequest)
	err = s.Update(ctx, func(tx store.Tx) error {
		l := newLocation(foreign, ptr("X"), "", "", "", "")
		l.TenantID = "t1"
		return tx.CreateLocation(l)
	})
	wantNotFound(t, "a location of another tenant's customer", err)

	key := store.AddressKey("Hauptstraße 1", "10115", "Berlin", "DE")
	view(t, s, func(tx store.Tx) error {
		got, err := tx.LocationByExternalID("t1", a.ID, "L1")
		if err != nil || got.ID != a1.ID || *got.DefaultEstimatedWorkMinutes != 45 || *got.Latitude != 52.5 {
			t.Errorf("LocationByExternalID(a, L1) = %+v, %v", got, err)
		}
		got, err = tx.LocationByExternalID("t1", b.ID, "L1")
		if err != nil || got.ID != b1.ID {
			t.Errorf("LocationByExternalID(b, L1) = %+v, %v", got, err)
		}
		_, err = tx.LocationByExternalID("t2", a.ID, "L1")
		wantNotFound(t, "a location under another tenant", err)
		byAddress, err := tx.LocationsByAddress("t1", a.ID, key)
		if err != nil || fmt.Sprint(locationIDs(byAddress)) != fmt.Sprint([]int64{a1.ID, a2.ID}) {
			t.Errorf("LocationsByAddress(a) = %v, %v; want both of a's (case and white space folded)", locationIDs(byAddress), err)
		}
		none, err := tx.LocationsByAddress("t1", a.ID, "")
		if err != nil || len(none) != 0 {
			t.Errorf("LocationsByAddress with an empty key = %v, %v", locationIDs(none), err)
		}
		all, err := tx.Locations("t1", a.ID)
		if err != nil || fmt.Sprint(locationIDs(all)) != fmt.Sprint([]int64{a1.ID, a2.ID}) {
			t.Errorf("Locations(a) = %v, %v", locationIDs(all), err)
		}
		return nil
	})

	a2.Street, a2.ExternalID = "Nebenstraße 2", ptr("L2")
	update(t, s, func(tx store.Tx) error { return tx.UpdateLocation(a2) })
	view(t, s, func(tx store.Tx) error {
		old, err := tx.LocationsByAddress("t1", a.ID, key)
		if err != nil || fmt.Sprint(locationIDs(old)) != fmt.Sprint([]int64{a1.ID}) {
			t.Errorf("old address after the move = %v, %v", locationIDs(old), err)
		}
		moved, err := tx.LocationsByAddress("t1", a.ID, a2.AddressKey())
		if err != nil || fmt.Sprint(locationIDs(moved)) != fmt.Sprint([]int64{a2.ID}) {
			t.Errorf("new address = %v, %v", locationIDs(moved), err)
		}
		got, err := tx.LocationByExternalID("t1", a.ID, "L2")
		if err != nil || got.ID != a2.ID {
			t.Errorf("adopted externalId L2 = %+v, %v", got, err)
		}
		return nil
	})
	taken := *a2
	taken.ExternalID = ptr("L1")
	err = s.Update(ctx, func(tx store.Tx) error { return tx.UpdateLocation(&taken) })
	wantCode(t, "updating to a taken externalId", err, connect.CodeInvalidRequest)
	moved := *a2
	moved.CustomerID = b.ID
	err = s.Update(ctx, func(tx store.Tx) error { return tx.UpdateLocation(&moved) })
	wantNotFound(t, "updating a location under another customer", err)
}

func newContact(c *store.Customer, externalID *string, email string) *store.CustomerContact {
	return &store.CustomerContact{TenantID: c.TenantID, CustomerID: c.ID, ExternalID: externalID, Email: email, CreatedAt: t0, UpdatedAt: t0}
}

func contactIDs(list []store.CustomerContact) []int64 {
	ids := []int64{}
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids
}

func testContacts(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	a, b := newCustomer("t1", "erp", ptr("A"), nil), newCustomer("t1", "erp", ptr("B"), nil)
	createAll(t, s, a, b)
	la, lb := newLocation(a, ptr("LA"), "", "", "", ""), newLocation(b, ptr("LB"), "", "", "", "")
	update(t, s, func(tx store.Tx) error {
		if err := tx.CreateLocation(la); err != nil {
			return err
		}
		return tx.CreateLocation(lb)
	})
	c1, c2 := newContact(a, ptr("P1"), "Anna@Example.com"), newContact(a, nil, " anna@example.COM")
	c1.LocationID = &la.ID
	update(t, s, func(tx store.Tx) error {
		if err := tx.CreateContact(c1); err != nil {
			return err
		}
		return tx.CreateContact(c2)
	})
	wrongPlace := newContact(a, ptr("P3"), "")
	wrongPlace.LocationID = &lb.ID
	err := s.Update(ctx, func(tx store.Tx) error { return tx.CreateContact(wrongPlace) })
	wantCode(t, "a contact at another customer's location", err, connect.CodeInvalidRequest)
	err = s.Update(ctx, func(tx store.Tx) error { return tx.CreateContact(newContact(a, ptr("P1"), "")) })
	wantCode(t, "a second contact P1 of the same customer", err, connect.CodeInvalidRequest)

	view(t, s, func(tx store.Tx) error {
		got, err := tx.ContactByExternalID("t1", a.ID, "P1")
		if err != nil || got.ID != c1.ID || got.LocationID == nil || *got.LocationID != la.ID {
			t.Errorf("ContactByExternalID(a, P1) = %+v, %v", got, err)
		}
		_, err = tx.ContactByExternalID("t1", b.ID, "P1")
		wantNotFound(t, "a contact of another customer", err)
		byEmail, err := tx.ContactsByEmail("t1", a.ID, "ANNA@example.com ")
		if err != nil || fmt.Sprint(contactIDs(byEmail)) != fmt.Sprint([]int64{c1.ID, c2.ID}) {
			t.Errorf("ContactsByEmail = %v, %v; want both (case-insensitive)", contactIDs(byEmail), err)
		}
		none, err := tx.ContactsByEmail("t1", b.ID, "anna@example.com")
		if err != nil || len(none) != 0 {
			t.Errorf("ContactsByEmail under another customer = %v, %v", contactIDs(none), err)
		}
		none, err = tx.ContactsByEmail("t1", a.ID, "")
		if err != nil || len(none) != 0 {
			t.Errorf("ContactsByEmail with no e-mail = %v, %v", contactIDs(none), err)
		}
		return nil
	})

	c2.Email, c2.ExternalID = "bob@example.com", ptr("P2")
	update(t, s, func(tx store.Tx) error { return tx.UpdateContact(c2) })
	view(t, s, func(tx store.Tx) error {
		anna, err := tx.ContactsByEmail("t1", a.ID, "anna@example.com")
		if err != nil || fmt.Sprint(contactIDs(anna)) != fmt.Sprint([]int64{c1.ID}) {
			t.Errorf("old e-mail after the change = %v, %v", contactIDs(anna), err)
		}
		bob, err := tx.ContactsByEmail("t1", a.ID, "Bob@Example.com")
		if err != nil || fmt.Sprint(contactIDs(bob)) != fmt.Sprint([]int64{c2.ID}) {
			t.Errorf("new e-mail = %v, %v", contactIDs(bob), err)
		}
		all, err := tx.Contacts("t1", a.ID)
		if err != nil || fmt.Sprint(contactIDs(all)) != fmt.Sprint([]int64{c1.ID, c2.ID}) {
			t.Errorf("Contacts(a) = %v, %v", contactIDs(all), err)
		}
		return nil
	})
	c2.LocationID = &lb.ID
	err = s.Update(ctx, func(tx store.Tx) error { return tx.UpdateContact(c2) })
	wantCode(t, "moving a contact to another customer's location", err, connect.CodeInvalidRequest)
}

func testMappingSettings(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	view(t, s, func(tx store.Tx) error {
		got, err := tx.MappingSettings("t1")
		if err != nil || got != store.DefaultMappingSettings() {
			t.Errorf("settings never set = %+v, %v; want everything on", got, err)
		}
		return nil
	})
	want := store.MappingSettings{AutoCreateCustomers: false, AutoCreateLocations: true, AutoCreateContacts: false}
	update(t, s, func(tx store.Tx) error { return tx.PutMappingSettings("t1", want) })
	view(t, s, func(tx store.Tx) error {
		got, err := tx.MappingSettings("t1")
		if err != nil || got != want {
			t.Errorf("settings of t1 = %+v, %v; want %+v", got, err, want)
		}
		got, err = tx.MappingSettings("t2")
		if err != nil || got != store.DefaultMappingSettings() {
			t.Errorf("settings of t2 = %+v, %v; want the defaults", got, err)
		}
		return nil
	})
}
