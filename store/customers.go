package store

import (
	"strings"
	"time"
)

// CustomerTx stores the customer records that customer mapping links targets
// to: customers, their locations and contacts, and each tenant's mapping
// settings. Every lookup is indexed; none scans the records of a tenant.
//
// Identifiers match exactly (externalIds, customer numbers); addresses and
// e-mail addresses match by their keys (AddressKey, EmailKey), so case and white
// space do not count. Writes that would break a unique index are refused with
// connect.ErrInvalidRequest before anything is written, so the transaction can
// go on.
type CustomerTx interface {
	// CreateCustomer stores a new customer and sets its ID. A customer with the
	// same (tenant, source system, externalId) is refused.
	CreateCustomer(c *Customer) error
	// UpdateCustomer replaces an existing customer of c.TenantID, found by its
	// ID, and moves its index entries when its externalId, source system or
	// customer number changed.
	UpdateCustomer(c *Customer) error
	// Customer returns a customer of a tenant by id.
	Customer(tenantID string, id int64) (*Customer, error)
	// CustomerByExternalID returns the customer a source system knows by
	// externalID.
	CustomerByExternalID(tenantID, sourceSystem, externalID string) (*Customer, error)
	// CustomersByNumber returns every customer of a tenant with this customer
	// number, in id order: more than one means the number is ambiguous. None is
	// an empty list, not an error.
	CustomersByNumber(tenantID, customerNumber string) ([]Customer, error)
	// Customers returns one page of a tenant's customers in id order and the
	// number of all of them. Its cost grows with skip + take only.
	Customers(tenantID string, skip, take int) ([]Customer, int, error)

	// CreateLocation stores a new location of an existing customer
	// (connect.ErrNotFound otherwise) and sets its ID. A second location of
	// the customer with the same externalId is refused.
	CreateLocation(l *CustomerLocation) error
	// UpdateLocation replaces an existing location, found by tenant, customer
	// and ID, and moves its index entries when its externalId or address
	// changed.
	UpdateLocation(l *CustomerLocation) error
	// LocationByExternalID returns the location of a customer with this
	// externalId.
	LocationByExternalID(tenantID string, customerID int64, externalID string) (*CustomerLocation, error)
	// LocationsByAddress returns the locations of a customer whose AddressKey
	// is addressKey, in id order. An empty key matches nothing.
	LocationsByAddress(tenantID string, customerID int64, addressKey string) ([]CustomerLocation, error)
	// Locations returns every location of a customer, in id order.
	Locations(tenantID string, customerID int64) ([]CustomerLocation, error)

	// CreateContact stores a new contact of an existing customer
	// (connect.ErrNotFound otherwise) and sets its ID. Its LocationID, when
	// set, must name a location of the same customer (connect.ErrInvalidRequest
	// otherwise). A second contact of the customer with the same externalId is
	// refused.
	CreateContact(c *CustomerContact) error
	// UpdateContact replaces an existing contact, found by tenant, customer and
	// ID, and moves its index entries when its externalId or e-mail changed.
	UpdateContact(c *CustomerContact) error
	// ContactByExternalID returns the contact of a customer with this
	// externalId.
	ContactByExternalID(tenantID string, customerID int64, externalID string) (*CustomerContact, error)
	// ContactsByEmail returns the contacts of a customer whose e-mail has the
	// EmailKey of email, in id order. An empty e-mail matches nothing.
	ContactsByEmail(tenantID string, customerID int64, email string) ([]CustomerContact, error)
	// Contacts returns every contact of a customer, in id order.
	Contacts(tenantID string, customerID int64) ([]CustomerContact, error)

	// MappingSettings returns a tenant's mapping settings;
	// DefaultMappingSettings when they were never set.
	MappingSettings(tenantID string) (MappingSettings, error)
	// PutMappingSettings stores a tenant's mapping settings.
	PutMappingSettings(tenantID string, s MappingSettings) error
}

// CustomerState says whether imports may change a customer.
type CustomerState string

// Customer states. Imports still link an archived or blocked customer, for
// reference, but never change it or add locations or contacts to it.
const (
	CustomerActive   CustomerState = "Active"
	CustomerArchived CustomerState = "Archived"
	CustomerBlocked  CustomerState = "Blocked"
)

// Customer is a customer record of a tenant. SourceSystem and ExternalID are the
// identity a source system gave it (ExternalID is nil for a customer known only
// by its number); CustomerNumber lives here and never on a target.
type Customer struct {
	ID             int64         `json:"id"`
	TenantID       string        `json:"tenantId"`
	SourceSystem   string        `json:"sourceSystem"`
	ExternalID     *string       `json:"externalId"`
	CustomerNumber *string       `json:"customerNumber"`
	Name           string        `json:"name"`
	Type           string        `json:"type"`
	Industry       string        `json:"industry"`
	Email          string        `json:"email"`
	Phone          string        `json:"phone"`
	Website        string        `json:"website"`
	State          CustomerState `json:"state"`
	CreatedAt      time.Time     `json:"createdAt"`
	UpdatedAt      time.Time     `json:"updatedAt"`
}

// CustomerLocation is a place of a customer where work happens, with the
// defaults that fill what a target at this place leaves empty.
type CustomerLocation struct {
	ID                          int64     `json:"id"`
	TenantID                    string    `json:"tenantId"`
	CustomerID                  int64     `json:"customerId"`
	ExternalID                  *string   `json:"externalId"`
	Name                        string    `json:"name"`
	Type                        string    `json:"type"`
	Street                      string    `json:"street"`
	PostalCode                  string    `json:"postalCode"`
	City                        string    `json:"city"`
	Region                      string    `json:"region"`
	Country                     string    `json:"country"`
	Latitude                    *float64  `json:"latitude"`
	Longitude                   *float64  `json:"longitude"`
	DefaultEstimatedWorkMinutes *int      `json:"defaultEstimatedWorkMinutes"`
	DefaultPriority             string    `json:"defaultPriority"`
	AccessNotes                 string    `json:"accessNotes"`
	ParkingNotes                string    `json:"parkingNotes"`
	CreatedAt                   time.Time `json:"createdAt"`
	UpdatedAt                   time.Time `json:"updatedAt"`
}

// AddressKey is the key the location is found by when no externalId matches.
func (l *CustomerLocation) AddressKey() string {
	return AddressKey(l.Street, l.PostalCode, l.City, l.Country)
}

// HasCoordinates reports whether the location has both latitude and longitude.
func (l *CustomerLocation) HasCoordinates() bool {
	return l.Latitude != nil && l.Longitude != nil
}

// CustomerContact is a person at a customer, optionally tied to one of its
// locations.
type CustomerContact struct {
	ID                     int64     `json:"id"`
	TenantID               string    `json:"tenantId"`
	CustomerID             int64     `json:"customerId"`
	LocationID             *int64    `json:"locationId"`
	ExternalID             *string   `json:"externalId"`
	FirstName              string    `json:"firstName"`
	LastName               string    `json:"lastName"`
	DisplayName            string    `json:"displayName"`
	Role                   string    `json:"role"`
	Department             string    `json:"department"`
	Email                  string    `json:"email"`
	Phone                  string    `json:"phone"`
	Mobile                 string    `json:"mobile"`
	PreferredContactMethod string    `json:"preferredContactMethod"`
	CreatedAt              time.Time `json:"createdAt"`
	UpdatedAt              time.Time `json:"updatedAt"`
}

// MappingSettings are a tenant's choices for customer mapping: whether an import
// may create a customer, location or contact that matches no existing record.
type MappingSettings struct {
	AutoCreateCustomers bool `json:"autoCreateCustomers"`
	AutoCreateLocations bool `json:"autoCreateLocations"`
	AutoCreateContacts  bool `json:"autoCreateContacts"`
}

// DefaultMappingSettings are the settings of a tenant that never set any:
// everything may be created, so a first import links every item.
func DefaultMappingSettings() MappingSettings {
	return MappingSettings{AutoCreateCustomers: true, AutoCreateLocations: true, AutoCreateContacts: true}
}

// AddressKey folds an address into the key locations are matched by: each part
// lower-cased with its white space trimmed and collapsed to single spaces. It is
// "" (matching nothing) unless the street and the postal code or city are
// given, because a place is not identified by a city alone.
func AddressKey(street, postalCode, city, country string) string {
	street, postalCode, city, country = Fold(street), Fold(postalCode), Fold(city), Fold(country)
	if street == "" || (postalCode == "" && city == "") {
		return ""
	}
	// The unit separator cannot be typed into a form, so parts never run
	// into each other.
	return street + "\x1f" + postalCode + "\x1f" + city + "\x1f" + country
}

// EmailKey folds an e-mail address for matching: trimmed and lower-cased.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Fold lower-cases s, trims its white space and collapses the rest to single
// spaces: how the parts of an address are compared.
func Fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
