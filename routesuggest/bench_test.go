package routesuggest_test

import (
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/routetest"
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
