package mapping

import (
	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// The items of a batch often share a customer, so a Mapper remembers what it
// read and decodes each record once. It forgets everything before it writes,
// so it never answers with a record older than the store's; in the steady
// state of daily imports (all records known, nothing changed) it never writes.

// lookup names one read of the store.
type lookup struct {
	what       string
	customerID int64
	source     string
	value      string
}

// read returns fetch's answer for key, calling fetch only the first time since
// the Mapper last wrote. A missing record is the zero value, not an error.
func read[T any](m *Mapper, key lookup, fetch func() (T, error)) (T, error) {
	if v, ok := m.seen[key]; ok {
		return v.(T), nil
	}
	v, err := fetch()
	if errors.Is(err, connect.ErrNotFound) {
		var zero T
		v, err = zero, nil
	}
	if err == nil {
		m.seen[key] = v
	}
	return v, err
}

// forget drops every remembered read; it runs before each write, because a
// write changes records and indexes (and the records read may be the ones
// being changed).
func (m *Mapper) forget() { clear(m.seen) }

func (m *Mapper) customerByExternalID(source, externalID string) (*store.Customer, error) {
	return read(m, lookup{"customer", 0, source, externalID}, func() (*store.Customer, error) {
		return m.tx.CustomerByExternalID(m.tenantID, source, externalID)
	})
}

func (m *Mapper) customersByNumber(number string) ([]store.Customer, error) {
	return read(m, lookup{"number", 0, "", number}, func() ([]store.Customer, error) {
		return m.tx.CustomersByNumber(m.tenantID, number)
	})
}

func (m *Mapper) locationByExternalID(customerID int64, externalID string) (*store.CustomerLocation, error) {
	return read(m, lookup{"location", customerID, "", externalID}, func() (*store.CustomerLocation, error) {
		return m.tx.LocationByExternalID(m.tenantID, customerID, externalID)
	})
}

func (m *Mapper) locationsByAddress(customerID int64, key string) ([]store.CustomerLocation, error) {
	return read(m, lookup{"address", customerID, "", key}, func() ([]store.CustomerLocation, error) {
		return m.tx.LocationsByAddress(m.tenantID, customerID, key)
	})
}

func (m *Mapper) contactByExternalID(customerID int64, externalID string) (*store.CustomerContact, error) {
	return read(m, lookup{"contact", customerID, "", externalID}, func() (*store.CustomerContact, error) {
		return m.tx.ContactByExternalID(m.tenantID, customerID, externalID)
	})
}

func (m *Mapper) contactsByEmail(customerID int64, email string) ([]store.CustomerContact, error) {
	return read(m, lookup{"email", customerID, "", store.EmailKey(email)}, func() ([]store.CustomerContact, error) {
		return m.tx.ContactsByEmail(m.tenantID, customerID, email)
	})
}
