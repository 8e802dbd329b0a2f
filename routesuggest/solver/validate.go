package solver

import (
	"fmt"
	"slices"

	"github.com/cockroachdb/errors"
)

// invalid returns an error wrapping ErrInvalid that names the field.
func invalid(field, format string, args ...any) error {
	return errors.Newf("%w: %s: %s", ErrInvalid, field, fmt.Sprintf(format, args...))
}

// validateTeam checks everything that can be checked without reading
// travel times; compileTeam checks the travel times it reads.
func validateTeam(p TeamProblem) error {
	switch {
	case len(p.Vehicles) == 0:
		return invalid("Vehicles", "at least one vehicle is required")
	case p.Buffer < 0 || p.Buffer > MaxTime:
		return invalid("Buffer", "%d is outside [0, MaxTime]", p.Buffer)
	case p.Iterations < 0:
		return invalid("Iterations", "%d is negative", p.Iterations)
	case len(p.Stops) > MaxProblemStops:
		return invalid("Stops", "%d stops, more than MaxProblemStops (%d)", len(p.Stops), MaxProblemStops)
	}
	for t, travel := range p.Travels {
		if travel == nil {
			return invalid(travelField(p, t), "is nil")
		}
	}
	for k, v := range p.Vehicles {
		if err := validateVehicle(p, vehicleField(p, k), v); err != nil {
			return err
		}
	}
	for i, s := range p.Stops {
		if err := validateStop(fmt.Sprintf("Stops[%d]", i), s); err != nil {
			return err
		}
		if err := validateNode(p, fmt.Sprintf("Stops[%d].Node", i), s.Node, false); err != nil {
			return err
		}
	}
	return nil
}

// travelField names p.Travels[t] in errors.
func travelField(p TeamProblem, t int) string {
	if p.single {
		return "Travel"
	}
	return fmt.Sprintf("Travels[%d]", t)
}

// validateVehicle checks a vehicle's travel times, depots, shift, stop cap
// and break.
func validateVehicle(p TeamProblem, field string, v Vehicle) error {
	if v.Travel < 0 || v.Travel >= len(p.Travels) {
		return invalid(field+"Travel", "%d is not an index into Travels (%d)", v.Travel, len(p.Travels))
	}
	switch {
	case !inTimeRange(v.ShiftStart):
		return invalid(field+"ShiftStart", "%d is outside [-MaxTime, MaxTime]", v.ShiftStart)
	case !inTimeRange(v.ShiftEnd):
		return invalid(field+"ShiftEnd", "%d is outside [-MaxTime, MaxTime]", v.ShiftEnd)
	case v.ShiftEnd < v.ShiftStart:
		return invalid(field+"ShiftEnd", "%d is before ShiftStart %d", v.ShiftEnd, v.ShiftStart)
	case v.MaxStops < 0:
		return invalid(field+"MaxStops", "%d is negative", v.MaxStops)
	}
	if b := v.Break; b != nil {
		switch {
		case b.Duration <= 0 || b.Duration > MaxTime:
			return invalid(field+"Break.Duration", "%d is outside [1, MaxTime]", b.Duration)
		case !inTimeRange(b.Open) || !inTimeRange(b.Close):
			return invalid(field+"Break", "[%d, %d] is outside [-MaxTime, MaxTime]", b.Open, b.Close)
		case b.Close < b.Open:
			return invalid(field+"Break.Close", "%d is before Open %d", b.Close, b.Open)
		}
	}
	if err := validateNode(p, field+"Start", v.Start, true, v.Travel); err != nil {
		return err
	}
	return validateNode(p, field+"End", v.End, true, v.Travel)
}

// validateNode checks that node is a usable index into the travel times
// (those of travels, every one when none is named); a depot may be -1.
func validateNode(p TeamProblem, field string, node int, depot bool, travels ...int) error {
	if node < 0 && !(depot && node == -1) {
		return invalid(field, "node %d is negative", node)
	}
	if len(travels) == 0 {
		for t := range p.Travels {
			travels = append(travels, t)
		}
	}
	for _, t := range travels {
		if n := nodeCount(p.Travels[t]); n >= 0 && node >= n {
			return invalid(field, "node %d is outside the travel times (%d nodes)", node, n)
		}
	}
	return nil
}

// nodeCount returns the number of nodes of the travel times, or -1 when the
// implementation does not say.
func nodeCount(t TravelTimes) int {
	if l, ok := t.(interface{ Len() int }); ok {
		return l.Len()
	}
	return -1
}

// validateStop checks one stop's service, value and windows.
func validateStop(field string, s Stop) error {
	switch {
	case s.Service < 0 || s.Service > MaxTime:
		return invalid(field+".Service", "%d is outside [0, MaxTime]", s.Service)
	case s.Value <= 0 || s.Value > MaxTime:
		return invalid(field+".Value", "%d is outside [1, MaxTime]", s.Value)
	case s.Fixed && len(s.Windows) == 0:
		return invalid(field+".Windows", "a fixed stop needs at least one window")
	}
	for i, w := range s.Windows {
		f := fmt.Sprintf("%s.Windows[%d]", field, i)
		if !inTimeRange(w.Open) || !inTimeRange(w.Close) {
			return invalid(f, "[%d, %d] is outside [-MaxTime, MaxTime]", w.Open, w.Close)
		}
		if w.Close < w.Open {
			return invalid(f, "Close %d is before Open %d", w.Close, w.Open)
		}
	}
	return validateOverlap(field, s.Windows)
}

// validateOverlap rejects overlapping windows: they are almost always a
// mistake in the caller's data, and a stop's windows are meant to be
// alternatives.
func validateOverlap(field string, ws []Window) error {
	sorted := slices.Clone(ws)
	slices.SortFunc(sorted, func(a, b Window) int { return cmpInt64(a.Open, b.Open) })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Open <= sorted[i-1].Close {
			return invalid(field+".Windows", "windows [%d, %d] and [%d, %d] overlap",
				sorted[i-1].Open, sorted[i-1].Close, sorted[i].Open, sorted[i].Close)
		}
	}
	return nil
}

func inTimeRange(t int64) bool { return t >= -MaxTime && t <= MaxTime }

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
