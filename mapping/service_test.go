package mapping_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store"
)

func TestSettingsDefaultOnAndPartialUpdate(t *testing.T) {
	e := mustOpen(t)
	got, err := e.customers.Settings(ctx, tenant)
	if err != nil || got != store.DefaultMappingSettings() || !got.AutoCreateCustomers || !got.AutoCreateLocations || !got.AutoCreateContacts {
		t.Fatalf("settings never set = %+v, %v; want everything on", got, err)
	}
	steps := []struct {
		change mapping.SettingsChange
		want   store.MappingSettings
	}{
		{mapping.SettingsChange{AutoCreateLocations: ptr(false)}, store.MappingSettings{AutoCreateCustomers: true, AutoCreateLocations: false, AutoCreateContacts: true}},
		{mapping.SettingsChange{AutoCreateContacts: ptr(false)}, store.MappingSettings{AutoCreateCustomers: true, AutoCreateLocations: false, AutoCreateContacts: false}},
		{mapping.SettingsChange{}, store.MappingSettings{AutoCreateCustomers: true, AutoCreateLocations: false, AutoCreateContacts: false}},
		{mapping.SettingsChange{AutoCreateCustomers: ptr(false), AutoCreateLocations: ptr(true)}, store.MappingSettings{AutoCreateCustomers: false, AutoCreateLocations: true, AutoCreateContacts: false}},
	}
	for i, st := range steps {
		updated, err := e.customers.UpdateSettings(ctx, tenant, st.change)
		if err != nil || updated != st.want {
			t.Errorf("step %d: UpdateSettings = %+v, %v; want %+v", i, updated, err, st.want)
		}
		read, err := e.customers.Settings(ctx, tenant)
		if err != nil || read != st.want {
			t.Errorf("step %d: Settings = %+v, %v; want %+v", i, read, err, st.want)
		}
	}
	if other, err := e.customers.Settings(ctx, "globex"); err != nil || other != store.DefaultMappingSettings() {
		t.Errorf("another tenant's settings = %+v, %v; want the defaults", other, err)
	}
	if _, err := e.customers.Settings(ctx, " "); connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("blank tenant: %v, want InvalidRequest", err)
	}
	if _, err := e.customers.UpdateSettings(ctx, "", mapping.SettingsChange{}); connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("blank tenant: %v, want InvalidRequest", err)
	}
}

func TestArchiveBlockReactivate(t *testing.T) {
	e := mustOpen(t)
	clock := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	e.customers = mapping.New(mapping.Config{Store: e.store, Now: func() time.Time { return clock }})
	item := e.importOne(t, mapper, fullTarget("WO-1"))
	id := *item.CustomerMapping.CustomerID
	other := e.importOne(t, mapper, fullTarget("WO-2", fromSource("crm", "K-1"), numbered("77"), noLocation, noContact))
	otherID := *other.CustomerMapping.CustomerID

	op := func(f func(context.Context, string, int64) (store.Customer, error)) func(int64) (store.Customer, error) {
		return func(id int64) (store.Customer, error) { return f(ctx, tenant, id) }
	}
	steps := []struct {
		name      string
		op        func(id int64) (store.Customer, error)
		want      store.CustomerState
		wantStamp time.Time // UpdatedAt after the step
	}{
		{"archive", op(e.customers.ArchiveCustomer), store.CustomerArchived, clock.Add(1 * time.Minute)},
		{"archive again", op(e.customers.ArchiveCustomer), store.CustomerArchived, clock.Add(1 * time.Minute)},
		{"block an archived one", op(e.customers.BlockCustomer), store.CustomerBlocked, clock.Add(3 * time.Minute)},
		{"reactivate", op(e.customers.ReactivateCustomer), store.CustomerActive, clock.Add(4 * time.Minute)},
		{"reactivate an active one", op(e.customers.ReactivateCustomer), store.CustomerActive, clock.Add(4 * time.Minute)},
	}
	for i, st := range steps {
		clock = time.Date(2026, 11, 21, 8, i+1, 0, 0, time.UTC)
		got, err := st.op(id)
		if err != nil || got.State != st.want || got.ID != id || !got.UpdatedAt.Equal(st.wantStamp) {
			t.Errorf("%s: %+v, %v; want state %s, updated at %s", st.name, got, err, st.want, st.wantStamp)
		}
		read, err := e.customers.Customer(ctx, tenant, id)
		if err != nil || read.State != st.want {
			t.Errorf("%s: read back %s, %v", st.name, read.State, err)
		}
	}
	if c, _ := e.customers.Customer(ctx, tenant, otherID); c.State != store.CustomerActive {
		t.Errorf("another customer changed to %s", c.State)
	}

	for _, tc := range []struct {
		name   string
		tenant string
		id     int64
		code   connect.ErrorCode
	}{
		{"unknown id", tenant, otherID + 100, connect.CodeNotFound},
		{"another tenant's id", "globex", id, connect.CodeNotFound},
		{"blank tenant", "", id, connect.CodeInvalidRequest},
	} {
		_, errA := e.customers.ArchiveCustomer(ctx, tc.tenant, tc.id)
		_, errB := e.customers.BlockCustomer(ctx, tc.tenant, tc.id)
		_, errR := e.customers.ReactivateCustomer(ctx, tc.tenant, tc.id)
		_, errG := e.customers.Customer(ctx, tc.tenant, tc.id)
		for _, err := range []error{errA, errB, errR, errG} {
			if connect.ErrorCodeOf(err) != tc.code {
				t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
			}
		}
	}
}

func TestImportNeverChangesAnArchivedCustomer(t *testing.T) {
	e := mustOpen(t)
	first := e.importOne(t, mapper, fullTarget("WO-1"))
	id := *first.CustomerMapping.CustomerID
	if _, err := e.customers.ArchiveCustomer(ctx, tenant, id); err != nil {
		t.Fatal(err)
	}
	before, err := e.customers.Customer(ctx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	item := e.importOne(t, mapper, fullTarget("WO-2", renamed, otherContact, func(t *connect.InboundTarget) { t.Location.Name = ptr("Renamed shop") }))
	if got := item.CustomerMapping; got.Status != connect.MappingWarning || link(got) != "CL-" || *got.CustomerID != id {
		t.Errorf("mapping %s %s; want Warning linking the archived customer and its location, no new contact", got.Status, link(got))
	}
	after, err := e.customers.Customer(ctx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, after), mustJSON(t, before); a != b {
		t.Errorf("archived customer changed:\n%s\nwas\n%s", a, b)
	}

	// Reactivated, the same import updates it.
	if _, err := e.customers.ReactivateCustomer(ctx, tenant, id); err != nil {
		t.Fatal(err)
	}
	item = e.importOne(t, mapper, fullTarget("WO-3", renamed))
	if got := item.CustomerMapping; got.Status != connect.MappingUpdated {
		t.Errorf("after reactivation: %s %v, want Updated", got.Status, got.Warnings)
	}
	if c, _ := e.customers.Customer(ctx, tenant, id); c.Name != "Bäckerei Schmidt GmbH" {
		t.Errorf("name after reactivation = %q", c.Name)
	}
}

func TestListCustomers(t *testing.T) {
	e := mustOpen(t)
	var want []int64
	for i := range 5 {
		item := e.importOne(t, mapper, fullTarget(fmt.Sprintf("WO-%d", i), noLocation, noContact, func(t *connect.InboundTarget) {
			t.Customer.ExternalID, t.Customer.CustomerNumber = ptr(fmt.Sprintf("C-%d", i)), nil
		}))
		want = append(want, *item.CustomerMapping.CustomerID)
	}
	e.importOne(t, connect.Caller{TenantID: "globex", SourceSystem: "erp", Scopes: mapper.Scopes}, fullTarget("WO-1"))
	tests := []struct {
		name               string
		q                  mapping.CustomerQuery
		wantSkip, wantTake int
		wantIDs            []int64
	}{
		{"defaults", mapping.CustomerQuery{}, 0, 50, want},
		{"a page", mapping.CustomerQuery{Skip: ptr(1), Take: ptr(2)}, 1, 2, want[1:3]},
		{"clamped", mapping.CustomerQuery{Skip: ptr(-3), Take: ptr(1000)}, 0, 200, want},
		{"take below one", mapping.CustomerQuery{Take: ptr(0)}, 0, 1, want[:1]},
		{"past the end", mapping.CustomerQuery{Skip: ptr(9)}, 9, 50, nil},
	}
	for _, tc := range tests {
		list, err := e.customers.ListCustomers(ctx, tenant, tc.q)
		var got []int64
		for _, c := range list.Customers {
			got = append(got, c.ID)
		}
		if err != nil || list.Total != 5 || list.Skip != tc.wantSkip || list.Take != tc.wantTake || fmt.Sprint(got) != fmt.Sprint(tc.wantIDs) {
			t.Errorf("%s: total %d skip %d take %d ids %v, %v; want 5, %d, %d, %v", tc.name, list.Total, list.Skip, list.Take, got, err, tc.wantSkip, tc.wantTake, tc.wantIDs)
		}
	}
	if _, err := e.customers.ListCustomers(ctx, "", mapping.CustomerQuery{}); connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("blank tenant: %v, want InvalidRequest", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
