package solver

import "github.com/cockroachdb/errors"

// Check evaluates a given order of stops (indices into p.Stops): it
// schedules the order as Solve schedules its route (see Solution) and
// returns the resulting Solution, or an error wrapping ErrInfeasible that
// says which constraint the order breaks and where. It is the reference
// evaluation used by tests and by the benchmark runner.
func Check(p Problem, order []int) (Solution, error) {
	m, err := compile(p)
	if err != nil {
		return Solution{}, err
	}
	if err := checkOrder(m, order, p.MaxStops); err != nil {
		return Solution{}, err
	}
	r := newRoute(m)
	r.seq = append(append(r.seq[:1], order...), m.end)
	r.refresh()
	if !r.feasible() {
		return Solution{}, explain(r)
	}
	return solution(r), nil
}

// checkOrder rejects unknown and repeated stops and too long orders.
func checkOrder(m *model, order []int, maxStops int) error {
	seen := make([]bool, m.n)
	for i, id := range order {
		if id < 0 || id >= m.n {
			return errors.Newf("%w: order[%d]: stop %d does not exist", ErrInvalid, i, id)
		}
		if seen[id] {
			return errors.Newf("%w: order[%d]: stop %d is visited twice", ErrInfeasible, i, id)
		}
		seen[id] = true
	}
	if maxStops > 0 && len(order) > maxStops {
		return errors.Newf("%w: %d stops, more than MaxStops %d", ErrInfeasible, len(order), maxStops)
	}
	return nil
}

// explain describes the first violation of an infeasible route.
func explain(r *route) error {
	m := r.m
	last := len(r.seq) - 1
	for p := 1; p < last; p++ {
		if r.es[p] < never {
			continue
		}
		id := r.seq[p]
		arr := r.departure(p-1) + m.at(r.seq[p-1], id)
		if len(m.win[id]) == 0 {
			return errors.Newf("%w: order[%d]: stop %d has no window inside the shift", ErrInfeasible, p-1, id)
		}
		return errors.Newf("%w: order[%d]: stop %d is reached at %d, after its last window closes at %d",
			ErrInfeasible, p-1, id, arr, m.win[id][len(m.win[id])-1].Close)
	}
	if m.hasEnd {
		return errors.Newf("%w: the route reaches End at %d, after ShiftEnd %d", ErrInfeasible, r.es[last], m.shiftEnd)
	}
	return errors.Newf("%w: the last service ends at %d, after ShiftEnd %d", ErrInfeasible, r.es[last], m.shiftEnd)
}

// solution converts a feasible route into the public Solution, scheduled
// from its latest start (see Solution.StartTime).
func solution(r *route) Solution {
	m := r.m
	end := r.es[len(r.seq)-1]
	start := latestStart(r, end)
	sol := Solution{Value: r.value, TravelTime: r.travel(), StartTime: start, EndTime: end}
	t := start
	for p := 1; p <= r.stops(); p++ {
		prev, id := r.seq[p-1], r.seq[p]
		arr := t + m.at(prev, id)
		s := m.earliest(id, arr)
		if p == 1 && !m.hasStart {
			arr = s // the route begins at its first stop: nobody waits there
		}
		t = s + m.svc[id]
		sol.Visits = append(sol.Visits, Visit{Stop: id, Arrival: arr, ServiceStart: s, Departure: t})
	}
	sol.Unrouted = unrouted(r)
	return sol
}

// latestStart returns the latest time the route can leave its start and
// still end by end, the end of its earliest schedule: a backward pass like
// route.backward, bounded by end instead of the shift end. Leaving then and
// serving every stop as early as possible keeps every stop and the end time,
// and waits only where a stop's window closes too early to wait before it.
func latestStart(r *route, end int64) int64 {
	m := r.m
	bound := end
	for p := len(r.seq) - 2; p >= 1; p-- {
		a, b := r.seq[p], r.seq[p+1]
		bound = m.latest(a, bound-m.at(a, b)-m.svc[a])
	}
	if r.stops() == 0 {
		return m.shiftStart
	}
	return bound - m.at(r.seq[0], r.seq[1])
}

// unrouted lists the stops r does not visit with the reason.
func unrouted(r *route) []Unrouted {
	m := r.m
	empty := newRoute(m)
	var out []Unrouted
	for id := range m.n {
		if r.pos[id] == 0 {
			out = append(out, Unrouted{Stop: id, Reason: reason(r, empty, id)})
		}
	}
	return out
}

// reason says why r does not visit stop id.
func reason(r, empty *route, id int) Reason {
	if ok, _, _ := empty.canInsert(id, 0); !ok {
		return InfeasibleAlone
	}
	if r.stops() < r.m.maxStops {
		return NoRoom
	}
	for p := 0; p <= r.stops(); p++ {
		if ok, _, _ := r.canInsert(id, p); ok {
			return MaxStops
		}
	}
	return NoRoom
}
