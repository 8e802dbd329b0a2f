package solver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// team turns a random problem into a team of k vehicles that share its stops
// and travel: vehicle v starts at the problem's start (node 0) and its shift
// begins v hours later and lasts as long; every other vehicle ends where it
// started, every third has a stop cap, and with breaks each takes 30 minutes
// starting between 3 and 5 hours into the problem's shift.
func team(p solver.Problem, k int, breaks bool) solver.TeamProblem {
	tp := solver.TeamProblem{Travels: []solver.TravelTimes{p.Travel}, Stops: p.Stops, Buffer: p.Buffer, Seed: p.Seed}
	for v := range k {
		offset := int64(v) * 3600
		veh := solver.Vehicle{Start: 0, End: 1, ShiftStart: p.ShiftStart + offset, ShiftEnd: p.ShiftEnd + offset}
		if v%2 == 1 {
			veh.End = 0
		}
		if v%3 == 2 {
			veh.MaxStops = 5
		}
		if breaks {
			veh.Break = &solver.Break{Duration: 1800, Open: p.ShiftStart + 3*3600, Close: p.ShiftStart + 5*3600}
		}
		tp.Vehicles = append(tp.Vehicles, veh)
	}
	return tp
}

// driveTeamRoute is the test's own evaluation of one route of a team
// solution, from the documented semantics: travel, buffer between stops,
// windows, the shift, and the break at its boundary within its window,
// overlapping neither travel nor service. It returns the route's value.
func driveTeamRoute(p solver.TeamProblem, k int, r solver.Route) (int64, error) {
	v, travel := p.Vehicles[k], p.Travels[p.Vehicles[k].Travel]
	t, prev, value := r.StartTime, v.Start, int64(0)
	if t < v.ShiftStart {
		return 0, errors.Newf("leaves at %d before the shift %d", t, v.ShiftStart)
	}
	takeBreak := func(after int) error {
		b := r.Break
		if b == nil || b.After != after {
			return nil
		}
		if b.Start < t || b.Start < v.Break.Open || b.Start > v.Break.Close || b.End != b.Start+v.Break.Duration {
			return errors.Newf("break %+v: starts before %d or outside [%d, %d] or lasts wrongly", *b, t, v.Break.Open, v.Break.Close)
		}
		t = b.End
		return nil
	}
	if err := takeBreak(0); err != nil {
		return 0, err
	}
	for i, visit := range r.Visits {
		s := p.Stops[visit.Stop]
		arr := t
		if prev >= 0 {
			arr += travel.Travel(prev, s.Node)
		}
		if i > 0 {
			arr += p.Buffer
		}
		if visit.Arrival < arr && !(i == 0 && v.Start < 0) {
			return 0, errors.Newf("visit %d arrives at %d, before it can (%d)", i, visit.Arrival, arr)
		}
		if !inWindows(s, visit.ServiceStart) || visit.ServiceStart < arr || visit.Departure != visit.ServiceStart+s.Service {
			return 0, errors.Newf("visit %d: service %d–%d outside its windows or before arrival %d", i, visit.ServiceStart, visit.Departure, arr)
		}
		t, prev, value = visit.Departure, s.Node, value+s.Value
		if err := takeBreak(i + 1); err != nil {
			return 0, err
		}
	}
	if len(r.Visits) > 0 && v.End >= 0 {
		t += travel.Travel(prev, v.End)
	}
	if len(r.Visits) > 0 && (t > v.ShiftEnd || t != r.EndTime) {
		return 0, errors.Newf("ends at %d (says %d), shift end %d", t, r.EndTime, v.ShiftEnd)
	}
	if v.Break != nil && len(r.Visits) > 0 && r.EndTime > v.Break.Open && r.Break == nil {
		return 0, errors.Newf("the day runs past %d without a break", v.Break.Open)
	}
	if v.MaxStops > 0 && len(r.Visits) > v.MaxStops {
		return 0, errors.Newf("%d stops, more than %d", len(r.Visits), v.MaxStops)
	}
	return value, nil
}

func inWindows(s solver.Stop, start int64) bool {
	if len(s.Windows) == 0 {
		return true
	}
	for _, w := range s.Windows {
		if start >= w.Open && start <= w.Close && (!s.Fixed || start == w.Open) {
			return true
		}
	}
	return false
}

// TestSolveTeamProperties solves random teams, with and without breaks, and
// checks every route with the test's own arithmetic: no stop on two routes,
// every route within its shift, windows, stop cap and break, the totals, the
// reasons, and that CheckTeam gives the same plan back.
func TestSolveTeamProperties(t *testing.T) {
	for _, cfg := range []genConfig{
		{name: "windows", stops: 60, windows: 2, fixedFrac: 0.05, buffer: 120, asymmetry: 0.1, shift: 5 * 3600},
		{name: "open", stops: 45, shift: 4 * 3600},
	} {
		for _, breaks := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s breaks=%v", cfg.name, breaks), func(t *testing.T) {
				for seed := range uint64(3) {
					p := team(randomProblem(cfg, seed+1), 3, breaks)
					p.Iterations = 400 // the properties hold at any budget
					sol, err := solver.SolveTeam(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					checkTeam(t, p, sol)
				}
			})
		}
	}
}

func checkTeam(t *testing.T, p solver.TeamProblem, sol solver.TeamSolution) {
	t.Helper()
	onRoute := map[int]int{}
	var value, travel int64
	orders := make([][]int, len(sol.Routes))
	for k, r := range sol.Routes {
		v, err := driveTeamRoute(p, k, r)
		if err != nil {
			t.Fatalf("route %d: %v", k, err)
		}
		value, travel = value+v, travel+r.TravelTime
		for _, visit := range r.Visits {
			if other, ok := onRoute[visit.Stop]; ok {
				t.Fatalf("stop %d is on routes %d and %d", visit.Stop, other, k)
			}
			onRoute[visit.Stop] = k
			orders[k] = append(orders[k], visit.Stop)
		}
	}
	if value != sol.Value || travel != sol.TravelTime {
		t.Errorf("totals %d/%d, routes add up to %d/%d", sol.Value, sol.TravelTime, value, travel)
	}
	for _, u := range sol.Unrouted {
		if _, ok := onRoute[u.Stop]; ok {
			t.Errorf("stop %d is unrouted and on route %d", u.Stop, onRoute[u.Stop])
		}
	}
	if len(onRoute)+len(sol.Unrouted) != len(p.Stops) {
		t.Errorf("%d routed + %d unrouted of %d stops", len(onRoute), len(sol.Unrouted), len(p.Stops))
	}
	again, err := solver.CheckTeam(p, orders)
	if err != nil || !reflect.DeepEqual(again, sol) {
		t.Errorf("CheckTeam of the plan: %v\n got %+v\nwant %+v", err, again, sol)
	}
}

// TestSolveTeamBreaks: the break is taken in its window, also while waiting
// for a late window, never when the day ends before it opens, and a stop that
// would make the break impossible is left out.
func TestSolveTeamBreaks(t *testing.T) {
	// Nodes 0 (the depot) and 1..3 on a line, ten minutes apart; times in
	// minutes.
	travel := line(4)
	for i := range travel {
		for j := range travel[i] {
			travel[i][j] *= 10
		}
	}
	lunch := &solver.Break{Duration: 30, Open: 11*60 + 30, Close: 13*60 + 30}
	stop := func(node int, service int64, windows ...solver.Window) solver.Stop {
		return solver.Stop{Node: node, Service: service, Value: 1, Windows: windows}
	}
	fixed := func(s solver.Stop) solver.Stop { s.Fixed = true; return s }
	tests := []struct {
		name      string
		shiftEnd  int64
		stops     []solver.Stop
		wantBreak *solver.BreakTime
		wantStops int
	}{
		{"after the stop that ends in the window", 17 * 60,
			[]solver.Stop{stop(1, 180), stop(2, 60)}, &solver.BreakTime{Start: 12*60 + 10, End: 12*60 + 40, After: 1}, 2},
		{"while waiting for a late window", 17 * 60,
			[]solver.Stop{fixed(stop(1, 60, solver.Window{Open: 10 * 60, Close: 10 * 60})), stop(2, 60, solver.Window{Open: 14 * 60, Close: 15 * 60})},
			&solver.BreakTime{Start: 11*60 + 30, End: 12 * 60, After: 1}, 2},
		{"a day that ends before the window", 11 * 60,
			[]solver.Stop{stop(1, 60)}, nil, 1},
		{"a stop that would block the break", 17 * 60,
			[]solver.Stop{stop(1, 300, solver.Window{Open: 10 * 60, Close: 10 * 60})}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := solver.TeamProblem{Travels: []solver.TravelTimes{travel}, Stops: tc.stops, Vehicles: []solver.Vehicle{
				{Start: 0, End: 0, ShiftStart: 9 * 60, ShiftEnd: tc.shiftEnd, Break: lunch},
				{Start: 0, End: 0, ShiftStart: 9 * 60, ShiftEnd: 9 * 60}, // a vehicle with no time
			}}
			sol, err := solver.SolveTeam(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			r := sol.Routes[0]
			if len(r.Visits) != tc.wantStops || !reflect.DeepEqual(r.Break, tc.wantBreak) {
				t.Errorf("%d stops, break %+v; want %d stops, break %+v", len(r.Visits), r.Break, tc.wantStops, tc.wantBreak)
			}
			checkTeam(t, p, sol)
		})
	}
}

// TestSolveTeamValueFirst: a stop worth more than all the others together is
// planned even when it fits only at the cost of every other stop (value is
// the first objective, so the caller can make priorities lexicographic), and
// the same problem and seed give the same plan.
func TestSolveTeamValueFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	travel := randomMatrix(rng, 30, 0)
	p := solver.TeamProblem{Travels: []solver.TravelTimes{travel}, Seed: 3}
	for i := 2; i < 30; i++ {
		p.Stops = append(p.Stops, solver.Stop{Node: i, Service: 1200, Value: 1})
	}
	// Each urgent stop takes a whole shift.
	for v := range 2 {
		p.Vehicles = append(p.Vehicles, solver.Vehicle{Start: 0, End: 0, ShiftStart: 0, ShiftEnd: 9 * 3600})
		p.Stops = append(p.Stops, solver.Stop{Node: v + 2, Service: 7 * 3600, Value: 100})
	}
	sol, err := solver.SolveTeam(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range sol.Unrouted {
		if p.Stops[u.Stop].Value == 100 {
			t.Errorf("urgent stop %d left out (%v)", u.Stop, u.Reason)
		}
	}
	checkTeam(t, p, sol)
	again, _ := solver.SolveTeam(context.Background(), p)
	if !reflect.DeepEqual(again, sol) {
		t.Error("the same problem and seed gave another plan")
	}
}

// TestSolveTeamReasons: a stop no vehicle can serve is InfeasibleAlone; one
// that fits in time but only into full routes is MaxStops.
func TestSolveTeamReasons(t *testing.T) {
	p := solver.TeamProblem{Travels: []solver.TravelTimes{line(5)}, Vehicles: []solver.Vehicle{
		{Start: 0, End: 0, ShiftStart: 0, ShiftEnd: 100, MaxStops: 1},
		{Start: 0, End: 0, ShiftStart: 0, ShiftEnd: 100, MaxStops: 1},
	}, Stops: []solver.Stop{
		{Node: 1, Service: 1, Value: 3}, {Node: 2, Service: 1, Value: 2}, {Node: 3, Service: 1, Value: 1},
		{Node: 4, Service: 1, Value: 5, Windows: []solver.Window{{Open: 200, Close: 300}}},
	}}
	sol, err := solver.SolveTeam(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := []solver.Unrouted{{Stop: 2, Reason: solver.MaxStops}, {Stop: 3, Reason: solver.InfeasibleAlone}}
	if !reflect.DeepEqual(sol.Unrouted, want) || sol.Value != 5 {
		t.Errorf("value %d, unrouted %+v; want 5 and %+v", sol.Value, sol.Unrouted, want)
	}
}

// TestSolveTeamRejectsInvalidProblems names the field at fault.
func TestSolveTeamRejectsInvalidProblems(t *testing.T) {
	base := func() solver.TeamProblem {
		return solver.TeamProblem{Travels: []solver.TravelTimes{line(3)}, Stops: []solver.Stop{{Node: 1, Value: 1}},
			Vehicles: []solver.Vehicle{{Start: 0, End: 0, ShiftEnd: 10}}}
	}
	tests := []struct {
		name   string
		change func(*solver.TeamProblem)
		want   string
	}{
		{"no vehicle", func(p *solver.TeamProblem) { p.Vehicles = nil }, "Vehicles: at least one vehicle is required"},
		{"unknown travel", func(p *solver.TeamProblem) { p.Vehicles[0].Travel = 1 }, "Vehicles[0].Travel: 1 is not an index into Travels (1)"},
		{"depot outside", func(p *solver.TeamProblem) { p.Vehicles[0].End = 9 }, "Vehicles[0].End: node 9 is outside the travel times (3 nodes)"},
		{"break backwards", func(p *solver.TeamProblem) { p.Vehicles[0].Break = &solver.Break{Duration: 1, Open: 5, Close: 4} }, "Vehicles[0].Break.Close: 4 is before Open 5"},
		{"break of nothing", func(p *solver.TeamProblem) { p.Vehicles[0].Break = &solver.Break{Open: 1, Close: 4} }, "Vehicles[0].Break.Duration: 0 is outside [1, MaxTime]"},
	}
	for _, tc := range tests {
		p := base()
		tc.change(&p)
		_, err := solver.SolveTeam(context.Background(), p)
		if !errors.Is(err, solver.ErrInvalid) || err.Error() != "solver: invalid problem: "+tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSolveTeamPriority: a stop of a higher Priority is left out only when
// no route could take it even without every stop of a lower one, whatever
// their values; when it fits only at the cost of them all, it gets its
// place and they theirs as far as they still fit.
func TestSolveTeamPriority(t *testing.T) {
	// Node 0 the depot; the urgent stop at node 9 takes a whole hour of an
	// hour-and-a-half shift, so it fits only on a route without the eight
	// valuable routine stops near the depot.
	travel := line(10)
	p := solver.TeamProblem{Travels: []solver.TravelTimes{travel}, Vehicles: []solver.Vehicle{
		{Start: 0, End: 0, ShiftStart: 0, ShiftEnd: 90},
	}}
	for node := 1; node <= 8; node++ {
		p.Stops = append(p.Stops, solver.Stop{Node: node, Service: 5, Value: 1000, Priority: 1})
	}
	p.Stops = append(p.Stops, solver.Stop{Node: 9, Service: 60, Value: 1, Priority: 2})
	sol, err := solver.SolveTeam(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := sol.Routes[0].Visits; len(got) == 0 || !containsStop(got, 8) {
		t.Fatalf("the urgent stop is left out: %+v", sol)
	}
	checkTeam(t, p, sol)
	// With a second vehicle the routine stops need not give way at all.
	p.Vehicles = append(p.Vehicles, solver.Vehicle{Start: 0, End: 0, ShiftStart: 0, ShiftEnd: 90})
	sol, err = solver.SolveTeam(context.Background(), p)
	if err != nil || len(sol.Unrouted) != 0 {
		t.Errorf("two vehicles: %v, unrouted %+v", err, sol.Unrouted)
	}
	// The same as a single-vehicle Problem.
	single := solver.Problem{Travel: travel, Start: 0, End: 0, ShiftEnd: 90, Stops: p.Stops}
	if s, err := solver.Solve(context.Background(), single); err != nil || !containsStop(s.Visits, 8) {
		t.Errorf("Solve leaves the urgent stop out: %+v, %v", s, err)
	}
}

func containsStop(visits []solver.Visit, stop int) bool {
	for _, v := range visits {
		if v.Stop == stop {
			return true
		}
	}
	return false
}
