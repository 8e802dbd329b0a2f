package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/mapping"
)

// mappedTarget is a target with customer, location and contact; edits are
// "member":value pairs that replace parts of it.
func mappedTarget(id string, edits map[string]string) string {
	parts := map[string]string{
		"customer": `{"externalId":"CUST-1","customerNumber":"10001","name":"Müller Haustechnik"}`,
		"location": `{"externalId":"LOC-1","street":"Hauptstraße 1","postalCode":"10115","city":"Berlin","country":"DE","latitude":52.5313,"longitude":13.3850}`,
		"contact":  `{"externalId":"CON-1","firstName":"Anna","email":"anna@schmidt.example"}`,
	}
	for k, v := range edits {
		parts[k] = v
	}
	var members []string
	for _, k := range []string{"customer", "location", "contact", "address"} {
		if v, ok := parts[k]; ok && v != "" {
			members = append(members, fmt.Sprintf("%q:%s", k, v))
		}
	}
	return fmt.Sprintf(`{"externalId":%q,"title":"Service visit",%s}`, id, strings.Join(members, ","))
}

// TestCustomerMappingOverHTTP produces every customer mapping status and
// warning through endpoint 2 (and the batch endpoint), with the result on the
// item as the OpenAPI document describes it.
func TestCustomerMappingOverHTTP(t *testing.T) {
	type W = connect.CustomerMappingWarning
	off := func(change mapping.SettingsChange) func(*testing.T, *server) {
		return func(t *testing.T, s *server) {
			if _, err := s.customers.UpdateSettings(t.Context(), "acme", change); err != nil {
				t.Fatal(err)
			}
		}
	}
	no := false
	archiveFirst := func(t *testing.T, s *server) {
		list, err := s.customers.ListCustomers(t.Context(), "acme", mapping.CustomerQuery{})
		if err != nil || len(list.Customers) == 0 {
			t.Fatalf("customers: %v", err)
		}
		if _, err := s.customers.ArchiveCustomer(t.Context(), "acme", list.Customers[0].ID); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name         string
		before       []string
		prepare      func(*testing.T, *server)
		withoutScope bool
		target       string
		want         connect.CustomerMappingStatus
		wantWarnings []W
	}{
		{name: "no customer data", target: `{"externalId":"A","title":"x"}`, want: connect.MappingNotApplicable},
		{name: "key without customers.map", withoutScope: true, target: mappedTarget("A", nil), want: connect.MappingSkipped},
		{name: "new records", target: mappedTarget("A", nil), want: connect.MappingCreated},
		{name: "known records", before: []string{mappedTarget("A", nil)}, target: mappedTarget("B", nil), want: connect.MappingMapped},
		{name: "renamed customer", before: []string{mappedTarget("A", nil)},
			target: mappedTarget("B", map[string]string{"customer": `{"externalId":"CUST-1","customerNumber":"10001","name":"Müller GmbH"}`}), want: connect.MappingUpdated},
		{name: "location without coordinates", target: mappedTarget("A", map[string]string{"location": `{"externalId":"LOC-1","street":"Hauptstraße 1","postalCode":"10115","city":"Berlin"}`}),
			want: connect.MappingWarning, wantWarnings: []W{connect.MappingLocationMissingCoordinates}},
		{name: "target elsewhere than its location", target: mappedTarget("A", map[string]string{"address": `{"street":"Alexanderplatz 1","city":"Berlin","latitude":52.5219,"longitude":13.4132}`}),
			want: connect.MappingWarning, wantWarnings: []W{connect.MappingTargetAddressDiffersFromCustomerLocation}},
		{name: "ambiguous customer number",
			before: []string{
				mappedTarget("A", map[string]string{"customer": `{"externalId":"CUST-1","customerNumber":"555"}`, "location": "", "contact": ""}),
				mappedTarget("B", map[string]string{"customer": `{"externalId":"CUST-2","customerNumber":"777"}`, "location": "", "contact": ""}),
				// CUST-2 is found by its externalId and takes the number 555 too.
				mappedTarget("C", map[string]string{"customer": `{"externalId":"CUST-2","customerNumber":"555"}`, "location": "", "contact": ""}),
			},
			target: mappedTarget("D", map[string]string{"customer": `{"customerNumber":"555"}`, "location": "", "contact": ""}),
			want:   connect.MappingWarning, wantWarnings: []W{connect.MappingAmbiguousCustomerNumber}},
		{name: "customer auto-create off", prepare: off(mapping.SettingsChange{AutoCreateCustomers: &no}), target: mappedTarget("A", nil),
			want: connect.MappingWarning, wantWarnings: []W{connect.MappingCustomerAutoCreateDisabled}},
		{name: "location auto-create off", prepare: off(mapping.SettingsChange{AutoCreateLocations: &no}), target: mappedTarget("A", nil),
			want: connect.MappingWarning, wantWarnings: []W{connect.MappingLocationAutoCreateDisabled}},
		{name: "contact auto-create off", prepare: off(mapping.SettingsChange{AutoCreateContacts: &no}), target: mappedTarget("A", nil),
			want: connect.MappingWarning, wantWarnings: []W{connect.MappingContactAutoCreateDisabled}},
		{name: "contact of another location", before: []string{mappedTarget("A", nil)},
			target: mappedTarget("B", map[string]string{"location": `{"externalId":"LOC-2","street":"Torstraße 5","postalCode":"10119","city":"Berlin","latitude":52.529,"longitude":13.401}`}),
			want:   connect.MappingWarning, wantWarnings: []W{connect.MappingContactLocationMismatch}},
		{name: "archived customer", before: []string{mappedTarget("A", nil)}, prepare: archiveFirst, target: mappedTarget("B", nil),
			want: connect.MappingWarning, wantWarnings: []W{connect.MappingCustomerArchivedOrBlocked}},
		{name: "location without a customer", target: mappedTarget("A", map[string]string{"customer": "", "contact": ""}), want: connect.MappingFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			key := s.key("acme", "erp", connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite, connect.ScopeCustomersMap)
			for _, b := range tc.before {
				s.do(request{method: "POST", path: base + "/inbound/targets", body: b, key: key})
			}
			if tc.prepare != nil {
				tc.prepare(t, s)
			}
			if tc.withoutScope {
				key = s.key("acme", "plain", connect.ScopeTargetsWrite)
			}
			resp := s.do(request{method: "POST", path: base + "/inbound/targets", body: tc.target, key: key})
			var r connect.InboundImportResult
			resp.json(t, &r)
			got := r.Items[0].CustomerMapping
			if resp.status >= 300 || got.Status != tc.want || !slices.Equal(got.Warnings, orNone(tc.wantWarnings)) {
				t.Errorf("got %d, mapping %s %v %q; want %s %v", resp.status, got.Status, got.Warnings, got.Errors, tc.want, tc.wantWarnings)
			}
			if (got.Status == connect.MappingFailed) != (len(got.Errors) > 0) {
				t.Errorf("errors %q with status %s", got.Errors, got.Status)
			}
		})
	}
}

// TestBatchMapsToo: the batch endpoint maps with the same key scope rule, and
// re-importing a batch creates no duplicates.
func TestBatchMapsToo(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeTargetsBatchWrite, connect.ScopeCustomersMap)
	batch := `{"targets":[` + mappedTarget("A", nil) + `,` + mappedTarget("B", nil) + `]}`
	var first, second connect.InboundImportResult
	s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: batch, key: key}).json(t, &first)
	s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: batch, key: key}).json(t, &second)
	statuses := []connect.CustomerMappingStatus{first.Items[0].CustomerMapping.Status, first.Items[1].CustomerMapping.Status, second.Items[0].CustomerMapping.Status}
	if fmt.Sprint(statuses) != "[Created Mapped Mapped]" {
		t.Errorf("statuses %v", statuses)
	}
	list, err := s.customers.ListCustomers(t.Context(), "acme", mapping.CustomerQuery{})
	if err != nil || list.Total != 1 {
		t.Errorf("%d customers after importing the batch twice, want 1 (%v)", list.Total, err)
	}
}

func orNone(w []connect.CustomerMappingWarning) []connect.CustomerMappingWarning {
	if w == nil {
		return []connect.CustomerMappingWarning{}
	}
	return w
}

// TestCustomerIdentityOverHTTP is issue 12's scenario through endpoint 2: a
// second source record with the same customer number gets its own customer,
// nobody's name flips, and the number alone is then ambiguous.
func TestCustomerIdentityOverHTTP(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeTargetsWrite, connect.ScopeCustomersMap)
	steps := []struct {
		id, customer string
		want         connect.CustomerMappingStatus
	}{
		{"A", `{"externalId":"cust-2","customerNumber":"K-200","name":"A"}`, connect.MappingCreated},
		{"B", `{"externalId":"cust-3","customerNumber":"K-200","name":"B"}`, connect.MappingCreated},
		{"C", `{"externalId":"cust-2","customerNumber":"K-200","name":"A"}`, connect.MappingMapped},
		{"D", `{"customerNumber":"K-200"}`, connect.MappingWarning},
	}
	var linked []int64
	for _, step := range steps {
		target := mappedTarget(step.id, map[string]string{"customer": step.customer, "location": "", "contact": ""})
		var r connect.InboundImportResult
		s.do(request{method: "POST", path: base + "/inbound/targets", body: target, key: key}).json(t, &r)
		got := r.Items[0].CustomerMapping
		ambiguous := slices.Equal(got.Warnings, []connect.CustomerMappingWarning{connect.MappingAmbiguousCustomerNumber})
		if got.Status != step.want || ambiguous != (step.want == connect.MappingWarning) {
			t.Fatalf("target %s: mapping %s %v, want %s", step.id, got.Status, got.Warnings, step.want)
		}
		if got.CustomerID != nil {
			linked = append(linked, *got.CustomerID)
		}
	}
	if len(linked) != 3 || linked[0] == linked[1] || linked[2] != linked[0] {
		t.Errorf("linked customers %v: want A and C on one customer, B on another, D on none", linked)
	}
	for i, want := range []string{"A", "B"} {
		c, err := s.customers.Customer(t.Context(), "acme", linked[i])
		if err != nil || c.Name != want {
			t.Errorf("customer %d = %+v, %v; want name %s", linked[i], c.Customer, err, want)
		}
	}
}
