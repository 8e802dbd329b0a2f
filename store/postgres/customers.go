package postgres

import (
	"strconv"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// --- customers

func (t *tx) CreateCustomer(c *store.Customer) error {
	if c.ExternalID != nil {
		taken, err := t.customerExternalIDTaken(c, 0)
		if err != nil {
			return err
		}
		if taken {
			return connect.Errorf(connect.CodeInvalidRequest, "source system %q already has a customer %q", c.SourceSystem, *c.ExternalID)
		}
	}
	id, err := t.nextID("customers_id_seq")
	if err != nil {
		return err
	}
	c.ID = id
	doc, err := encode(c)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO customers (id, tenant_id, source_system, external_id, customer_number, doc) VALUES ($1, $2, $3, $4, $5, $6)`,
		id, c.TenantID, c.SourceSystem, c.ExternalID, c.CustomerNumber, doc)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO customer_counts AS c (tenant_id, slot, n) VALUES ($1, $2, 1)
		ON CONFLICT (tenant_id, slot) DO UPDATE SET n = c.n + 1`, c.TenantID, t.slot)
	return err
}

// customerExternalIDTaken reports whether another customer than id has c's
// (tenant, source system, externalId).
func (t *tx) customerExternalIDTaken(c *store.Customer, id int64) (bool, error) {
	t.lockKeys(lockKey("customer", c.TenantID, c.SourceSystem, *c.ExternalID))
	return t.exists(`SELECT 1 FROM customers WHERE tenant_id = $1 AND source_system = $2 AND external_id = $3 AND id <> $4`,
		c.TenantID, c.SourceSystem, *c.ExternalID, id)
}

func (t *tx) UpdateCustomer(c *store.Customer) error {
	if _, err := t.Customer(c.TenantID, c.ID); err != nil {
		return err
	}
	if c.ExternalID != nil {
		taken, err := t.customerExternalIDTaken(c, c.ID)
		if err != nil {
			return err
		}
		if taken {
			return connect.Errorf(connect.CodeInvalidRequest, "source system %q already has another customer %q", c.SourceSystem, *c.ExternalID)
		}
	}
	doc, err := encode(c)
	if err != nil {
		return err
	}
	_, err = t.exec(`UPDATE customers SET source_system = $3, external_id = $4, customer_number = $5, doc = $6 WHERE id = $1 AND tenant_id = $2`,
		c.ID, c.TenantID, c.SourceSystem, c.ExternalID, c.CustomerNumber, doc)
	return err
}

func (t *tx) Customer(tenantID string, id int64) (*store.Customer, error) {
	return one[store.Customer](t, `SELECT doc FROM customers WHERE id = $1 AND tenant_id = $2`+t.forUpdate(), id, tenantID)
}

func (t *tx) CustomerByExternalID(tenantID, sourceSystem, externalID string) (*store.Customer, error) {
	t.lockKeys(lockKey("customer", tenantID, sourceSystem, externalID))
	return one[store.Customer](t, `SELECT doc FROM customers WHERE tenant_id = $1 AND source_system = $2 AND external_id = $3`+t.forUpdate(),
		tenantID, sourceSystem, externalID)
}

func (t *tx) CustomersByNumber(tenantID, customerNumber string) ([]store.Customer, error) {
	t.lockKeys(lockKey("customer number", tenantID, customerNumber))
	return all[store.Customer](t, `SELECT doc FROM customers WHERE tenant_id = $1 AND customer_number = $2 ORDER BY id`+t.forUpdate(),
		tenantID, customerNumber)
}

func (t *tx) Customers(tenantID string, skip, take int) ([]store.Customer, int, error) {
	var total int
	if _, err := t.scan(`SELECT coalesce(sum(n), 0) FROM customer_counts WHERE tenant_id = $1`, []any{tenantID}, &total); err != nil {
		return nil, 0, errors.Wrap(err, "counting customers")
	}
	list := make([]store.Customer, 0, max(min(take, total-skip), 0))
	if take <= 0 || skip >= total {
		return list, total, nil
	}
	page, err := all[store.Customer](t, `SELECT doc FROM customers WHERE tenant_id = $1 ORDER BY id OFFSET $2 LIMIT $3`, tenantID, skip, take)
	return append(list, page...), total, err
}

// --- locations and contacts

// children describes one kind of record kept under a customer: its table,
// sequence and second, non-unique key column (address or e-mail key).
type children struct {
	what, table, sequence, secondary string
}

var (
	locations = children{"location", "customer_locations", "customer_locations_id_seq", "address_key"}
	contacts  = children{"contact", "customer_contacts", "customer_contacts_id_seq", "email_key"}
)

// child is what the shared code needs to know of a location or contact.
type child struct {
	tenantID   string
	customerID int64
	id         int64
	externalID *string
	// secondary is the address or e-mail key; "" matches nothing.
	secondary string
}

func locationChild(l *store.CustomerLocation) child {
	return child{l.TenantID, l.CustomerID, l.ID, l.ExternalID, l.AddressKey()}
}

func contactChild(c *store.CustomerContact) child {
	return child{c.TenantID, c.CustomerID, c.ID, c.ExternalID, store.EmailKey(c.Email)}
}

// checkChild refuses what a location or contact cannot be: one of a missing
// customer, or a second one with the same externalId.
func (t *tx) checkChild(k children, c child) error {
	if _, err := t.Customer(c.tenantID, c.customerID); errors.Is(err, connect.ErrNotFound) {
		return connect.Errorf(connect.CodeNotFound, "customer %d not found", c.customerID)
	} else if err != nil {
		return err
	}
	if c.externalID == nil {
		return nil
	}
	t.lockKeys(childLockKey(k, c.tenantID, c.customerID, "id", *c.externalID))
	taken, err := t.exists(`SELECT 1 FROM `+k.table+` WHERE tenant_id = $1 AND customer_id = $2 AND external_id = $3 AND id <> $4`,
		c.tenantID, c.customerID, *c.externalID, c.id)
	if err != nil {
		return err
	}
	if taken {
		return connect.Errorf(connect.CodeInvalidRequest, "customer %d already has a %s %q", c.customerID, k.what, *c.externalID)
	}
	return nil
}

func childLockKey(k children, tenantID string, customerID int64, key, value string) int64 {
	return lockKey(k.table, tenantID, strconv.FormatInt(customerID, 10), key, value)
}

// createChild stores a new location or contact: assign sets the id on the
// record and returns it with its index data.
func (t *tx) createChild(k children, c child, assign func(id int64) (child, any)) error {
	if err := t.checkChild(k, c); err != nil {
		return err
	}
	id, err := t.nextID(k.sequence)
	if err != nil {
		return err
	}
	c, v := assign(id)
	doc, err := encode(v)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO `+k.table+` (id, tenant_id, customer_id, external_id, `+k.secondary+`, doc) VALUES ($1, $2, $3, $4, $5, $6)`,
		id, c.tenantID, c.customerID, c.externalID, c.secondary, doc)
	return err
}

// updateChild replaces an existing location or contact.
func (t *tx) updateChild(k children, c child, v any) error {
	found, err := t.exists(`SELECT 1 FROM `+k.table+` WHERE id = $1 AND tenant_id = $2 AND customer_id = $3`+t.forUpdate(),
		c.id, c.tenantID, c.customerID)
	if err != nil {
		return err
	}
	if !found {
		return connect.ErrNotFound
	}
	if err := t.checkChild(k, c); err != nil {
		return err
	}
	doc, err := encode(v)
	if err != nil {
		return err
	}
	_, err = t.exec(`UPDATE `+k.table+` SET external_id = $4, `+k.secondary+` = $5, doc = $6 WHERE id = $1 AND tenant_id = $2 AND customer_id = $3`,
		c.id, c.tenantID, c.customerID, c.externalID, c.secondary, doc)
	return err
}

// childByExternalID returns the location or contact of a customer with this
// externalId.
func childByExternalID[T any](t *tx, k children, tenantID string, customerID int64, externalID string) (*T, error) {
	t.lockKeys(childLockKey(k, tenantID, customerID, "id", externalID))
	return one[T](t, `SELECT doc FROM `+k.table+` WHERE tenant_id = $1 AND customer_id = $2 AND external_id = $3`+t.forUpdate(),
		tenantID, customerID, externalID)
}

// childrenBySecondary returns the locations or contacts of a customer under
// one address or e-mail key, in id order.
func childrenBySecondary[T any](t *tx, k children, tenantID string, customerID int64, key string) ([]T, error) {
	if key == "" {
		return nil, nil
	}
	t.lockKeys(childLockKey(k, tenantID, customerID, k.secondary, key))
	return all[T](t, `SELECT doc FROM `+k.table+` WHERE tenant_id = $1 AND customer_id = $2 AND `+k.secondary+` = $3 ORDER BY id`+t.forUpdate(),
		tenantID, customerID, key)
}

// childrenOf returns every location or contact of a customer, in id order.
func childrenOf[T any](t *tx, k children, tenantID string, customerID int64) ([]T, error) {
	return all[T](t, `SELECT doc FROM `+k.table+` WHERE tenant_id = $1 AND customer_id = $2 ORDER BY id`, tenantID, customerID)
}

func (t *tx) CreateLocation(l *store.CustomerLocation) error {
	return t.createChild(locations, locationChild(l), func(id int64) (child, any) {
		l.ID = id
		return locationChild(l), l
	})
}

func (t *tx) UpdateLocation(l *store.CustomerLocation) error {
	return t.updateChild(locations, locationChild(l), l)
}

func (t *tx) LocationByExternalID(tenantID string, customerID int64, externalID string) (*store.CustomerLocation, error) {
	return childByExternalID[store.CustomerLocation](t, locations, tenantID, customerID, externalID)
}

func (t *tx) LocationsByAddress(tenantID string, customerID int64, addressKey string) ([]store.CustomerLocation, error) {
	return childrenBySecondary[store.CustomerLocation](t, locations, tenantID, customerID, addressKey)
}

func (t *tx) Locations(tenantID string, customerID int64) ([]store.CustomerLocation, error) {
	return childrenOf[store.CustomerLocation](t, locations, tenantID, customerID)
}

func (t *tx) CreateContact(c *store.CustomerContact) error {
	if err := t.checkContactLocation(c); err != nil {
		return err
	}
	return t.createChild(contacts, contactChild(c), func(id int64) (child, any) {
		c.ID = id
		return contactChild(c), c
	})
}

func (t *tx) UpdateContact(c *store.CustomerContact) error {
	if err := t.checkContactLocation(c); err != nil {
		return err
	}
	return t.updateChild(contacts, contactChild(c), c)
}

// checkContactLocation refuses a contact tied to a location of another
// customer, which mapping would then report as the wrong place.
func (t *tx) checkContactLocation(c *store.CustomerContact) error {
	if c.LocationID == nil {
		return nil
	}
	found, err := t.exists(`SELECT 1 FROM customer_locations WHERE id = $1 AND tenant_id = $2 AND customer_id = $3`+t.forUpdate(),
		*c.LocationID, c.TenantID, c.CustomerID)
	if err != nil || found {
		return err
	}
	return connect.Errorf(connect.CodeInvalidRequest, "customer %d has no location %d", c.CustomerID, *c.LocationID)
}

func (t *tx) ContactByExternalID(tenantID string, customerID int64, externalID string) (*store.CustomerContact, error) {
	return childByExternalID[store.CustomerContact](t, contacts, tenantID, customerID, externalID)
}

func (t *tx) ContactsByEmail(tenantID string, customerID int64, email string) ([]store.CustomerContact, error) {
	return childrenBySecondary[store.CustomerContact](t, contacts, tenantID, customerID, store.EmailKey(email))
}

func (t *tx) Contacts(tenantID string, customerID int64) ([]store.CustomerContact, error) {
	return childrenOf[store.CustomerContact](t, contacts, tenantID, customerID)
}

// --- mapping settings

func (t *tx) MappingSettings(tenantID string) (store.MappingSettings, error) {
	t.lockShared(lockKey("mapping settings", tenantID)) // imports reading the settings run side by side
	var data []byte
	found, err := t.scan(`SELECT doc FROM mapping_settings WHERE tenant_id = $1`+t.forShare(), []any{tenantID}, &data)
	if err != nil || !found {
		return store.DefaultMappingSettings(), err
	}
	// Decoding over the defaults keeps a setting added later on for tenants
	// whose stored settings predate it.
	s := store.DefaultMappingSettings()
	return s, errors.Wrap(json.Unmarshal(data, &s), "decoding mapping settings")
}

func (t *tx) PutMappingSettings(tenantID string, s store.MappingSettings) error {
	t.lockKeys(lockKey("mapping settings", tenantID))
	doc, err := encode(s)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO mapping_settings (tenant_id, doc) VALUES ($1, $2) ON CONFLICT (tenant_id) DO UPDATE SET doc = EXCLUDED.doc`, tenantID, doc)
	return err
}
