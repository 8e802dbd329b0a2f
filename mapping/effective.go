package mapping

import (
	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// DefaultEstimatedWorkMinutes is the tenant default work time of a target that
// names none, and whose location has no default either (DECISIONS.md).
const DefaultEstimatedWorkMinutes = 30

// Effective returns the values planning uses for target t linked to location
// (nil: none): t's own values first, then its location's, then the linked
// location's defaults, then the tenant defaults. It is the one place that
// order is written down; the MissingCoordinates warning and the route
// optimizer both go by its result.
func Effective(t *connect.InboundTarget, linked *store.CustomerLocation) store.TargetEffective {
	e := store.TargetEffective{EstimatedWorkMinutes: DefaultEstimatedWorkMinutes}
	e.Latitude, e.Longitude = coordinates(t, linked)
	var planning connect.InboundTargetPlanning
	if t.Planning != nil {
		planning = *t.Planning
	}
	var location connect.InboundTargetLocation
	if t.Location != nil {
		location = *t.Location
	}
	var stored store.CustomerLocation
	if linked != nil {
		stored = *linked
	}
	if minutes := first(planning.EstimatedWorkMinutes, location.DefaultEstimatedWorkMinutes, stored.DefaultEstimatedWorkMinutes); minutes != nil {
		e.EstimatedWorkMinutes = *minutes
	}
	e.Priority = clone(first(given(planning.Priority), given(location.DefaultPriority), given(&stored.DefaultPriority)))
	return e
}

// coordinates returns the first complete pair of the address, the target's
// location and the linked location; a pair is never mixed from two sources.
func coordinates(t *connect.InboundTarget, linked *store.CustomerLocation) (lat, lon *float64) {
	switch {
	case t.Address != nil && t.Address.Latitude != nil && t.Address.Longitude != nil:
		return clone(t.Address.Latitude), clone(t.Address.Longitude)
	case t.Location != nil && t.Location.Latitude != nil && t.Location.Longitude != nil:
		return clone(t.Location.Latitude), clone(t.Location.Longitude)
	case linked != nil && linked.HasCoordinates():
		return clone(linked.Latitude), clone(linked.Longitude)
	}
	return nil, nil
}

// first returns the first value that is not nil.
func first[T any](values ...*T) *T {
	for _, v := range values {
		if v != nil {
			return v
		}
	}
	return nil
}
