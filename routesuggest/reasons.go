package routesuggest

import (
	"fmt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/solver"
)

// shiftSpan is a technician's working day in solver time.
type shiftSpan struct{ start, end int64 }

// unroutedReason turns the solver's reason for a stop left out into the
// contract's, telling apart, for a stop no technician could serve even
// alone, work longer than every working day, windows outside every working
// day, and windows no technician can reach in time.
func unroutedReason(r solver.Reason, stop solver.Stop, shifts []shiftSpan) connect.ExclusionReason {
	switch r {
	case solver.NoRoom:
		return connect.ExcludedDoesNotFit
	case solver.MaxStops:
		return connect.ExcludedMaxStopsReached
	}
	longer, outside := true, len(stop.Windows) > 0
	for _, sh := range shifts {
		if stop.Service <= sh.end-sh.start {
			longer = false
		}
		for _, w := range stop.Windows {
			if w.Open <= sh.end-stop.Service && w.Close >= sh.start {
				outside = false
			}
		}
	}
	switch {
	case longer:
		return connect.ExcludedLongerThanShift
	case outside:
		return connect.ExcludedOutsideShift
	}
	return connect.ExcludedWindowUnreachable
}

// exclusionMessage says in words why a target is not on a route, and what
// would help. team words it for a route plan, where several technicians and
// priorities are weighed.
func exclusionMessage(reason connect.ExclusionReason, team bool, workMinutes int) string {
	who := "the technician"
	if team {
		who = "any technician"
	}
	switch reason {
	case connect.ExcludedRejected:
		return "the import rejected this item, so there is no target to plan: correct it and import it again"
	case connect.ExcludedCancelled:
		return "the target is cancelled"
	case connect.ExcludedMissingCoordinates:
		return "the target has no coordinates: give its address or location a latitude and longitude"
	case connect.ExcludedOtherRouteDate:
		return "its route date, time window or due time is on another day"
	case connect.ExcludedNoRoadAccess:
		return "the road network does not reach it (too far from a road, or cut off from the start and end of the day): check its coordinates"
	case connect.ExcludedOutsideShift:
		return fmt.Sprintf("its time window or due time lies outside the working hours of %s: widen the window or plan it on another day", who)
	case connect.ExcludedWindowUnreachable:
		return fmt.Sprintf("%s cannot reach it within its time window from the start of the day, or get back by its end: widen the window or plan a technician who starts nearer", capitalized(who))
	case connect.ExcludedLongerThanShift:
		return fmt.Sprintf("its %d minutes of work take longer than the working day of %s: split the work", workMinutes, who)
	case connect.ExcludedDoesNotFit:
		if team {
			return "the day is full with targets of equal or higher priority: add a technician, raise its priority or plan it on another day"
		}
		return "the day is full with more valuable targets: raise its priority, or plan it on another day or with another technician"
	case connect.ExcludedMaxStopsReached:
		return "it would fit in time, but the routes that could take it already have maxStops stops: raise maxStops"
	}
	return string(reason)
}

// capitalized is s with its first letter upper case.
func capitalized(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
