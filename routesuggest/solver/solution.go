package solver

import "github.com/cockroachdb/errors"

// Check evaluates a given order of stops (indices into p.Stops): it
// schedules the order as Solve schedules its route (see Route) and returns
// the resulting Solution, or an error wrapping ErrInfeasible that says which
// constraint the order breaks and where. It is the reference evaluation used
// by tests and by the benchmark runner.
func Check(p Problem, order []int) (Solution, error) {
	sol, err := CheckTeam(p.team(), [][]int{order})
	if err != nil {
		return Solution{}, err
	}
	return Solution{Route: sol.Routes[0], Unrouted: sol.Unrouted}, nil
}

// CheckTeam evaluates given orders of stops, one per vehicle, as CheckTeam's
// routes are scheduled, and returns the TeamSolution they make, or an error
// wrapping ErrInfeasible that names the vehicle and the constraint broken; a
// stop in two orders is such an error.
func CheckTeam(p TeamProblem, orders [][]int) (TeamSolution, error) {
	models, err := compileTeam(p)
	if err != nil {
		return TeamSolution{}, err
	}
	if len(orders) != len(models) {
		return TeamSolution{}, errors.Newf("%w: %d orders for %d vehicles", ErrInvalid, len(orders), len(models))
	}
	seen := make([]int, len(p.Stops))
	routes := make([]*route, len(models))
	for k, m := range models {
		if err := checkOrder(m, orders[k], seen, k+1); err != nil {
			return TeamSolution{}, inVehicle(p, k, err)
		}
		r := newRoute(m)
		r.seq = append(append(r.seq[:1], orders[k]...), m.end)
		r.refresh()
		if !r.feasible() {
			return TeamSolution{}, inVehicle(p, k, explain(r))
		}
		routes[k] = r
	}
	return teamSolution(routes), nil
}

// inVehicle names vehicle k in err, for a team.
func inVehicle(p TeamProblem, k int, err error) error {
	if p.single {
		return err
	}
	return errors.Wrapf(err, "Vehicles[%d]", k)
}

// checkOrder rejects unknown stops, stops visited twice (seen holds, per
// stop, the vehicle number that visits it) and too long orders.
func checkOrder(m *model, order []int, seen []int, vehicle int) error {
	for i, id := range order {
		if id < 0 || id >= m.n {
			return errors.Newf("%w: order[%d]: stop %d does not exist", ErrInvalid, i, id)
		}
		if seen[id] != 0 {
			return errors.Newf("%w: order[%d]: stop %d is visited twice", ErrInfeasible, i, id)
		}
		seen[id] = vehicle
	}
	if len(order) > m.maxStops {
		return errors.Newf("%w: %d stops, more than MaxStops %d", ErrInfeasible, len(order), m.maxStops)
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
		if r.brkAfter == p-1 && r.brkStart > m.brk.Close {
			return errors.Newf("%w: order[%d]: the break before stop %d would start at %d, after %d", ErrInfeasible, p-1, id, r.brkStart, m.brk.Close)
		}
		arr := r.departure(p-1) + m.at(r.seq[p-1], id)
		if len(m.win[id]) == 0 {
			return errors.Newf("%w: order[%d]: stop %d has no window inside the shift", ErrInfeasible, p-1, id)
		}
		return errors.Newf("%w: order[%d]: stop %d is reached at %d, after its last window closes at %d",
			ErrInfeasible, p-1, id, arr, m.win[id][len(m.win[id])-1].Close)
	}
	if r.brkAfter == last-1 && r.brkStart > m.brk.Close {
		return errors.Newf("%w: the break would start at %d, after %d", ErrInfeasible, r.brkStart, m.brk.Close)
	}
	if m.hasEnd {
		return errors.Newf("%w: the route reaches End at %d, after ShiftEnd %d", ErrInfeasible, r.es[last], m.shiftEnd)
	}
	return errors.Newf("%w: the last service ends at %d, after ShiftEnd %d", ErrInfeasible, r.es[last], m.shiftEnd)
}

// teamSolution converts feasible routes into the public TeamSolution.
func teamSolution(routes []*route) TeamSolution {
	sol := TeamSolution{Routes: make([]Route, len(routes))}
	for k, r := range routes {
		sol.Routes[k] = schedule(r)
		sol.Value += r.value
		sol.TravelTime += r.travel()
	}
	sol.Unrouted = unrouted(routes)
	return sol
}

// schedule converts a feasible route into its public Route, scheduled from
// its latest start (see Route.StartTime): leaving then and serving every
// stop as early as possible keeps every stop and the end time, and waits only
// where a stop's window closes too early to wait before it. The break stays
// after the stop forward placed it after.
func schedule(r *route) Route {
	m := r.m
	end := r.es[len(r.seq)-1]
	out := Route{Value: r.value, TravelTime: r.travel(), StartTime: latestStart(r, end), EndTime: end}
	t := out.StartTime
	if r.brkAfter == 0 {
		t = r.takeBreak(&out, t, 0)
	}
	for p := 1; p <= r.stops(); p++ {
		prev, id := r.seq[p-1], r.seq[p]
		arr := t + m.at(prev, id)
		s := m.earliest(id, arr)
		if p == 1 && !m.hasStart {
			arr = s // the route begins at its first stop: nobody waits there
		}
		t = s + m.svc[id]
		out.Visits = append(out.Visits, Visit{Stop: id, Arrival: arr, ServiceStart: s, Departure: t})
		if p == r.brkAfter {
			t = r.takeBreak(&out, t, p)
		}
	}
	return out
}

// takeBreak records the break taken on leaving position p at t, and returns
// when it ends.
func (r *route) takeBreak(out *Route, t int64, p int) int64 {
	start := max(t, r.m.brk.Open)
	out.Break = &BreakTime{Start: start, End: start + r.m.brk.Duration, After: p}
	return out.Break.End
}

// latestStart returns the latest time the route can leave its start and
// still end by end, the end of its earliest schedule: a backward pass like
// route.backward, bounded by end instead of the shift end.
func latestStart(r *route, end int64) int64 {
	m := r.m
	if r.stops() == 0 {
		return m.shiftStart
	}
	bound := end
	for p := len(r.seq) - 2; p >= 1; p-- {
		a, b := r.seq[p], r.seq[p+1]
		bound = m.latest(a, r.latestDeparture(p, bound-m.at(a, b))-m.svc[a])
	}
	return r.latestDeparture(0, bound-m.at(r.seq[0], r.seq[1]))
}

// unrouted lists the stops no route visits, with the reason.
func unrouted(routes []*route) []Unrouted {
	empties := make([]*route, len(routes))
	for k, r := range routes {
		empties[k] = newRoute(r.m)
	}
	var out []Unrouted
	for id := range routes[0].m.n {
		if !visited(routes, id) {
			out = append(out, Unrouted{Stop: id, Reason: reason(routes, empties, id)})
		}
	}
	return out
}

func visited(routes []*route, id int) bool {
	for _, r := range routes {
		if r.pos[id] != 0 {
			return true
		}
	}
	return false
}

// reason says why no route visits stop id: no vehicle could serve it alone;
// or some route could take it in time but is full; or the routes have no room.
func reason(routes, empties []*route, id int) Reason {
	alone := false
	for _, e := range empties {
		if ok, _, _ := e.canInsert(id, 0); ok {
			alone = true
		}
	}
	if !alone {
		return InfeasibleAlone
	}
	for _, r := range routes {
		if r.stops() < r.m.maxStops {
			continue
		}
		for p := 0; p <= r.stops(); p++ {
			if ok, _, _ := r.canInsert(id, p); ok {
				return MaxStops
			}
		}
	}
	return NoRoom
}
