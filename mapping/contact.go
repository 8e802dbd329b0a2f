package mapping

import (
	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// mapContact links the target's contact under the linked customer.
func (m *Mapper) mapContact(r *result, in *connect.InboundTargetContact) error {
	if in == nil {
		return nil
	}
	externalID, email := given(in.ExternalID), given(in.Email)
	if externalID == nil && email == nil {
		r.fail("contact has neither externalId nor email, so it cannot be matched to a customer contact")
		return nil
	}
	c, err := m.findContact(r.customer.ID, externalID, email)
	if err != nil {
		return err
	}
	switch {
	case c != nil && r.writable():
		err = m.updateContact(r, c, in, externalID)
	case c != nil:
		r.note(connect.MappingMapped)
	case !r.writable():
		// Nothing is added to an archived or blocked customer; its warning says so.
	case !m.settings.AutoCreateContacts:
		r.warn(connect.MappingContactAutoCreateDisabled)
	default:
		c, err = m.createContact(r, in, externalID)
	}
	if err != nil || c == nil {
		return err
	}
	r.contact = c
	if c.LocationID != nil && r.location != nil && *c.LocationID != r.location.ID {
		r.warn(connect.MappingContactLocationMismatch)
	}
	return nil
}

// findContact looks the contact up by externalId, else by e-mail; an e-mail
// match with another externalId is another person sharing a mailbox.
func (m *Mapper) findContact(customerID int64, externalID, email *string) (*store.CustomerContact, error) {
	if externalID != nil {
		c, err := m.contactByExternalID(customerID, *externalID)
		if c != nil || err != nil {
			return c, err
		}
	}
	if email == nil {
		return nil, nil
	}
	list, err := m.contactsByEmail(customerID, *email)
	for i := range list {
		if externalID == nil || list[i].ExternalID == nil {
			return &list[i], err
		}
	}
	return nil, err
}

func (m *Mapper) createContact(r *result, in *connect.InboundTargetContact, externalID *string) (*store.CustomerContact, error) {
	c := &store.CustomerContact{
		TenantID: m.tenantID, CustomerID: r.customer.ID, LocationID: r.locationID(), ExternalID: externalID,
		CreatedAt: m.now, UpdatedAt: m.now,
	}
	applyContact(c, in)
	m.forget()
	if err := m.tx.CreateContact(c); err != nil {
		return nil, r.saved("contact", err)
	}
	r.note(connect.MappingCreated)
	return c, nil
}

// updateContact writes what the target changes on a matched contact. A contact
// without a location is tied to the linked one; one at another location stays
// there (and is reported as a mismatch).
func (m *Mapper) updateContact(r *result, c *store.CustomerContact, in *connect.InboundTargetContact, externalID *string) error {
	changed := applyContact(c, in)
	if c.ExternalID == nil && externalID != nil {
		c.ExternalID = externalID
		changed = true
	}
	if c.LocationID == nil && r.location != nil {
		c.LocationID = r.locationID()
		changed = true
	}
	return m.save(r, "contact", changed, &c.UpdatedAt, func() error { return m.tx.UpdateContact(c) })
}

// applyContact copies the sent fields onto c and reports whether any changed.
func applyContact(c *store.CustomerContact, in *connect.InboundTargetContact) bool {
	return anyOf(
		set(&c.FirstName, in.FirstName), set(&c.LastName, in.LastName), set(&c.DisplayName, in.DisplayName),
		set(&c.Role, in.Role), set(&c.Department, in.Department), setFolded(&c.Email, in.Email, store.EmailKey),
		set(&c.Phone, in.Phone), set(&c.Mobile, in.Mobile), set(&c.PreferredContactMethod, in.PreferredContactMethod),
	)
}

func (r *result) locationID() *int64 {
	if r.location == nil {
		return nil
	}
	id := r.location.ID
	return &id
}
