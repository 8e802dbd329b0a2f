package importer

import (
	"fmt"
	"time"

	"github.com/integration-connect/connect"
)

// prepare validates a decoded item, normalizes it and works out the warnings
// about its content. It runs outside the store transaction.
func prepare(it *item) {
	if it.problem != "" {
		return
	}
	if err := connect.Validate(&it.target); err != nil {
		it.problem = connect.AsError(err).Message
		return
	}
	normalizeTimes(&it.target)
	it.contentWarnings = contentWarnings(&it.target)
}

// normalizeTimes stores every date-time in UTC, whatever offset it came with.
func normalizeTimes(t *connect.InboundTarget) {
	if p := t.Planning; p != nil {
		for _, ts := range []**time.Time{&p.DueAtUtc, &p.TimeWindowStartUtc, &p.TimeWindowEndUtc} {
			if *ts != nil {
				utc := (*ts).UTC()
				*ts = &utc
			}
		}
	}
}

// contentWarnings are the warnings about a target's data that need no store.
// MissingCoordinates is not among them: a linked customer location may supply
// the coordinates, so it is judged when the target is stored (storedWarnings).
func contentWarnings(t *connect.InboundTarget) []connect.InboundImportWarning {
	var warnings []connect.InboundImportWarning
	if p := t.Planning; p != nil && windowMissesRouteDate(p) {
		warnings = append(warnings, connect.InboundImportWarning{
			Code: connect.WarningTimeWindowOutsideRouteDate,
			Message: fmt.Sprintf("planning.timeWindowStartUtc..timeWindowEndUtc does not touch planning.routeDate %s in any time zone",
				p.RouteDate),
		})
	}
	return warnings
}

// The widest offsets from UTC in use: a route date spans from its midnight at
// UTC+14 to its next midnight at UTC-12.
const (
	earliestOffset = 14 * time.Hour
	latestOffset   = 12 * time.Hour
)

// windowMissesRouteDate reports whether the time window cannot overlap the
// route date wherever the technician works. Without a route date or a window
// there is nothing to compare.
func windowMissesRouteDate(p *connect.InboundTargetPlanning) bool {
	if p.RouteDate == nil || (p.TimeWindowStartUtc == nil && p.TimeWindowEndUtc == nil) {
		return false
	}
	dayStart := p.RouteDate.In(time.UTC).Add(-earliestOffset)
	dayEnd := p.RouteDate.In(time.UTC).Add(24*time.Hour + latestOffset)
	if p.TimeWindowStartUtc != nil && !p.TimeWindowStartUtc.Before(dayEnd) {
		return true
	}
	return p.TimeWindowEndUtc != nil && !p.TimeWindowEndUtc.After(dayStart)
}
