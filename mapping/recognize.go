package mapping

import (
	"context"
	"fmt"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// RecognizeCustomer is the customer check of appointment requests (it has the
// signature of appointments.Checker, which uses it by default). It only looks:
// an appointment request never creates or changes customer records. It returns
// why a person must review the request:
//
//   - no customer externalId or customerNumber to recognise it by;
//   - no customer of the tenant with that externalId (in the caller's source
//     system) or number, or several with that number;
//   - the customer is archived or blocked;
//   - the request's location, when it names one (externalId or address), is
//     not a location of that customer.
func RecognizeCustomer(_ context.Context, tx store.Tx, caller connect.Caller, req *connect.AppointmentRequest) ([]string, error) {
	m := NewMapper(tx, caller.TenantID, store.MappingSettings{}, time.Time{})
	in := req.Customer
	if in == nil || (given(in.ExternalID) == nil && given(in.CustomerNumber) == nil) {
		return []string{"no customer externalId or customerNumber to recognise the customer by"}, nil
	}
	c, ambiguous, err := m.findCustomer(caller.SourceSystem, given(in.ExternalID), given(in.CustomerNumber))
	switch {
	case err != nil:
		return nil, err
	case ambiguous:
		return []string{fmt.Sprintf("customer number %s belongs to several customers", connect.Quote(*in.CustomerNumber))}, nil
	case c == nil:
		return []string{"the customer is not a known customer of the tenant"}, nil
	case c.State != store.CustomerActive:
		return []string{fmt.Sprintf("customer %d is %s", c.ID, c.State)}, nil
	}
	return m.recognizeLocation(c, req.Location)
}

// recognizeLocation checks that a named location is one of the customer's.
func (m *Mapper) recognizeLocation(c *store.Customer, in *connect.InboundTargetLocation) ([]string, error) {
	if in == nil {
		return nil, nil
	}
	externalID, key := given(in.ExternalID), store.AddressKey(str(in.Street), str(in.PostalCode), str(in.City), str(in.Country))
	if externalID == nil && key == "" {
		return nil, nil
	}
	l, err := m.findLocation(c.ID, externalID, key)
	if err != nil || l != nil {
		return nil, err
	}
	return []string{fmt.Sprintf("the location is not a known location of customer %d", c.ID)}, nil
}
