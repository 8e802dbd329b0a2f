package mapping_test

import (
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/mapping"
)

// TestAppointmentCustomerRecognition: with customers.map, an appointment
// request whose customer and location are known is Validated; otherwise it
// waits for a person, with the reason in its history. Nothing is created.
func TestAppointmentCustomerRecognition(t *testing.T) {
	e := mustOpen(t)
	e.importOne(t, mapper, fullTarget("WO-1"))
	svc := appointments.New(appointments.Config{Store: e.store})
	caller := connect.Caller{TenantID: tenant, ClientID: "crm", SourceSystem: "erp", Scopes: []connect.Scope{
		connect.ScopeAppointmentRequestsWrite, connect.ScopeAppointmentRequestsRead, connect.ScopeCustomersMap,
	}}
	known := fullTarget("x")
	tests := []struct {
		name       string
		customer   *connect.InboundTargetCustomer
		location   *connect.InboundTargetLocation
		wantStatus connect.AppointmentStatus
		wantReason string
	}{
		{"known customer and location", known.Customer, known.Location, connect.AppointmentValidated, ""},
		{"known by number only", &connect.InboundTargetCustomer{CustomerNumber: known.Customer.CustomerNumber}, known.Location, connect.AppointmentValidated, ""},
		{"unknown customer", &connect.InboundTargetCustomer{ExternalID: ptr("CUST-404")}, known.Location, connect.AppointmentPendingReview, "not a known customer"},
		{"no customer", nil, known.Location, connect.AppointmentPendingReview, "no customer externalId or customerNumber"},
		{"unknown location", known.Customer, &connect.InboundTargetLocation{ExternalID: ptr("LOC-404"), Latitude: ptr(52.5), Longitude: ptr(13.4)},
			connect.AppointmentPendingReview, "not a known location of customer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := svc.SubmitAppointmentRequest(ctx, caller, connect.NewAppointmentRequest{
				ExternalReference: "SR-" + tc.name, ServiceType: "repair", Customer: tc.customer, Location: tc.location,
			}, connect.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			status, err := svc.AppointmentRequestStatus(ctx, caller, out.Request.ID)
			if err != nil {
				t.Fatal(err)
			}
			note := status.History[len(status.History)-1].Note
			if out.Request.Status != tc.wantStatus || (tc.wantReason != "" && (note == nil || !strings.Contains(*note, tc.wantReason))) {
				t.Errorf("status %s, note %v; want %s with %q", out.Request.Status, note, tc.wantStatus, tc.wantReason)
			}
		})
	}
	list, err := e.customers.ListCustomers(ctx, tenant, mapping.CustomerQuery{})
	if err != nil || list.Total != 1 {
		t.Errorf("appointment requests changed the customer records: %d customers, %v", list.Total, err)
	}
}
