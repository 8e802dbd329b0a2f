package bolt

import (
	"bytes"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Customers are kept under their tenant and locations and contacts under their
// customer, so an id of another tenant or customer finds nothing and a
// customer's locations are one range. Every index entry ends in, or holds, the
// 8-byte id of its record.

// customerKey is where a customer is kept.
func customerKey(tenantID string, id int64) []byte { return append(tuple(tenantID), idKey(id)...) }

// childKey is where a location or contact of a customer is kept.
func childKey(tenantID string, customerID int64, id []byte) []byte {
	return append(customerKey(tenantID, customerID), id...)
}

// childIndexKey is the key of a customer's location or contact in an index.
func childIndexKey(tenantID string, customerID int64, value string) []byte {
	return tuple(tenantID, string(idKey(customerID)), value)
}

func customerExtKey(c *store.Customer) []byte {
	if c.ExternalID == nil {
		return nil
	}
	return tuple(c.TenantID, c.SourceSystem, *c.ExternalID)
}

func customerNumberKey(c *store.Customer) []byte {
	if c.CustomerNumber == nil {
		return nil
	}
	return append(tuple(c.TenantID, *c.CustomerNumber), idKey(c.ID)...)
}

// free reports whether a unique index entry is unused or already id's.
func free(index *bbolt.Bucket, key []byte, id int64) bool {
	v := index.Get(key)
	return v == nil || bytes.Equal(v, idKey(id))
}

// move replaces the index entry old (nil: none) by new (nil: none).
func move(index *bbolt.Bucket, old, new, value []byte) error {
	if bytes.Equal(old, new) {
		return nil
	}
	if old != nil {
		if err := index.Delete(old); err != nil {
			return errors.Wrap(err, "unindexing a record")
		}
	}
	if new == nil {
		return nil
	}
	return errors.Wrap(index.Put(new, value), "indexing a record")
}

// indexed decodes the records an index range names: each key under prefix
// ends in a record id, and recordKey turns that id into the record's key.
func indexed[T any](index, records *bbolt.Bucket, prefix []byte, recordKey func(id []byte) []byte) ([]T, error) {
	var list []T
	err := scan(index, prefix, func(k, _ []byte) (bool, error) {
		var v T
		err := get(records, recordKey(k[len(prefix):]), &v)
		list = append(list, v)
		return true, err
	})
	return list, err
}

// --- customers

func (t *tx) CreateCustomer(c *store.Customer) error {
	if ext := customerExtKey(c); ext != nil && t.bucket(bucketCustomerIDs).Get(ext) != nil {
		return connect.Errorf(connect.CodeInvalidRequest, "source system %q already has a customer %q", c.SourceSystem, *c.ExternalID)
	}
	id, err := nextID(t.bucket(bucketCustomers))
	if err != nil {
		return err
	}
	c.ID = id
	if err := t.indexCustomer(&store.Customer{}, c); err != nil {
		return err
	}
	counts, tenant := t.bucket(bucketCustomerCounts), tuple(c.TenantID)
	if err := counts.Put(tenant, u64(count(counts, tenant)+1)); err != nil {
		return errors.Wrap(err, "counting a customer")
	}
	return put(t.bucket(bucketCustomers), customerKey(c.TenantID, id), c)
}

func (t *tx) UpdateCustomer(c *store.Customer) error {
	var old store.Customer
	if err := get(t.bucket(bucketCustomers), customerKey(c.TenantID, c.ID), &old); err != nil {
		return err
	}
	if ext := customerExtKey(c); ext != nil && !free(t.bucket(bucketCustomerIDs), ext, c.ID) {
		return connect.Errorf(connect.CodeInvalidRequest, "source system %q already has another customer %q", c.SourceSystem, *c.ExternalID)
	}
	if err := t.indexCustomer(&old, c); err != nil {
		return err
	}
	return put(t.bucket(bucketCustomers), customerKey(c.TenantID, c.ID), c)
}

func (t *tx) indexCustomer(old, c *store.Customer) error {
	if err := move(t.bucket(bucketCustomerIDs), customerExtKey(old), customerExtKey(c), idKey(c.ID)); err != nil {
		return err
	}
	return move(t.bucket(bucketCustomerNumbers), customerNumberKey(old), customerNumberKey(c), nil)
}

func (t *tx) Customer(tenantID string, id int64) (*store.Customer, error) {
	var c store.Customer
	if err := get(t.bucket(bucketCustomers), customerKey(tenantID, id), &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) CustomerByExternalID(tenantID, sourceSystem, externalID string) (*store.Customer, error) {
	id := t.bucket(bucketCustomerIDs).Get(tuple(tenantID, sourceSystem, externalID))
	if id == nil {
		return nil, connect.ErrNotFound
	}
	var c store.Customer
	if err := get(t.bucket(bucketCustomers), append(tuple(tenantID), id...), &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) CustomersByNumber(tenantID, customerNumber string) ([]store.Customer, error) {
	tenant := tuple(tenantID)
	return indexed[store.Customer](t.bucket(bucketCustomerNumbers), t.bucket(bucketCustomers), tuple(tenantID, customerNumber),
		func(id []byte) []byte { return append(tenant[:len(tenant):len(tenant)], id...) })
}

func (t *tx) Customers(tenantID string, skip, take int) ([]store.Customer, int, error) {
	prefix := tuple(tenantID)
	total := int(count(t.bucket(bucketCustomerCounts), prefix))
	list := make([]store.Customer, 0, max(min(take, total-skip), 0))
	if take <= 0 {
		return list, total, nil
	}
	seen := 0
	err := scan(t.bucket(bucketCustomers), prefix, func(_, v []byte) (bool, error) {
		if seen++; seen <= skip {
			return true, nil
		}
		var c store.Customer
		err := json.Unmarshal(v, &c)
		list = append(list, c)
		return len(list) < take, errors.Wrap(err, "decoding a customer")
	})
	return list, total, err
}

// --- locations and contacts

// children describes one kind of record kept under a customer: its bucket, its
// unique externalId index and its second, non-unique index (address or e-mail).
type children struct {
	what                    string
	records, ids, secondary []byte
}

var (
	locations = children{"location", bucketLocations, bucketLocationIDs, bucketLocationAddresses}
	contacts  = children{"contact", bucketContacts, bucketContactIDs, bucketContactEmails}
)

// child is what the shared code needs to know of a location or contact.
type child struct {
	tenantID   string
	customerID int64
	id         int64
	externalID *string
	// secondary is the address or e-mail key; "" is not indexed.
	secondary string
}

func locationChild(l *store.CustomerLocation) child {
	return child{l.TenantID, l.CustomerID, l.ID, l.ExternalID, l.AddressKey()}
}

func contactChild(c *store.CustomerContact) child {
	return child{c.TenantID, c.CustomerID, c.ID, c.ExternalID, store.EmailKey(c.Email)}
}

func (c child) extKey() []byte {
	if c.externalID == nil {
		return nil
	}
	return childIndexKey(c.tenantID, c.customerID, *c.externalID)
}

func (c child) secondaryKey() []byte {
	if c.secondary == "" {
		return nil
	}
	return append(childIndexKey(c.tenantID, c.customerID, c.secondary), idKey(c.id)...)
}

// checkChild refuses what a location or contact cannot be: one of a missing
// customer, or a second one with the same externalId.
func (t *tx) checkChild(k children, c child) error {
	if t.bucket(bucketCustomers).Get(customerKey(c.tenantID, c.customerID)) == nil {
		return connect.Errorf(connect.CodeNotFound, "customer %d not found", c.customerID)
	}
	if ext := c.extKey(); ext != nil && !free(t.bucket(k.ids), ext, c.id) {
		return connect.Errorf(connect.CodeInvalidRequest, "customer %d already has a %s %q", c.customerID, k.what, *c.externalID)
	}
	return nil
}

// createChild stores a new location or contact: assign sets the id on the
// record and returns it with its index data.
func (t *tx) createChild(k children, c child, assign func(id int64) (child, any)) error {
	if err := t.checkChild(k, c); err != nil {
		return err
	}
	id, err := nextID(t.bucket(k.records))
	if err != nil {
		return err
	}
	c, v := assign(id)
	if err := t.indexChild(k, child{}, c); err != nil {
		return err
	}
	return put(t.bucket(k.records), childKey(c.tenantID, c.customerID, idKey(id)), v)
}

// updateChild replaces a location or contact; old receives the stored record
// and oldChild describes it once decoded.
func (t *tx) updateChild(k children, c child, v, old any, oldChild func() child) error {
	key := childKey(c.tenantID, c.customerID, idKey(c.id))
	if err := get(t.bucket(k.records), key, old); err != nil {
		return err
	}
	if err := t.checkChild(k, c); err != nil {
		return err
	}
	if err := t.indexChild(k, oldChild(), c); err != nil {
		return err
	}
	return put(t.bucket(k.records), key, v)
}

func (t *tx) indexChild(k children, old, c child) error {
	if err := move(t.bucket(k.ids), old.extKey(), c.extKey(), idKey(c.id)); err != nil {
		return err
	}
	return move(t.bucket(k.secondary), old.secondaryKey(), c.secondaryKey(), nil)
}

// childByExternalID returns the location or contact of a customer with this
// externalId.
func childByExternalID[T any](t *tx, k children, tenantID string, customerID int64, externalID string) (*T, error) {
	id := t.bucket(k.ids).Get(childIndexKey(tenantID, customerID, externalID))
	if id == nil {
		return nil, connect.ErrNotFound
	}
	var v T
	if err := get(t.bucket(k.records), childKey(tenantID, customerID, id), &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// childrenBySecondary returns the locations or contacts of a customer under
// one key of the second index.
func childrenBySecondary[T any](t *tx, k children, tenantID string, customerID int64, key string) ([]T, error) {
	if key == "" {
		return nil, nil
	}
	return indexed[T](t.bucket(k.secondary), t.bucket(k.records), childIndexKey(tenantID, customerID, key),
		func(id []byte) []byte { return childKey(tenantID, customerID, id) })
}

// childrenOf returns every location or contact of a customer.
func childrenOf[T any](t *tx, k children, tenantID string, customerID int64) ([]T, error) {
	var list []T
	err := scan(t.bucket(k.records), customerKey(tenantID, customerID), func(_, data []byte) (bool, error) {
		var v T
		err := json.Unmarshal(data, &v)
		list = append(list, v)
		return true, errors.Wrapf(err, "decoding a %s", k.what)
	})
	return list, err
}

func (t *tx) CreateLocation(l *store.CustomerLocation) error {
	return t.createChild(locations, locationChild(l), func(id int64) (child, any) {
		l.ID = id
		return locationChild(l), l
	})
}

func (t *tx) UpdateLocation(l *store.CustomerLocation) error {
	var old store.CustomerLocation
	return t.updateChild(locations, locationChild(l), l, &old, func() child { return locationChild(&old) })
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
	var old store.CustomerContact
	return t.updateChild(contacts, contactChild(c), c, &old, func() child { return contactChild(&old) })
}

// checkContactLocation refuses a contact tied to a location of another
// customer, which mapping would then report as the wrong place.
func (t *tx) checkContactLocation(c *store.CustomerContact) error {
	if c.LocationID == nil || t.bucket(bucketLocations).Get(childKey(c.TenantID, c.CustomerID, idKey(*c.LocationID))) != nil {
		return nil
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
	// Decoding over the defaults keeps a setting added later on for tenants
	// whose stored settings predate it.
	s := store.DefaultMappingSettings()
	err := get(t.bucket(bucketMappingSettings), tuple(tenantID), &s)
	if errors.Is(err, connect.ErrNotFound) {
		return store.DefaultMappingSettings(), nil
	}
	return s, err
}

func (t *tx) PutMappingSettings(tenantID string, s store.MappingSettings) error {
	return put(t.bucket(bucketMappingSettings), tuple(tenantID), s)
}
