package mapping_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

var ctx = context.Background()

func ptr[T any](v T) *T { return &v }

// env is Integration Connect on a real bbolt file: the importer the source
// systems call and the mapping service the host application calls.
type env struct {
	store     *bolt.Store
	imports   *importer.Service
	customers *mapping.Service
}

func mustOpen(t testing.TB) env {
	t.Helper()
	s := bolttest.Open(t)
	return env{store: s, imports: importer.New(importer.Config{Store: s}), customers: mapping.New(mapping.Config{Store: s})}
}

const tenant = "acme"

var (
	// mapper is an ERP client whose key holds customers.map.
	mapper = connect.Caller{TenantID: tenant, ClientID: "erp-client", SourceSystem: "erp", Scopes: []connect.Scope{
		connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite, connect.ScopeCustomersMap,
	}}
	// plain is the same client without customers.map.
	plain = connect.Caller{TenantID: tenant, ClientID: "erp-client", SourceSystem: "erp", Scopes: []connect.Scope{
		connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite,
	}}
)

// importOne imports target and returns its item result.
func (e env) importOne(t testing.TB, caller connect.Caller, target connect.InboundTarget) connect.InboundImportItemResult {
	t.Helper()
	out, err := e.imports.ImportTarget(ctx, caller, target, connect.WriteOptions{})
	if err != nil {
		t.Fatalf("ImportTarget(%s): %v", target.ExternalID, err)
	}
	return out.Result.Items[0]
}

// storedTarget reads a target of the ERP back from the store.
func (e env) storedTarget(t testing.TB, externalID string) *store.Target {
	t.Helper()
	var target *store.Target
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		target, err = tx.TargetByExternalID(tenant, "erp", externalID)
		return err
	})
	if err != nil {
		t.Fatalf("reading target %s: %v", externalID, err)
	}
	return target
}

// counts returns how many customers, locations and contacts tenant has.
func (e env) counts(t testing.TB, tenantID string) (customers, locations, contacts int) {
	t.Helper()
	list, err := e.customers.ListCustomers(ctx, tenantID, mapping.CustomerQuery{Take: ptr(200)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list.Customers {
		d, err := e.customers.Customer(ctx, tenantID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		locations += len(d.Locations)
		contacts += len(d.Contacts)
	}
	return list.Total, locations, contacts
}

// fullTarget is a work order with a customer, location and contact, as an ERP
// sends it.
func fullTarget(externalID string, changes ...func(*connect.InboundTarget)) connect.InboundTarget {
	t := connect.InboundTarget{
		ExternalID: externalID, Title: "Boiler maintenance " + externalID,
		Customer: &connect.InboundTargetCustomer{
			ExternalID: ptr("CUST-1"), CustomerNumber: ptr("10001"), Name: ptr("Bäckerei Schmidt"), Type: ptr("business"),
		},
		Location: &connect.InboundTargetLocation{
			ExternalID: ptr("LOC-1"), Name: ptr("Main shop"), Street: ptr("Hauptstraße 1"), PostalCode: ptr("10115"),
			City: ptr("Berlin"), Country: ptr("DE"), Latitude: ptr(52.5310), Longitude: ptr(13.3847),
			DefaultEstimatedWorkMinutes: ptr(60), DefaultPriority: ptr("high"),
		},
		Contact: &connect.InboundTargetContact{
			ExternalID: ptr("P-1"), FirstName: ptr("Anna"), LastName: ptr("Schmidt"), Email: ptr("anna@schmidt.example"),
		},
	}
	for _, change := range changes {
		change(&t)
	}
	return t
}

// The changes the cases below apply to fullTarget.
var (
	noCustomer    = func(t *connect.InboundTarget) { t.Customer = nil }
	noLocation    = func(t *connect.InboundTarget) { t.Location = nil }
	noContact     = func(t *connect.InboundTarget) { t.Contact = nil }
	noCoordinates = func(t *connect.InboundTarget) { t.Location.Latitude, t.Location.Longitude = nil, nil }
	renamed       = func(t *connect.InboundTarget) { t.Customer.Name = ptr("Bäckerei Schmidt GmbH") }
	otherContact  = func(t *connect.InboundTarget) {
		t.Contact.ExternalID, t.Contact.Email = ptr("P-2"), ptr("ben@schmidt.example")
	}
	byNumberOnly    = func(t *connect.InboundTarget) { t.Customer.ExternalID = nil }
	anonymousPerson = func(t *connect.InboundTarget) { t.Contact.ExternalID, t.Contact.Email = nil, nil }
	secondShop      = func(t *connect.InboundTarget) {
		t.Location = &connect.InboundTargetLocation{
			ExternalID: ptr("LOC-2"), Street: ptr("Torstraße 5"), PostalCode: ptr("10119"), City: ptr("Berlin"),
			Latitude: ptr(52.5290), Longitude: ptr(13.4010),
		}
	}
	numbered = func(number string) func(*connect.InboundTarget) {
		return func(t *connect.InboundTarget) { t.Customer.CustomerNumber = ptr(number) }
	}
	fromSource = func(source, customerID string) func(*connect.InboundTarget) {
		return func(t *connect.InboundTarget) { t.SourceSystem, t.Customer.ExternalID = ptr(source), ptr(customerID) }
	}
	addressAt = func(street string, lat, lon *float64) func(*connect.InboundTarget) {
		return func(t *connect.InboundTarget) {
			t.Address = &connect.InboundTargetAddress{Street: ptr(street), PostalCode: ptr("10115"), City: ptr("Berlin"), Latitude: lat, Longitude: lon}
		}
	}
)

// link says which ids a result carries: C customer, L location, P contact.
func link(r connect.InboundCustomerMappingResult) string {
	s := ""
	for _, l := range []struct {
		id   *int64
		name string
	}{{r.CustomerID, "C"}, {r.CustomerLocationID, "L"}, {r.CustomerContactID, "P"}} {
		if l.id != nil {
			s += l.name
		} else {
			s += "-"
		}
	}
	return s
}

func TestMappingOutcomes(t *testing.T) {
	type W = connect.CustomerMappingWarning
	tests := []struct {
		name string
		// settings are applied first, then before is imported, then prepare runs.
		settings mapping.SettingsChange
		before   []connect.InboundTarget
		prepare  func(t *testing.T, e env, before []connect.InboundImportItemResult)
		caller   connect.Caller
		target   connect.InboundTarget
		want     connect.CustomerMappingStatus
		// wantLink is link() of the result; wantSame says the linked ids are
		// those of the last before-import.
		wantLink     string
		wantSame     bool
		wantWarnings []W
		wantErrors   int
	}{
		{name: "nothing to map", target: connect.InboundTarget{ExternalID: "WO-1", Title: "Inspection"},
			want: connect.MappingNotApplicable, wantLink: "---"},
		{name: "key without customers.map", caller: plain, target: fullTarget("WO-1"),
			want: connect.MappingSkipped, wantLink: "---"},
		{name: "all new", target: fullTarget("WO-1"),
			want: connect.MappingCreated, wantLink: "CLP"},
		{name: "all known and unchanged", before: []connect.InboundTarget{fullTarget("WO-1")}, target: fullTarget("WO-2"),
			want: connect.MappingMapped, wantLink: "CLP", wantSame: true},
		{name: "known customer with a changed name", before: []connect.InboundTarget{fullTarget("WO-1")}, target: fullTarget("WO-2", renamed),
			want: connect.MappingUpdated, wantLink: "CLP", wantSame: true},
		{name: "created wins over mapped", before: []connect.InboundTarget{fullTarget("WO-1")}, target: fullTarget("WO-2", otherContact),
			want: connect.MappingCreated, wantLink: "CLP"},
		{name: "created wins over updated", before: []connect.InboundTarget{fullTarget("WO-1")}, target: fullTarget("WO-2", renamed, secondShop, noContact),
			want: connect.MappingCreated, wantLink: "CL-"},
		{name: "warning wins over created", target: fullTarget("WO-1", noCoordinates),
			want: connect.MappingWarning, wantLink: "CLP", wantWarnings: []W{connect.MappingLocationMissingCoordinates}},
		{name: "target address 1.1 km from the location", target: fullTarget("WO-1", addressAt("Hauptstraße 1", ptr(52.5310), ptr(13.4010))),
			want: connect.MappingWarning, wantLink: "CLP", wantWarnings: []W{connect.MappingTargetAddressDiffersFromCustomerLocation}},
		{name: "target address 40 m from the location, spelled otherwise", target: fullTarget("WO-1", addressAt("Hauptstr. 1", ptr(52.5313), ptr(13.3850))),
			want: connect.MappingCreated, wantLink: "CLP"},
		{name: "target address on another street, no coordinates", target: fullTarget("WO-1", addressAt("Hauptstraße 12", nil, nil)),
			want: connect.MappingWarning, wantLink: "CLP", wantWarnings: []W{connect.MappingTargetAddressDiffersFromCustomerLocation}},
		{name: "target address at the location, no coordinates, other case", target: fullTarget("WO-1", addressAt(" hauptstraße  1", nil, nil)),
			want: connect.MappingCreated, wantLink: "CLP"},
		{name: "customer number of two customers",
			before: []connect.InboundTarget{
				fullTarget("WO-1", fromSource("erp", "CUST-1")),
				fullTarget("WO-2", fromSource("crm", "K-77"), numbered("20002")),
				fullTarget("WO-3", fromSource("crm", "K-77")), // K-77 takes the number 10001 too
			},
			target: fullTarget("WO-4", byNumberOnly),
			want:   connect.MappingWarning, wantLink: "---", wantWarnings: []W{connect.MappingAmbiguousCustomerNumber}},
		{name: "customer auto-create off", settings: mapping.SettingsChange{AutoCreateCustomers: ptr(false)}, target: fullTarget("WO-1"),
			want: connect.MappingWarning, wantLink: "---", wantWarnings: []W{connect.MappingCustomerAutoCreateDisabled}},
		{name: "location auto-create off", settings: mapping.SettingsChange{AutoCreateLocations: ptr(false)}, target: fullTarget("WO-1"),
			want: connect.MappingWarning, wantLink: "C-P", wantWarnings: []W{connect.MappingLocationAutoCreateDisabled}},
		{name: "contact auto-create off", settings: mapping.SettingsChange{AutoCreateContacts: ptr(false)}, target: fullTarget("WO-1"),
			want: connect.MappingWarning, wantLink: "CL-", wantWarnings: []W{connect.MappingContactAutoCreateDisabled}},
		{name: "contact of another location", before: []connect.InboundTarget{fullTarget("WO-1")}, target: fullTarget("WO-2", secondShop),
			want: connect.MappingWarning, wantLink: "CLP", wantWarnings: []W{connect.MappingContactLocationMismatch}},
		{name: "archived customer", before: []connect.InboundTarget{fullTarget("WO-1")},
			prepare: archive, target: fullTarget("WO-2", renamed),
			want: connect.MappingWarning, wantLink: "CLP", wantSame: true, wantWarnings: []W{connect.MappingCustomerArchivedOrBlocked}},
		{name: "blocked customer gets no new location", before: []connect.InboundTarget{fullTarget("WO-1")},
			prepare: block, target: fullTarget("WO-2", secondShop),
			want: connect.MappingWarning, wantLink: "C-P", wantWarnings: []W{connect.MappingCustomerArchivedOrBlocked}},
		{name: "location without a customer", target: fullTarget("WO-1", noCustomer, noContact),
			want: connect.MappingFailed, wantLink: "---", wantErrors: 1},
		{name: "location and contact without a customer", target: fullTarget("WO-1", noCustomer),
			want: connect.MappingFailed, wantLink: "---", wantErrors: 2},
		{name: "customer without identifiers", target: fullTarget("WO-1", byNumberOnly, func(t *connect.InboundTarget) { t.Customer.CustomerNumber = ptr("  ") }),
			want: connect.MappingFailed, wantLink: "---", wantErrors: 1},
		{name: "failed wins over warning", target: fullTarget("WO-1", noCoordinates, anonymousPerson),
			want: connect.MappingFailed, wantLink: "CL-", wantWarnings: []W{connect.MappingLocationMissingCoordinates}, wantErrors: 1},
		{name: "customer known by number adopts the externalId", before: []connect.InboundTarget{fullTarget("WO-1", byNumberOnly, noLocation, noContact)},
			target: fullTarget("WO-2", noLocation, noContact),
			want:   connect.MappingUpdated, wantLink: "C--", wantSame: true},
		{name: "location found by address adopts the externalId",
			before: []connect.InboundTarget{fullTarget("WO-1", noContact, func(t *connect.InboundTarget) { t.Location.ExternalID = nil })},
			target: fullTarget("WO-2", noContact, func(t *connect.InboundTarget) {
				t.Location.Street, t.Location.City = ptr(" hauptstraße  1"), ptr("BERLIN")
			}),
			want: connect.MappingUpdated, wantLink: "CL-", wantSame: true},
		{name: "another externalId at a known address is another location",
			before: []connect.InboundTarget{fullTarget("WO-1", noContact)},
			target: fullTarget("WO-2", noContact, func(t *connect.InboundTarget) { t.Location.ExternalID = ptr("LOC-9") }),
			want:   connect.MappingCreated, wantLink: "CL-"},
		{name: "contact found by e-mail in another case",
			before: []connect.InboundTarget{fullTarget("WO-1", func(t *connect.InboundTarget) { t.Contact.ExternalID = nil })},
			target: fullTarget("WO-2", func(t *connect.InboundTarget) {
				t.Contact.ExternalID, t.Contact.Email = nil, ptr("Anna@Schmidt.EXAMPLE")
			}),
			want: connect.MappingMapped, wantLink: "CLP", wantSame: true}, // an e-mail in another case is no change
	}
	seenStatuses, seenWarnings := map[connect.CustomerMappingStatus]bool{}, map[W]bool{}
	for _, tc := range tests {
		seenStatuses[tc.want] = true
		for _, w := range tc.wantWarnings {
			seenWarnings[w] = true
		}
		t.Run(tc.name, func(t *testing.T) {
			e := mustOpen(t)
			if _, err := e.customers.UpdateSettings(ctx, tenant, tc.settings); err != nil {
				t.Fatal(err)
			}
			var before []connect.InboundImportItemResult
			for _, b := range tc.before {
				before = append(before, e.importOne(t, mapper, b))
			}
			if tc.prepare != nil {
				tc.prepare(t, e, before)
			}
			caller := tc.caller
			if caller.TenantID == "" {
				caller = mapper
			}
			item := e.importOne(t, caller, tc.target)
			got := item.CustomerMapping
			if item.Status == connect.ItemRejected {
				t.Fatalf("item rejected: %s", *item.ErrorMessage)
			}
			if got.Status != tc.want || link(got) != tc.wantLink {
				t.Errorf("status %s, links %s; want %s, %s (warnings %v, errors %q)", got.Status, link(got), tc.want, tc.wantLink, got.Warnings, got.Errors)
			}
			if want := orEmpty(tc.wantWarnings); !slices.Equal(got.Warnings, want) {
				t.Errorf("warnings = %v, want %v", got.Warnings, want)
			}
			if len(got.Errors) != tc.wantErrors || got.Errors == nil {
				t.Errorf("errors = %q, want %d", got.Errors, tc.wantErrors)
			}
			if tc.wantSame {
				last := before[len(before)-1].CustomerMapping
				if fmt.Sprint(ids(got)) != fmt.Sprint(ids(last)) {
					t.Errorf("linked %v, want the records of the earlier import %v", ids(got), ids(last))
				}
			}
		})
	}
	// Every value of the specification is produced by some case above.
	for _, s := range []connect.CustomerMappingStatus{
		connect.MappingNotApplicable, connect.MappingMapped, connect.MappingCreated, connect.MappingUpdated,
		connect.MappingWarning, connect.MappingFailed, connect.MappingSkipped,
	} {
		if !seenStatuses[s] {
			t.Errorf("no case produces status %s", s)
		}
	}
	for _, w := range []W{
		connect.MappingLocationMissingCoordinates, connect.MappingAmbiguousCustomerNumber,
		connect.MappingTargetAddressDiffersFromCustomerLocation, connect.MappingCustomerAutoCreateDisabled,
		connect.MappingLocationAutoCreateDisabled, connect.MappingContactAutoCreateDisabled,
		connect.MappingContactLocationMismatch, connect.MappingCustomerArchivedOrBlocked,
	} {
		if !seenWarnings[w] {
			t.Errorf("no case produces warning %s", w)
		}
	}
}

func orEmpty(w []connect.CustomerMappingWarning) []connect.CustomerMappingWarning {
	if w == nil {
		return []connect.CustomerMappingWarning{}
	}
	return w
}

func ids(r connect.InboundCustomerMappingResult) []int64 {
	var list []int64
	for _, id := range []*int64{r.CustomerID, r.CustomerLocationID, r.CustomerContactID} {
		if id != nil {
			list = append(list, *id)
		}
	}
	return list
}

func archive(t *testing.T, e env, before []connect.InboundImportItemResult) {
	t.Helper()
	if _, err := e.customers.ArchiveCustomer(ctx, tenant, *before[0].CustomerMapping.CustomerID); err != nil {
		t.Fatal(err)
	}
}

func block(t *testing.T, e env, before []connect.InboundImportItemResult) {
	t.Helper()
	if _, err := e.customers.BlockCustomer(ctx, tenant, *before[0].CustomerMapping.CustomerID); err != nil {
		t.Fatal(err)
	}
}

func TestStatusPrecedence(t *testing.T) {
	const (
		na      = connect.MappingNotApplicable
		skipped = connect.MappingSkipped
		mapped  = connect.MappingMapped
		updated = connect.MappingUpdated
		created = connect.MappingCreated
		warning = connect.MappingWarning
		failed  = connect.MappingFailed
	)
	tests := []struct {
		in   []connect.CustomerMappingStatus
		want connect.CustomerMappingStatus
	}{
		{nil, na},
		{[]connect.CustomerMappingStatus{mapped}, mapped},
		{[]connect.CustomerMappingStatus{mapped, mapped, mapped}, mapped},
		{[]connect.CustomerMappingStatus{mapped, updated}, updated},
		{[]connect.CustomerMappingStatus{updated, mapped}, updated},
		{[]connect.CustomerMappingStatus{updated, created}, created},
		{[]connect.CustomerMappingStatus{created, mapped, updated}, created},
		{[]connect.CustomerMappingStatus{created, warning}, warning},
		{[]connect.CustomerMappingStatus{warning, updated}, warning},
		{[]connect.CustomerMappingStatus{warning, failed}, failed},
		{[]connect.CustomerMappingStatus{failed, created, warning}, failed},
		{[]connect.CustomerMappingStatus{skipped, na}, skipped},
		{[]connect.CustomerMappingStatus{na, mapped}, mapped},
		{[]connect.CustomerMappingStatus{"", "Nonsense"}, na},
		{[]connect.CustomerMappingStatus{"Nonsense", created}, created},
	}
	for _, tc := range tests {
		if got := mapping.Combine(tc.in...); got != tc.want {
			t.Errorf("Combine(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSameExternalIDFromTwoSourceSystemsStaysTwoCustomers(t *testing.T) {
	e := mustOpen(t)
	erp := e.importOne(t, mapper, fullTarget("WO-1", fromSource("erp", "C-1"), noLocation, noContact, func(t *connect.InboundTarget) { t.Customer.CustomerNumber = nil }))
	crm := e.importOne(t, mapper, fullTarget("WO-1", fromSource("crm", "C-1"), noLocation, noContact, func(t *connect.InboundTarget) { t.Customer.CustomerNumber = nil }))
	if erp.CustomerMapping.Status != connect.MappingCreated || crm.CustomerMapping.Status != connect.MappingCreated {
		t.Fatalf("statuses %s and %s, want both Created", erp.CustomerMapping.Status, crm.CustomerMapping.Status)
	}
	if *erp.CustomerMapping.CustomerID == *crm.CustomerMapping.CustomerID {
		t.Errorf("both source systems linked customer %d", *erp.CustomerMapping.CustomerID)
	}
	again := e.importOne(t, mapper, fullTarget("WO-2", fromSource("crm", "C-1"), noLocation, noContact, func(t *connect.InboundTarget) { t.Customer.CustomerNumber = nil }))
	if again.CustomerMapping.Status != connect.MappingMapped || *again.CustomerMapping.CustomerID != *crm.CustomerMapping.CustomerID {
		t.Errorf("crm again: %+v, want Mapped to customer %d", again.CustomerMapping, *crm.CustomerMapping.CustomerID)
	}
	for _, tc := range []struct {
		id     int64
		source string
	}{{*erp.CustomerMapping.CustomerID, "erp"}, {*crm.CustomerMapping.CustomerID, "crm"}} {
		c, err := e.customers.Customer(ctx, tenant, tc.id)
		if err != nil || c.SourceSystem != tc.source || *c.ExternalID != "C-1" {
			t.Errorf("customer %d = %+v, %v; want source %s", tc.id, c.Customer, err, tc.source)
		}
	}
	if customers, _, _ := e.counts(t, tenant); customers != 2 {
		t.Errorf("%d customers, want 2", customers)
	}
}

func TestCustomerNumberNeverLinksAcrossTenants(t *testing.T) {
	e := mustOpen(t)
	other := mapper
	other.TenantID = "globex"
	first := e.importOne(t, mapper, fullTarget("WO-1", byNumberOnly, noLocation, noContact))
	second := e.importOne(t, other, fullTarget("WO-1", byNumberOnly, noLocation, noContact))
	for _, item := range []connect.InboundImportItemResult{first, second} {
		if item.CustomerMapping.Status != connect.MappingCreated {
			t.Errorf("status %s, want Created (the number is new in each tenant)", item.CustomerMapping.Status)
		}
	}
	if *first.CustomerMapping.CustomerID == *second.CustomerMapping.CustomerID {
		t.Fatalf("both tenants linked customer %d", *first.CustomerMapping.CustomerID)
	}
	if _, err := e.customers.Customer(ctx, "globex", *first.CustomerMapping.CustomerID); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("acme's customer read as globex: %v, want NotFound", err)
	}
	for _, tenantID := range []string{tenant, "globex"} {
		if customers, _, _ := e.counts(t, tenantID); customers != 1 {
			t.Errorf("tenant %s has %d customers, want 1", tenantID, customers)
		}
	}
}

func TestLocationDefaultsFillTargetGaps(t *testing.T) {
	e := mustOpen(t)
	first := e.importOne(t, mapper, fullTarget("WO-1"))
	// The second order names the location by its externalId only: coordinates,
	// minutes and priority come from the customer location.
	second := e.importOne(t, mapper, fullTarget("WO-2", func(t *connect.InboundTarget) {
		t.Location = &connect.InboundTargetLocation{ExternalID: ptr("LOC-1")}
	}))
	if len(second.Warnings) != 0 {
		t.Errorf("warnings %+v; a target whose coordinates come from its customer location is routable", second.Warnings)
	}
	if second.CustomerMapping.Status != connect.MappingMapped || *second.CustomerMapping.CustomerLocationID != *first.CustomerMapping.CustomerLocationID {
		t.Fatalf("mapping %+v, want Mapped to location %d", second.CustomerMapping, *first.CustomerMapping.CustomerLocationID)
	}
	stored := e.storedTarget(t, "WO-2")
	want := store.TargetEffective{Latitude: ptr(52.5310), Longitude: ptr(13.3847), EstimatedWorkMinutes: 60, Priority: ptr("high")}
	if fmt.Sprint(effective(stored.Effective)) != fmt.Sprint(effective(want)) {
		t.Errorf("effective %s, want %s", effective(stored.Effective), effective(want))
	}
	if stored.Data.Location.Latitude != nil || stored.Data.Planning != nil {
		t.Errorf("the payload was changed: %+v", stored.Data)
	}
	if *stored.CustomerID != *first.CustomerMapping.CustomerID || *stored.LocationID != *first.CustomerMapping.CustomerLocationID || stored.ContactID == nil {
		t.Errorf("stored links %v %v %v, want those of the mapping", stored.CustomerID, stored.LocationID, stored.ContactID)
	}
	if stored.Data.Customer.CustomerNumber != nil {
		t.Errorf("the customer number is stored on the target")
	}

	// Without customers.map the same payload links nothing and has no
	// coordinates.
	plainItem := e.importOne(t, plain, fullTarget("WO-3", func(t *connect.InboundTarget) {
		t.Location = &connect.InboundTargetLocation{ExternalID: ptr("LOC-1")}
	}))
	if len(plainItem.Warnings) != 1 || plainItem.Warnings[0].Code != connect.WarningMissingCoordinates {
		t.Errorf("warnings without mapping = %+v, want MissingCoordinates", plainItem.Warnings)
	}
	if got := e.storedTarget(t, "WO-3"); got.CustomerID != nil || got.Effective.EstimatedWorkMinutes != mapping.DefaultEstimatedWorkMinutes {
		t.Errorf("unmapped target: links %v, effective %s", got.CustomerID, effective(got.Effective))
	}
}

func effective(e store.TargetEffective) string {
	f := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	priority := "nil"
	if e.Priority != nil {
		priority = *e.Priority
	}
	return fmt.Sprintf("{%s %s %d %s}", f(e.Latitude), f(e.Longitude), e.EstimatedWorkMinutes, priority)
}

func TestEffective(t *testing.T) {
	linked := &store.CustomerLocation{Latitude: ptr(1.0), Longitude: ptr(2.0), DefaultEstimatedWorkMinutes: ptr(90), DefaultPriority: "low"}
	tests := []struct {
		name   string
		target connect.InboundTarget
		linked *store.CustomerLocation
		want   string
	}{
		{"nothing anywhere", connect.InboundTarget{}, nil, "{nil nil 30 nil}"},
		{"linked location only", connect.InboundTarget{}, linked, "{1 2 90 low}"},
		{"target location before linked", connect.InboundTarget{Location: &connect.InboundTargetLocation{
			Latitude: ptr(3.0), Longitude: ptr(4.0), DefaultEstimatedWorkMinutes: ptr(15), DefaultPriority: ptr("urgent"),
		}}, linked, "{3 4 15 urgent}"},
		{"address and planning first", connect.InboundTarget{
			Address:  &connect.InboundTargetAddress{Latitude: ptr(5.0), Longitude: ptr(6.0)},
			Location: &connect.InboundTargetLocation{Latitude: ptr(3.0), Longitude: ptr(4.0)},
			Planning: &connect.InboundTargetPlanning{EstimatedWorkMinutes: ptr(45), Priority: ptr("normal")},
		}, linked, "{5 6 45 normal}"},
		{"half a pair is no pair", connect.InboundTarget{
			Address:  &connect.InboundTargetAddress{Latitude: ptr(5.0)},
			Location: &connect.InboundTargetLocation{Longitude: ptr(4.0)},
		}, linked, "{1 2 90 low}"},
		{"blank priority is none", connect.InboundTarget{Planning: &connect.InboundTargetPlanning{Priority: ptr(" ")}}, nil, "{nil nil 30 nil}"},
	}
	for _, tc := range tests {
		if got := effective(mapping.Effective(&tc.target, tc.linked)); got != tc.want {
			t.Errorf("%s: Effective = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestMapperInsideATransaction drives a Mapper the way a feature package does
// inside its own transaction: a later item sees what an earlier one created,
// and a rolled-back transaction leaves no record.
func TestMapperInsideATransaction(t *testing.T) {
	e := mustOpen(t)
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	var first, second mapping.Outcome
	err := e.store.Update(ctx, func(tx store.Tx) (err error) {
		settings, err := tx.MappingSettings(tenant)
		if err != nil {
			return err
		}
		m := mapping.NewMapper(tx, tenant, settings, now)
		target := fullTarget("APR-1")
		if first, err = m.Map("portal", &target); err != nil {
			return err
		}
		second, err = m.Map("portal", &target)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.Result.Status != connect.MappingCreated || second.Result.Status != connect.MappingMapped {
		t.Errorf("statuses %s, %s; want Created then Mapped", first.Result.Status, second.Result.Status)
	}
	if fmt.Sprint(ids(first.Result)) != fmt.Sprint(ids(second.Result)) || first.Location == nil || first.Location.ID != *first.Result.CustomerLocationID {
		t.Errorf("outcomes %v and %v, location %+v", ids(first.Result), ids(second.Result), first.Location)
	}
	c, err := e.customers.Customer(ctx, tenant, *first.Result.CustomerID)
	if err != nil || c.SourceSystem != "portal" || !c.CreatedAt.Equal(now) || len(c.Locations) != 1 || len(c.Contacts) != 1 || *c.Contacts[0].LocationID != c.Locations[0].ID {
		t.Errorf("stored customer = %+v, %v", c, err)
	}

	// Within one transaction a change is seen by the next item at once.
	var statuses []connect.CustomerMappingStatus
	err = e.store.Update(ctx, func(tx store.Tx) error {
		statuses = nil
		m := mapping.NewMapper(tx, tenant, store.DefaultMappingSettings(), now)
		for _, target := range []connect.InboundTarget{
			fullTarget("APR-3", renamed), fullTarget("APR-4", renamed), fullTarget("APR-5"), fullTarget("APR-6", secondShop, noContact), fullTarget("APR-7", secondShop, noContact),
		} {
			out, err := m.Map("portal", &target)
			if err != nil {
				return err
			}
			statuses = append(statuses, out.Result.Status)
		}
		return nil
	})
	want := []connect.CustomerMappingStatus{
		connect.MappingUpdated, connect.MappingMapped, connect.MappingUpdated, connect.MappingCreated, connect.MappingMapped,
	}
	if err != nil || !slices.Equal(statuses, want) {
		t.Errorf("statuses %v, %v; want %v", statuses, err, want)
	}

	errRollback := errors.New("rollback")
	err = e.store.Update(ctx, func(tx store.Tx) error {
		target := fullTarget("APR-2", fromSource("portal", "CUST-2"))
		if _, err := mapping.NewMapper(tx, tenant, store.DefaultMappingSettings(), now).Map("portal", &target); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("Update = %v", err)
	}
	if customers, _, _ := e.counts(t, tenant); customers != 1 {
		t.Errorf("%d customers after a rolled-back mapping, want 1", customers)
	}
}

// TestCustomerRecordIsItsSourceRecord is issue 12's scenario: two source
// records sharing a customer number stay two customers, neither renames the
// other, and the number alone is ambiguous from then on.
func TestCustomerRecordIsItsSourceRecord(t *testing.T) {
	e := mustOpen(t)
	customer := func(externalID *string, name string) func(*connect.InboundTarget) {
		return func(t *connect.InboundTarget) {
			t.Customer = &connect.InboundTargetCustomer{ExternalID: externalID, CustomerNumber: ptr("K-200"), Name: ptr(name)}
		}
	}
	steps := []struct {
		target       string
		customer     func(*connect.InboundTarget)
		want         connect.CustomerMappingStatus
		wantWarnings []connect.CustomerMappingWarning
	}{
		{"WO-1", customer(ptr("cust-2"), "A"), connect.MappingCreated, nil},
		{"WO-2", customer(ptr("cust-3"), "B"), connect.MappingCreated, nil},
		{"WO-3", customer(ptr("cust-2"), "A"), connect.MappingMapped, nil},
		{"WO-4", customer(nil, "C"), connect.MappingWarning, []connect.CustomerMappingWarning{connect.MappingAmbiguousCustomerNumber}},
	}
	ids := map[string]int64{}
	for _, step := range steps {
		item := e.importOne(t, mapper, fullTarget(step.target, step.customer, noLocation, noContact))
		m := item.CustomerMapping
		if m.Status != step.want || !slices.Equal(m.Warnings, step.wantWarnings) {
			t.Fatalf("%s: mapping %s %v, want %s %v", step.target, m.Status, m.Warnings, step.want, step.wantWarnings)
		}
		if m.CustomerID != nil {
			ids[step.target] = *m.CustomerID
		} else if step.want != connect.MappingWarning {
			t.Fatalf("%s: no customer linked", step.target)
		}
	}
	if ids["WO-1"] == ids["WO-2"] || ids["WO-3"] != ids["WO-1"] {
		t.Errorf("customer ids %v: want WO-1 and WO-3 on one customer, WO-2 on another", ids)
	}
	for target, want := range map[string]string{"WO-1": "A", "WO-2": "B"} {
		c, err := e.customers.Customer(ctx, tenant, ids[target])
		if err != nil || c.Name != want || *c.CustomerNumber != "K-200" {
			t.Errorf("customer of %s = %+v, %v; want name %s, number K-200", target, c.Customer, err, want)
		}
	}
	if customers, _, _ := e.counts(t, tenant); customers != 2 {
		t.Errorf("%d customers, want 2", customers)
	}
}
