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

// validate checks everything that can be checked without reading travel
// times; compile checks the travel times it reads.
func validate(p Problem) error {
	if p.Travel == nil {
		return invalid("Travel", "is nil")
	}
	if err := validateNodes(p); err != nil {
		return err
	}
	if err := validateScalars(p); err != nil {
		return err
	}
	for i, s := range p.Stops {
		if err := validateStop(fmt.Sprintf("Stops[%d]", i), s); err != nil {
			return err
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

// validateNodes checks that Start, End and every stop's Node are usable
// indices into the travel times.
func validateNodes(p Problem) error {
	n := nodeCount(p.Travel)
	check := func(field string, node int, depot bool) error {
		if node < 0 && !(depot && node == -1) {
			return invalid(field, "node %d is negative", node)
		}
		if n >= 0 && node >= n {
			return invalid(field, "node %d is outside the travel times (%d nodes)", node, n)
		}
		return nil
	}
	if err := check("Start", p.Start, true); err != nil {
		return err
	}
	if err := check("End", p.End, true); err != nil {
		return err
	}
	for i, s := range p.Stops {
		if err := check(fmt.Sprintf("Stops[%d].Node", i), s.Node, false); err != nil {
			return err
		}
	}
	return nil
}

// validateScalars checks the shift, buffer and budgets.
func validateScalars(p Problem) error {
	switch {
	case !inTimeRange(p.ShiftStart):
		return invalid("ShiftStart", "%d is outside [-MaxTime, MaxTime]", p.ShiftStart)
	case !inTimeRange(p.ShiftEnd):
		return invalid("ShiftEnd", "%d is outside [-MaxTime, MaxTime]", p.ShiftEnd)
	case p.ShiftEnd < p.ShiftStart:
		return invalid("ShiftEnd", "%d is before ShiftStart %d", p.ShiftEnd, p.ShiftStart)
	case p.Buffer < 0 || p.Buffer > MaxTime:
		return invalid("Buffer", "%d is outside [0, MaxTime]", p.Buffer)
	case p.MaxStops < 0:
		return invalid("MaxStops", "%d is negative", p.MaxStops)
	case p.Iterations < 0:
		return invalid("Iterations", "%d is negative", p.Iterations)
	case len(p.Stops) > MaxProblemStops:
		return invalid("Stops", "%d stops, more than MaxProblemStops (%d)", len(p.Stops), MaxProblemStops)
	}
	return nil
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
