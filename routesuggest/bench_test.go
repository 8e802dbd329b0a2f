package routesuggest_test

import (
	"fmt"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/routetest"
	"github.com/integration-connect/connect/store"
)

// BenchmarkCreateRouteSuggestion200 plans a day from a job of 200 routable
// targets (a third with time windows, mixed priorities) for an employee with a
// start location: the whole endpoint 6 path of the library, store included.
func BenchmarkCreateRouteSuggestion200(b *testing.B) {
	e := mustOpen(b)
	jobID := e.importBatch(b, routetest.Targets(200)...)
	if _, err := e.routes.PutEmployee(ctx, "acme", routetest.Employee()); err != nil {
		b.Fatal(err)
	}
	req := connect.CreateImportJobRouteSuggestionRequest{RouteDate: routetest.Day, EmployeeID: new("tech-1")}
	b.ResetTimer()
	var stops int
	for range b.N {
		out, err := e.routes.CreateRouteSuggestion(ctx, caller, jobID, req, connect.WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		stops = out.Response.IncludedTargets
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/suggestion")
	b.ReportMetric(float64(stops), "stops")
}

// BenchmarkCreateRoutePlan4x200 and BenchmarkCreateRoutePlan20x1000 plan a
// team's day through the library, store included: the targets of one job
// (a third with time windows, mixed priorities) split across 4 and 20
// technicians who start at one depot, each with a 30-minute break between
// 11:30 and 13:30. Goals: under 2 s and under 10 s per plan.
func BenchmarkCreateRoutePlan4x200(b *testing.B)   { benchmarkPlan(b, 4, 200) }
func BenchmarkCreateRoutePlan20x1000(b *testing.B) { benchmarkPlan(b, 20, 1000) }

func benchmarkPlan(b *testing.B, employees, targets int) {
	e := mustOpen(b)
	jobID := e.importBatch(b, routetest.Targets(targets)...)
	req := connect.CreateRoutePlanRequest{RouteDate: routetest.Day, ImportJobIDs: []int64{jobID}}
	for i := range employees {
		emp := routetest.Employee()
		emp.ID = fmt.Sprintf("tech-%d", i)
		emp.Break = &store.BreakRule{Minutes: 30, Earliest: "11:30", Latest: "13:30"}
		if _, err := e.routes.PutEmployee(ctx, "acme", emp); err != nil {
			b.Fatal(err)
		}
		req.EmployeeIDs = append(req.EmployeeIDs, emp.ID)
	}
	b.ResetTimer()
	var stops int
	for range b.N {
		out, err := e.routes.CreateRoutePlan(ctx, caller, req, connect.WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		stops = out.Response.IncludedTargets
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/plan")
	b.ReportMetric(float64(stops), "stops")
}
