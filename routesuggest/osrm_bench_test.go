package routesuggest_test

import (
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/routesuggest/osrmtest"
	"github.com/integration-connect/connect/routesuggest/solver"
	"github.com/integration-connect/connect/store"
)

// BenchmarkRoadSuggestion200 is endpoint 6 of the library on OSRM: a job of
// the 200 Monaco addresses, 20 minutes of work each, for a technician starting
// at the port on an 08:00–18:00 day — the matrix of 202 points, the solve, the
// road paths of the chosen route and the store, end to end.
func BenchmarkRoadSuggestion200(b *testing.B) {
	e := newRoadEnv(b, routesuggest.Config{Travel: &routesuggest.OSRM{URL: osrmtest.URL(b), TableLimit: 1000}})
	jobID := monacoJob(b, e, monacoPoints(b, 200))
	b.ResetTimer()
	var stops int
	for range b.N {
		out, err := e.routes.CreateRouteSuggestion(ctx, caller, jobID, monacoRequest, connect.WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		stops = out.Response.IncludedTargets
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/suggestion")
	b.ReportMetric(float64(stops), "stops")
}

// BenchmarkRoadVersusGreatCircle200 plans one tour through the 200 Monaco
// addresses from the port and back twice, on OSRM's driving times and on
// great-circle estimates (30 km/h, detour 1.3), and drives both tours on
// OSRM's times: what planning on real roads saves. It reports the road
// minutes of each plan and their ratio.
func BenchmarkRoadVersusGreatCircle200(b *testing.B) {
	points := append(monacoPoints(b, 200), routesuggest.Point{Latitude: 43.7355, Longitude: 7.4215})
	profile := store.OptimizationProfile{AverageSpeedKmh: 30, DetourFactor: 1.3}
	road, err := (&routesuggest.OSRM{URL: osrmtest.URL(b), TableLimit: 1000}).Matrix(ctx, points, profile)
	if err != nil {
		b.Fatal(err)
	}
	estimate, _ := routesuggest.GreatCircle{}.Matrix(ctx, points, profile)
	var onRoad, onEstimate int64
	for range b.N {
		onRoad = drive(b, tour(b, road), road)
		onEstimate = drive(b, tour(b, estimate), road)
	}
	b.ReportMetric(float64(onRoad)/60, "road-min/road-plan")
	b.ReportMetric(float64(onEstimate)/60, "road-min/great-circle-plan")
	b.ReportMetric(float64(onEstimate)/float64(onRoad), "great-circle/road")
}

// tour is the solver's tour through every point but the last, which is the
// depot, on travel's times.
func tour(b *testing.B, travel routesuggest.Travel) []int {
	n := len(travel.Seconds) - 1
	p := solver.Problem{Travel: solver.Matrix(travel.Seconds), Start: n, End: n, ShiftEnd: 1 << 30}
	for i := range n {
		p.Stops = append(p.Stops, solver.Stop{Node: i, Value: 1})
	}
	sol, err := solver.Solve(ctx, p)
	if err != nil || len(sol.Visits) != n {
		b.Fatalf("the tour visits %d of %d points: %v", len(sol.Visits), n, err)
	}
	order := []int{n}
	for _, v := range sol.Visits {
		order = append(order, v.Stop)
	}
	return append(order, n)
}

// drive is the time of a tour on travel's times.
func drive(b *testing.B, order []int, travel routesuggest.Travel) int64 {
	var seconds int64
	for i := 1; i < len(order); i++ {
		leg := travel.Seconds[order[i-1]][order[i]]
		if leg >= routesuggest.NoRoute {
			b.Fatalf("no road from %d to %d", order[i-1], order[i])
		}
		seconds += leg
	}
	return seconds
}
