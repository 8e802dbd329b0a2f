package solver_test

import (
	"context"
	"testing"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// solve200 is a realistic 200-target request: a ten-hour shift, one or two
// windows per stop, a few appointments, two minutes of buffer between stops.
var solve200 = genConfig{
	name: "realistic-200", stops: 200, windows: 2, fixedFrac: 0.05,
	buffer: 120, asymmetry: 0.1, shift: 10 * 3600,
}

// BenchmarkSolve200 measures Solve with the default budget on a 200-stop
// problem; the product answers a 200-target request with one such call.
func BenchmarkSolve200(b *testing.B) {
	p := randomProblem(solve200, 1)
	visited := 0
	for b.Loop() {
		sol, err := solver.Solve(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		visited = len(sol.Visits)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(len(p.Stops))*float64(b.N)/b.Elapsed().Seconds(), "stops/s")
	b.ReportMetric(float64(visited), "visited")
}

// BenchmarkSolve200AllFit is the heaviest 200-stop case: a long shift in
// which every stop fits, so the route holds all 200 stops.
func BenchmarkSolve200AllFit(b *testing.B) {
	cfg := solve200
	cfg.windows, cfg.fixedFrac, cfg.shift = 0, 0, 1000*3600
	p := randomProblem(cfg, 1)
	for b.Loop() {
		if _, err := solver.Solve(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// teamOf turns a realistic random problem into a team of k technicians
// with their own depots (nodes 0 and 1 alternately) and a lunch break.
func teamOf(p solver.Problem, k int) solver.TeamProblem {
	tp := solver.TeamProblem{Travels: []solver.TravelTimes{p.Travel}, Stops: p.Stops, Buffer: p.Buffer, Seed: p.Seed}
	for v := range k {
		tp.Vehicles = append(tp.Vehicles, solver.Vehicle{
			Start: v % 2, End: v % 2, ShiftStart: p.ShiftStart, ShiftEnd: p.ShiftEnd,
			Break: &solver.Break{Duration: 1800, Open: p.ShiftStart + 3*3600 + 1800, Close: p.ShiftStart + 5*3600 + 1800},
		})
	}
	return tp
}

// benchmarkTeam solves a team of k technicians and n stops with the default
// budget and reports the time and the stops planned.
func benchmarkTeam(b *testing.B, k, n int) {
	cfg := solve200
	cfg.stops = n
	p := teamOf(randomProblem(cfg, 1), k)
	visited := 0
	for b.Loop() {
		sol, err := solver.SolveTeam(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		visited = n - len(sol.Unrouted)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(visited), "visited")
}

// BenchmarkSolveTeam4x200: four technicians, 200 stops (goal: under 2 s).
func BenchmarkSolveTeam4x200(b *testing.B) { benchmarkTeam(b, 4, 200) }

// BenchmarkSolveTeam20x1000: twenty technicians, 1,000 stops (goal: under
// 10 s).
func BenchmarkSolveTeam20x1000(b *testing.B) { benchmarkTeam(b, 20, 1000) }
