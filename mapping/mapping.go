// Package mapping links the customer, location and contact of an imported
// target to the tenant's customer records (specification rule 9, scope
// customers.map). The importer runs a Mapper inside its transaction, item by
// item in order, so a later item sees the records an earlier one created and a
// failed import leaves no record behind; host applications manage the records
// and the tenant's settings through Service.
//
// # Matching
//
// Everything happens within the caller's tenant: nothing ever links across
// tenants. Identifiers (externalIds, customer numbers) match exactly; a blank
// one counts as absent.
//
//   - Customer: by externalId within the target's source system (the same
//     externalId from two source systems names two customers); else by
//     customerNumber: several customers with that number give
//     AmbiguousCustomerNumber and no link. A customer record that carries an
//     externalId is that source record and no other: a target whose customer
//     has a different externalId from the same source system is never linked
//     to it by number, but gets a customer of its own (so from then on the
//     number alone is ambiguous). A customer found by number that has no
//     externalId yet adopts the target's. No match: a new customer when the
//     tenant's AutoCreateCustomers is on, else CustomerAutoCreateDisabled.
//   - Location, under the linked customer: by externalId; else by address
//     (store.AddressKey: street, postal code, city and country, case and white
//     space folded; a street and a postal code or city are needed). When the
//     target's location has an externalId, an address match only counts for a
//     location without one, which adopts it: two externalIds name two places,
//     even in one building. No match: created, or LocationAutoCreateDisabled.
//   - Contact, under the linked customer: by externalId; else by e-mail (case
//     folded), with the same rule for externalIds. No match: created and tied to
//     the linked location, or ContactAutoCreateDisabled.
//
// A customer, location or contact that has none of its identifiers (customer:
// externalId or customerNumber; location: externalId or address; contact:
// externalId or e-mail) cannot be matched, and creating it would make a
// duplicate on every import, so that step fails with an entry in errors. A
// location or contact sent without a customer fails too: there is no customer
// to look it up under. When a customer is sent but none is linked (ambiguous
// number, auto-create off), location and contact are left alone and the
// customer's warning says why.
//
// # Updates
//
// A matched record takes the target's values for the fields the target sends
// (not null) where they differ; fields the target leaves null keep their
// stored values, so a target that names only a customer's externalId does not
// wipe the record. Address parts and e-mail addresses that differ only in case
// and white space are not changes, so two sources that spell them differently
// do not rewrite the record on every import. A contact without a location is
// tied to the linked one.
//
// An archived or blocked customer is still linked, so the target keeps the
// reference, and flagged CustomerArchivedOrBlocked; but an import never changes
// it: its fields are not updated, and no location or contact is created or
// updated under it (existing ones are still linked).
//
// # Warnings
//
//   - LocationMissingCoordinates: the linked location has no latitude and
//     longitude, so it cannot fill a target's coordinates.
//   - TargetAddressDiffersFromCustomerLocation: the target's own address is
//     another place than the linked location. When both have coordinates, that
//     means more than SamePlaceMeters apart (coordinates win over spelling:
//     "Hauptstr." and "Hauptstraße" at one spot are one place); otherwise, when
//     both have a street and a postal code or city, that the address parts both
//     give differ once folded. With less to compare there is no warning.
//   - ContactLocationMismatch: the matched contact belongs to another location
//     of the customer than the linked one. The contact is not moved.
//
// # Status
//
// Each step (customer, location, contact) ends as Mapped (linked, unchanged),
// Updated, Created, Warning or Failed, and the item's status is the strongest
// of its steps:
//
//	Failed > Warning > Created > Updated > Mapped
//
// so the status never hides an error, a warning is never lost behind a
// creation, and Mapped means nothing changed. Warnings and errors are listed
// whatever the status, and the linked ids are reported even when a later step
// failed. NotApplicable and Skipped are decided before mapping runs (Unmapped):
// NotApplicable when the target has no customer, location or contact;
// Skipped when it has, but mapping did not run: the caller lacks
// customers.map, the item was rejected, or it is a cancel (which applies no
// data). Mapping problems never reject an item; a store fault fails the whole
// import, as for targets.
//
// # Effective values
//
// A target keeps its payload as sent; the values planning uses are computed by
// Effective, the one place this rule lives (DECISIONS.md "Imports"):
// coordinates from the target's address, else its location, else the linked
// customer location; estimated work minutes from planning, else the location's
// default, else the linked location's, else DefaultEstimatedWorkMinutes;
// priority from planning, else the location's default, else the linked
// location's. The stored target also keeps the linked ids (Outcome.Link);
// they belong to the payload stored last, so an update that is not mapped
// (NotApplicable or Skipped) leaves the target linked to nothing.
package mapping

import (
	"strings"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// precedence orders the statuses from strongest to weakest.
var precedence = []connect.CustomerMappingStatus{
	connect.MappingFailed, connect.MappingWarning, connect.MappingCreated, connect.MappingUpdated,
	connect.MappingMapped, connect.MappingSkipped, connect.MappingNotApplicable,
}

// Combine returns the strongest of statuses by the package's precedence
// (Failed > Warning > Created > Updated > Mapped > Skipped > NotApplicable);
// NotApplicable when there are none. Unknown values count for nothing.
func Combine(statuses ...connect.CustomerMappingStatus) connect.CustomerMappingStatus {
	best := len(precedence) - 1
	for _, s := range statuses {
		for rank, p := range precedence[:best] {
			if s == p {
				best = rank
				break
			}
		}
	}
	return precedence[best]
}

// HasData reports whether a target has anything to map: a customer, location
// or contact.
func HasData(t *connect.InboundTarget) bool {
	return t.Customer != nil || t.Location != nil || t.Contact != nil
}

// Unmapped is the outcome of an item mapping does not run on: NotApplicable
// when the target has nothing to map, else Skipped.
func Unmapped(t *connect.InboundTarget) Outcome {
	status := connect.MappingNotApplicable
	if HasData(t) {
		status = connect.MappingSkipped
	}
	return Outcome{Result: connect.InboundCustomerMappingResult{
		Status: status, Warnings: []connect.CustomerMappingWarning{}, Errors: []string{},
	}}
}

// Outcome is what mapping did for one item.
type Outcome struct {
	// Result is the item's customerMapping.
	Result connect.InboundCustomerMappingResult
	// Location is the linked customer location, nil when none; its defaults
	// fill what the target leaves empty.
	Location *store.CustomerLocation
}

// Link records the outcome on the target about to be stored: the linked ids
// and the effective values of t.Data with the linked location.
func (o Outcome) Link(t *store.Target) {
	t.CustomerID = clone(o.Result.CustomerID)
	t.LocationID = clone(o.Result.CustomerLocationID)
	t.ContactID = clone(o.Result.CustomerContactID)
	t.Effective = Effective(&t.Data, o.Location)
}

// given returns p unless it is nil or blank: an identifier of only white space
// identifies nothing.
func given(p *string) *string {
	if p == nil || strings.TrimSpace(*p) == "" {
		return nil
	}
	return clone(p)
}

func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
