package solver_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// genConfig describes a family of random problems that look like a day of
// field service in a city: travel in seconds, services of minutes, windows of
// a few hours.
type genConfig struct {
	name      string
	stops     int
	windows   int     // windows per stop: 0 none, 1 one, 2 one or two
	fixedFrac float64 // share of stops with a fixed start
	buffer    int64
	maxStops  int
	noStart   bool
	noEnd     bool
	asymmetry float64 // relative random asymmetry of travel times (may break the triangle inequality)
	shift     int64   // shift length in seconds
	places    int     // distinct stop locations; 0 = one per stop, fewer = shared addresses
}

// randomProblem draws a problem from c with the given seed.
func randomProblem(c genConfig, seed uint64) solver.Problem {
	rng := rand.New(rand.NewPCG(seed, 42))
	places := c.places
	if places == 0 {
		places = c.stops
	}
	nodes := places + 2 // node 0 start, node 1 end
	p := solver.Problem{
		Travel: randomMatrix(rng, nodes, c.asymmetry), Start: 0, End: 1,
		ShiftStart: 8 * 3600, ShiftEnd: 8*3600 + c.shift,
		Buffer: c.buffer, MaxStops: c.maxStops, Seed: seed,
	}
	if c.noStart {
		p.Start = -1
	}
	if c.noEnd {
		p.End = -1
	}
	for i := range c.stops {
		p.Stops = append(p.Stops, randomStop(rng, c, 2+i%places, p.ShiftStart, p.ShiftEnd))
	}
	return p
}

// randomMatrix places nodes in a 20 km square and drives at about 30 km/h
// with a detour factor; asymmetry perturbs every direction independently.
func randomMatrix(rng *rand.Rand, n int, asymmetry float64) solver.Matrix {
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i], ys[i] = rng.Float64()*20000, rng.Float64()*20000
	}
	m := make(solver.Matrix, n)
	for i := range m {
		m[i] = make([]int64, n)
		for j := range m[i] {
			d := math.Hypot(xs[i]-xs[j], ys[i]-ys[j]) * 1.3 / 8.33
			m[i][j] = int64(d * (1 + asymmetry*rng.Float64()))
		}
	}
	return m
}

// randomStop draws one stop: 5 to 30 minutes of service, a value of 1 to
// 10, and windows of one to four hours.
func randomStop(rng *rand.Rand, c genConfig, node int, from, to int64) solver.Stop {
	s := solver.Stop{Node: node, Service: 300 + rng.Int64N(1500), Value: 1 + rng.Int64N(10)}
	k := c.windows
	if k == 2 {
		k = 1 + rng.IntN(2)
	}
	span := (to - from) / int64(max(k, 1))
	for w := range k {
		lo := from + int64(w)*span
		open := lo + rng.Int64N(span/2)
		closing := min(open+3600+rng.Int64N(3*3600), lo+span-1)
		s.Windows = append(s.Windows, solver.Window{Open: open, Close: closing})
	}
	if k > 0 && rng.Float64() < c.fixedFrac {
		s.Fixed = true
	}
	return s
}

// schedule is the test's own evaluation of an order, written from the
// documented semantics without using the solver: leaving at ShiftStart,
// earliest service starts, buffer between stops only, route ends checked
// against the shift. It returns the visits or why the order is infeasible.
func schedule(p solver.Problem, order []int) ([]solver.Visit, error) {
	visits, _, err := scheduleFrom(p, order, p.ShiftStart)
	return visits, err
}

// scheduleFrom is schedule leaving at leave; it also returns the end time.
func scheduleFrom(p solver.Problem, order []int, leave int64) ([]solver.Visit, int64, error) {
	var visits []solver.Visit
	t, prev := leave, p.Start
	for k, i := range order {
		s := p.Stops[i]
		arr := t
		if prev >= 0 {
			arr += p.Travel.Travel(prev, s.Node)
		}
		if k > 0 {
			arr += p.Buffer
		}
		start, ok := earliestStart(p, s, arr)
		if !ok {
			return nil, 0, errors.Newf("stop %d reached at %d misses its windows", i, arr)
		}
		if k == 0 && p.Start < 0 {
			arr = start
		}
		visits = append(visits, solver.Visit{Stop: i, Arrival: arr, ServiceStart: start, Departure: start + s.Service})
		t, prev = start+s.Service, s.Node
	}
	end := endTime(p, t, prev)
	if end > p.ShiftEnd {
		return nil, 0, errors.Newf("route ends at %d after the shift end %d", end, p.ShiftEnd)
	}
	return visits, end, nil
}

// latestLeave finds, by bisection, the latest time the order can leave and
// still end at end (the end when leaving at ShiftStart): leaving later never
// ends earlier, so the times that keep the end form an interval.
func latestLeave(p solver.Problem, order []int, end int64) int64 {
	if len(order) == 0 {
		return p.ShiftStart
	}
	lo, hi := p.ShiftStart, end // lo keeps the end; hi+1 does not
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if _, e, err := scheduleFrom(p, order, mid); err == nil && e == end {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// endTime is when a route whose last departure is t from node prev is back
// at End (or finished, without End).
func endTime(p solver.Problem, t int64, prev int) int64 {
	if p.End >= 0 && prev >= 0 {
		return t + p.Travel.Travel(prev, p.End)
	}
	return t
}

// earliestStart returns the earliest allowed service start at or after arr.
func earliestStart(p solver.Problem, s solver.Stop, arr int64) (int64, bool) {
	arr = max(arr, p.ShiftStart)
	if len(s.Windows) == 0 {
		return arr, arr <= p.ShiftEnd
	}
	best, found := int64(0), false
	for _, w := range s.Windows {
		var start int64
		switch {
		case s.Fixed && arr <= w.Open:
			start = w.Open
		case s.Fixed:
			continue
		case arr <= w.Close:
			start = max(arr, w.Open)
		default:
			continue
		}
		if start >= p.ShiftStart && start <= p.ShiftEnd && (!found || start < best) {
			best, found = start, true
		}
	}
	return best, found
}

// verifySolution checks every documented property of sol independently:
// visits and unrouted partition the stops, the route meets every hard
// constraint, it leaves as late as it can without ending later and then
// serves every stop as early as possible, totals add up, and every reason is
// right.
func verifySolution(t *testing.T, p solver.Problem, sol solver.Solution) {
	t.Helper()
	order := verifyPartition(t, p, sol)
	if p.MaxStops > 0 && len(order) > p.MaxStops {
		t.Fatalf("%d visits, MaxStops %d", len(order), p.MaxStops)
	}
	_, end, err := scheduleFrom(p, order, p.ShiftStart)
	if err != nil {
		t.Fatalf("route %v is infeasible: %v", order, err)
	}
	leave := latestLeave(p, order, end)
	if sol.StartTime != leave {
		t.Fatalf("StartTime = %d, want the latest start %d that still ends at %d", sol.StartTime, leave, end)
	}
	want, _, _ := scheduleFrom(p, order, leave)
	for k := range want {
		if sol.Visits[k] != want[k] {
			t.Fatalf("visit %d = %+v, want %+v", k, sol.Visits[k], want[k])
		}
	}
	verifyTotals(t, p, sol, order)
	verifyReasons(t, p, sol, order)
}

// verifyPartition checks that every stop is either visited once or unrouted
// once, and returns the visiting order.
func verifyPartition(t *testing.T, p solver.Problem, sol solver.Solution) []int {
	t.Helper()
	seen := make([]int, len(p.Stops))
	var order []int
	for _, v := range sol.Visits {
		order = append(order, v.Stop)
		seen[v.Stop]++
	}
	for _, u := range sol.Unrouted {
		seen[u.Stop]++
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("stop %d appears %d times among visits and unrouted", i, n)
		}
	}
	return order
}

// verifyTotals recomputes Value, TravelTime and EndTime.
func verifyTotals(t *testing.T, p solver.Problem, sol solver.Solution, order []int) {
	t.Helper()
	var value, travel int64
	prev, last := p.Start, p.ShiftStart
	for _, v := range sol.Visits {
		s := p.Stops[v.Stop]
		value += s.Value
		if prev >= 0 {
			travel += p.Travel.Travel(prev, s.Node)
		}
		prev, last = s.Node, v.Departure
	}
	if p.End >= 0 && prev >= 0 {
		travel += p.Travel.Travel(prev, p.End)
	}
	if value != sol.Value || travel != sol.TravelTime {
		t.Fatalf("Value, TravelTime = %d, %d; recomputed %d, %d", sol.Value, sol.TravelTime, value, travel)
	}
	if end := endTime(p, last, prev); end != sol.EndTime {
		t.Fatalf("EndTime = %d, recomputed %d", sol.EndTime, end)
	}
}

// verifyReasons checks each unrouted stop's reason by trying it alone and at
// every position of the route.
func verifyReasons(t *testing.T, p solver.Problem, sol solver.Solution, order []int) {
	t.Helper()
	for _, u := range sol.Unrouted {
		want := solver.NoRoom
		switch {
		case !feasible(p, []int{u.Stop}):
			want = solver.InfeasibleAlone
		case fitsSomewhere(p, order, u.Stop) && p.MaxStops > 0 && len(order) >= p.MaxStops:
			want = solver.MaxStops
		case fitsSomewhere(p, order, u.Stop):
			t.Fatalf("stop %d is unrouted (%v) but fits into the route", u.Stop, u.Reason)
		}
		if u.Reason != want {
			t.Fatalf("stop %d: reason %v, want %v", u.Stop, u.Reason, want)
		}
	}
}

func feasible(p solver.Problem, order []int) bool {
	_, err := schedule(p, order)
	return err == nil
}

// fitsSomewhere reports whether stop u can be inserted anywhere in order.
func fitsSomewhere(p solver.Problem, order []int, u int) bool {
	for k := 0; k <= len(order); k++ {
		o := append(append(append([]int{}, order[:k]...), u), order[k:]...)
		if feasible(p, o) {
			return true
		}
	}
	return false
}
