package mapping

import (
	"context"
	"strings"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Config configures a Service. Zero values take the documented defaults.
type Config struct {
	// Store keeps the customer records and settings. Required.
	Store store.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Service is the host application's side of customer mapping: it reads and
// changes a tenant's mapping settings and lists, reads, archives, blocks and
// reactivates the customers imports link to. Its callers are trusted (the host
// application, connectd's admin commands), so it takes a tenant id rather than
// an API caller. Errors: InvalidRequest (blank tenant), NotFound (an unknown
// customer id, or one of another tenant).
type Service struct {
	cfg Config
}

// New returns a Service on cfg.Store.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}
}

func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

// SettingsChange is a partial update of MappingSettings: nil fields keep their
// value.
type SettingsChange struct {
	AutoCreateCustomers *bool
	AutoCreateLocations *bool
	AutoCreateContacts  *bool
}

// Settings returns the tenant's mapping settings; everything is on for a
// tenant that never changed them.
func (s *Service) Settings(ctx context.Context, tenantID string) (store.MappingSettings, error) {
	if err := checkTenant(tenantID); err != nil {
		return store.MappingSettings{}, err
	}
	var settings store.MappingSettings
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		settings, err = tx.MappingSettings(tenantID)
		return err
	})
	return settings, err
}

// UpdateSettings applies change to the tenant's settings and returns the
// result. Imports that start afterwards use them.
func (s *Service) UpdateSettings(ctx context.Context, tenantID string, change SettingsChange) (store.MappingSettings, error) {
	if err := checkTenant(tenantID); err != nil {
		return store.MappingSettings{}, err
	}
	var settings store.MappingSettings
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) (err error) {
		if settings, err = tx.MappingSettings(tenantID); err != nil {
			return err
		}
		set(&settings.AutoCreateCustomers, change.AutoCreateCustomers)
		set(&settings.AutoCreateLocations, change.AutoCreateLocations)
		set(&settings.AutoCreateContacts, change.AutoCreateContacts)
		return tx.PutMappingSettings(tenantID, settings)
	})
	return settings, err
}

// CustomerQuery selects a page of customers. Nil Skip and Take take the
// defaults (0 and 50); values out of range are clamped (skip ≥ 0,
// 1 ≤ take ≤ 200), as for import jobs.
type CustomerQuery struct {
	Skip *int
	Take *int
}

// Page returns the skip and take the query asks for, defaulted and clamped.
func (q CustomerQuery) Page() (skip, take int) {
	return connect.JobQuery{Skip: q.Skip, Take: q.Take}.Page()
}

// CustomerList is one page of a tenant's customers, in id order (oldest first).
type CustomerList struct {
	Total     int              `json:"total"`
	Skip      int              `json:"skip"`
	Take      int              `json:"take"`
	Customers []store.Customer `json:"customers"`
}

// CustomerDetails is a customer with its locations and contacts.
type CustomerDetails struct {
	store.Customer
	Locations []store.CustomerLocation `json:"locations"`
	Contacts  []store.CustomerContact  `json:"contacts"`
}

// ListCustomers returns one page of the tenant's customers.
func (s *Service) ListCustomers(ctx context.Context, tenantID string, q CustomerQuery) (CustomerList, error) {
	if err := checkTenant(tenantID); err != nil {
		return CustomerList{}, err
	}
	list := CustomerList{}
	list.Skip, list.Take = q.Page()
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		list.Customers, list.Total, err = tx.Customers(tenantID, list.Skip, list.Take)
		return err
	})
	return list, err
}

// Customer returns a customer of the tenant with its locations and contacts.
func (s *Service) Customer(ctx context.Context, tenantID string, id int64) (CustomerDetails, error) {
	if err := checkTenant(tenantID); err != nil {
		return CustomerDetails{}, err
	}
	var d CustomerDetails
	err := s.cfg.Store.View(ctx, func(tx store.Tx) error {
		c, err := customer(tx, tenantID, id)
		if err != nil {
			return err
		}
		d.Customer = *c
		if d.Locations, err = tx.Locations(tenantID, id); err != nil {
			return err
		}
		d.Contacts, err = tx.Contacts(tenantID, id)
		return err
	})
	if d.Locations == nil {
		d.Locations = []store.CustomerLocation{}
	}
	if d.Contacts == nil {
		d.Contacts = []store.CustomerContact{}
	}
	return d, err
}

// ArchiveCustomer marks a customer Archived: imports still link it, flagged
// CustomerArchivedOrBlocked, but no longer change it or add to it.
func (s *Service) ArchiveCustomer(ctx context.Context, tenantID string, id int64) (store.Customer, error) {
	return s.setState(ctx, tenantID, id, store.CustomerArchived)
}

// BlockCustomer marks a customer Blocked, with the same effect on imports as
// archiving; the two states only tell the host's users apart why.
func (s *Service) BlockCustomer(ctx context.Context, tenantID string, id int64) (store.Customer, error) {
	return s.setState(ctx, tenantID, id, store.CustomerBlocked)
}

// ReactivateCustomer makes an archived or blocked customer Active again;
// reactivating an active one changes nothing and succeeds.
func (s *Service) ReactivateCustomer(ctx context.Context, tenantID string, id int64) (store.Customer, error) {
	return s.setState(ctx, tenantID, id, store.CustomerActive)
}

// setState moves a customer to state. Every move between the three states is
// allowed; moving to the current state is a no-op that keeps UpdatedAt.
func (s *Service) setState(ctx context.Context, tenantID string, id int64, state store.CustomerState) (store.Customer, error) {
	if err := checkTenant(tenantID); err != nil {
		return store.Customer{}, err
	}
	now := s.now()
	var c *store.Customer
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) (err error) {
		if c, err = customer(tx, tenantID, id); err != nil || c.State == state {
			return err
		}
		c.State, c.UpdatedAt = state, now
		return tx.UpdateCustomer(c)
	})
	if err != nil {
		return store.Customer{}, err
	}
	return *c, nil
}

// customer reads a customer of the tenant, with a NotFound that names it.
func customer(tx store.Tx, tenantID string, id int64) (*store.Customer, error) {
	c, err := tx.Customer(tenantID, id)
	if errors.Is(err, connect.ErrNotFound) {
		return nil, connect.Errorf(connect.CodeNotFound, "tenant %q has no customer %d", tenantID, id)
	}
	return c, err
}

func checkTenant(tenantID string) error {
	if strings.TrimSpace(tenantID) == "" {
		return connect.Errorf(connect.CodeInvalidRequest, "a tenant id is required")
	}
	return nil
}
