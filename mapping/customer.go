package mapping

import (
	"slices"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// mapCustomer links the target's customer: found, created, or a warning.
func (m *Mapper) mapCustomer(r *result, source string, in *connect.InboundTargetCustomer) error {
	if in == nil {
		return nil
	}
	externalID, number := given(in.ExternalID), given(in.CustomerNumber)
	if externalID == nil && number == nil {
		r.fail("customer has neither externalId nor customerNumber, so it cannot be matched to a customer record")
		return nil
	}
	c, ambiguous, err := m.findCustomer(source, externalID, number)
	if err != nil {
		return err
	}
	switch {
	case ambiguous:
		r.warn(connect.MappingAmbiguousCustomerNumber)
	case c == nil && !m.settings.AutoCreateCustomers:
		r.warn(connect.MappingCustomerAutoCreateDisabled)
	case c == nil:
		return m.createCustomer(r, source, in, externalID, number)
	case c.State != store.CustomerActive:
		r.customer = c
		r.warn(connect.MappingCustomerArchivedOrBlocked)
	default:
		r.customer = c
		return m.updateCustomer(r, c, source, in, externalID)
	}
	return nil
}

// findCustomer looks the customer up by externalId, else by number. ambiguous
// is true when several customers have the number. A customer that another
// record of the same source system owns (it carries a different externalId of
// that source system) is never found by number: that record is its identity
// (DECISIONS.md "Customer identity"), so the target gets a customer of its own.
func (m *Mapper) findCustomer(source string, externalID, number *string) (c *store.Customer, ambiguous bool, err error) {
	if externalID != nil {
		c, err := m.customerByExternalID(source, *externalID)
		if c != nil || err != nil {
			return c, false, err
		}
	}
	if number == nil {
		return nil, false, nil
	}
	list, err := m.customersByNumber(*number)
	if err != nil {
		return nil, false, err
	}
	if externalID != nil {
		list = slices.DeleteFunc(slices.Clone(list), func(c store.Customer) bool { return ownedByOther(&c, source, *externalID) })
	}
	switch len(list) {
	case 0:
		return nil, false, nil
	case 1:
		return &list[0], false, nil
	}
	return nil, true, nil
}

// ownedByOther reports whether c is the record of another externalId of the
// source system source.
func ownedByOther(c *store.Customer, source, externalID string) bool {
	return c.ExternalID != nil && c.SourceSystem == source && *c.ExternalID != externalID
}

func (m *Mapper) createCustomer(r *result, source string, in *connect.InboundTargetCustomer, externalID, number *string) error {
	c := &store.Customer{
		TenantID: m.tenantID, SourceSystem: source, ExternalID: externalID, CustomerNumber: number,
		State: store.CustomerActive, CreatedAt: m.now, UpdatedAt: m.now,
	}
	applyCustomer(c, in)
	m.forget()
	if err := m.tx.CreateCustomer(c); err != nil {
		return r.saved("customer", err)
	}
	r.customer = c
	r.note(connect.MappingCreated)
	return nil
}

// updateCustomer writes what the target changes on a matched customer. A
// customer known only by its number adopts the target's externalId, so the
// next import finds it by that.
func (m *Mapper) updateCustomer(r *result, c *store.Customer, source string, in *connect.InboundTargetCustomer, externalID *string) error {
	changed := applyCustomer(c, in)
	if c.ExternalID == nil && externalID != nil {
		c.SourceSystem, c.ExternalID = source, externalID
		changed = true
	}
	return m.save(r, "customer", changed, &c.UpdatedAt, func() error { return m.tx.UpdateCustomer(c) })
}

// applyCustomer copies the sent fields onto c and reports whether any changed.
func applyCustomer(c *store.Customer, in *connect.InboundTargetCustomer) bool {
	return anyOf(
		setPtr(&c.CustomerNumber, given(in.CustomerNumber)),
		set(&c.Name, in.Name), set(&c.Type, in.Type), set(&c.Industry, in.Industry),
		set(&c.Email, in.Email), set(&c.Phone, in.Phone), set(&c.Website, in.Website),
	)
}
