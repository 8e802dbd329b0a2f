package mapping

import (
	"math"
	"strings"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// SamePlaceMeters is how far apart two coordinates may be and still be one
// place: more than geocoding noise and the size of a large building, less than
// the next block.
const SamePlaceMeters = 100

// mapLocation links the target's location under the linked customer.
func (m *Mapper) mapLocation(r *result, in *connect.InboundTargetLocation, address *connect.InboundTargetAddress) error {
	if in == nil {
		return nil
	}
	externalID, key := given(in.ExternalID), store.AddressKey(str(in.Street), str(in.PostalCode), str(in.City), str(in.Country))
	if externalID == nil && key == "" {
		r.fail("location has neither externalId nor an address (street with postal code or city), so it cannot be matched to a customer location")
		return nil
	}
	l, err := m.findLocation(r.customer.ID, externalID, key)
	if err != nil {
		return err
	}
	switch {
	case l != nil && r.writable():
		err = m.updateLocation(r, l, in, externalID)
	case l != nil:
		r.note(connect.MappingMapped)
	case !r.writable():
		// Nothing is added to an archived or blocked customer; its warning says so.
	case !m.settings.AutoCreateLocations:
		r.warn(connect.MappingLocationAutoCreateDisabled)
	default:
		l, err = m.createLocation(r, in, externalID)
	}
	if err != nil || l == nil {
		return err
	}
	r.location = l
	checkLocation(r, l, address)
	return nil
}

// findLocation looks the location up by externalId, else by address; an
// address match with another externalId is another place.
func (m *Mapper) findLocation(customerID int64, externalID *string, key string) (*store.CustomerLocation, error) {
	if externalID != nil {
		l, err := m.locationByExternalID(customerID, *externalID)
		if l != nil || err != nil {
			return l, err
		}
	}
	list, err := m.locationsByAddress(customerID, key)
	for i := range list {
		if externalID == nil || list[i].ExternalID == nil {
			return &list[i], err
		}
	}
	return nil, err
}

func (m *Mapper) createLocation(r *result, in *connect.InboundTargetLocation, externalID *string) (*store.CustomerLocation, error) {
	l := &store.CustomerLocation{
		TenantID: m.tenantID, CustomerID: r.customer.ID, ExternalID: externalID, CreatedAt: m.now, UpdatedAt: m.now,
	}
	applyLocation(l, in)
	m.forget()
	if err := m.tx.CreateLocation(l); err != nil {
		return nil, r.saved("location", err)
	}
	r.note(connect.MappingCreated)
	return l, nil
}

func (m *Mapper) updateLocation(r *result, l *store.CustomerLocation, in *connect.InboundTargetLocation, externalID *string) error {
	changed := applyLocation(l, in)
	if l.ExternalID == nil && externalID != nil {
		l.ExternalID = externalID
		changed = true
	}
	return m.save(r, "location", changed, &l.UpdatedAt, func() error { return m.tx.UpdateLocation(l) })
}

// applyLocation copies the sent fields onto l and reports whether any changed.
func applyLocation(l *store.CustomerLocation, in *connect.InboundTargetLocation) bool {
	return anyOf(
		set(&l.Name, in.Name), set(&l.Type, in.Type),
		setFolded(&l.Street, in.Street, store.Fold), setFolded(&l.PostalCode, in.PostalCode, store.Fold),
		setFolded(&l.City, in.City, store.Fold), set(&l.Region, in.Region), setFolded(&l.Country, in.Country, store.Fold),
		setPtr(&l.Latitude, in.Latitude), setPtr(&l.Longitude, in.Longitude),
		setPtr(&l.DefaultEstimatedWorkMinutes, in.DefaultEstimatedWorkMinutes),
		set(&l.DefaultPriority, in.DefaultPriority),
		set(&l.AccessNotes, in.AccessNotes), set(&l.ParkingNotes, in.ParkingNotes),
	)
}

// checkLocation warns about a linked location that cannot serve the target
// as it is.
func checkLocation(r *result, l *store.CustomerLocation, address *connect.InboundTargetAddress) {
	if !l.HasCoordinates() {
		r.warn(connect.MappingLocationMissingCoordinates)
	}
	if address != nil && differentPlace(address, l) {
		r.warn(connect.MappingTargetAddressDiffersFromCustomerLocation)
	}
}

// differentPlace reports whether an address is another place than a location:
// by distance when both have coordinates, else by the address parts both give.
func differentPlace(a *connect.InboundTargetAddress, l *store.CustomerLocation) bool {
	if a.Latitude != nil && a.Longitude != nil && l.HasCoordinates() {
		return distanceMeters(*a.Latitude, *a.Longitude, *l.Latitude, *l.Longitude) > SamePlaceMeters
	}
	// Comparing only the parts both sides give keeps an address without a
	// country at the location that has one; AddressKey refuses too little to
	// compare (no street, or neither postal code nor city).
	street, street2 := common(str(a.Street), l.Street)
	postal, postal2 := common(str(a.PostalCode), l.PostalCode)
	city, city2 := common(str(a.City), l.City)
	country, country2 := common(str(a.Country), l.Country)
	ka, kl := store.AddressKey(street, postal, city, country), store.AddressKey(street2, postal2, city2, country2)
	return ka != "" && kl != "" && ka != kl
}

// common blanks both parts unless both are given.
func common(a, b string) (string, string) {
	if strings.TrimSpace(a) == "" || strings.TrimSpace(b) == "" {
		return "", ""
	}
	return a, b
}

// earthRadiusMeters is the mean radius of the earth (IUGG).
const earthRadiusMeters = 6371008.8

// distanceMeters is the great-circle distance between two points (haversine).
func distanceMeters(lat1, lon1, lat2, lon2 float64) float64 {
	rad := math.Pi / 180
	dLat, dLon := (lat2-lat1)*rad, (lon2-lon1)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadiusMeters * math.Asin(math.Sqrt(min(h, 1)))
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
