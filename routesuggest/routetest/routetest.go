// Package routetest holds the route suggestion test data shared by the
// benchmarks of the library and of the HTTP host, so both plan the same day.
package routetest

import (
	"fmt"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Day is the route date the targets are planned for.
var Day = connect.Date{Year: 2026, Month: time.November, Day: 23}

// Targets returns n routable targets in and around Berlin as JSON: about a
// third with a two-hour time window on Day, priorities and revenues mixed, 20
// to 60 minutes of work. More than a technician can do in a day, so the
// optimizer has to choose.
func Targets(n int) []string {
	priorities := []string{"low", "normal", "normal", "high", "urgent"}
	targets := make([]string, n)
	for i := range n {
		lat := 52.38 + float64((i*37)%100)/400
		lon := 13.10 + float64((i*61)%100)/200
		planning := fmt.Sprintf(`"routeDate":"2026-11-23","estimatedWorkMinutes":%d,"priority":%q`, 20+(i*13)%41, priorities[i%len(priorities)])
		if i%3 == 0 {
			start := 7 + (i/3)%8
			planning += fmt.Sprintf(`,"timeWindowStartUtc":"2026-11-23T%02d:00:00Z","timeWindowEndUtc":"2026-11-23T%02d:00:00Z"`, start, start+2)
		}
		targets[i] = fmt.Sprintf(`{"externalId":"R-%04d","title":"Service %d","address":{"latitude":%.5f,"longitude":%.5f},"planning":{%s},"businessValue":{"expectedRevenue":%d}}`,
			i, i, lat, lon, planning, 100+(i*97)%900)
	}
	return targets
}

// Employee is tech-1, starting and ending the day in the middle of the area.
func Employee() store.Employee {
	return store.Employee{ID: "tech-1", Name: "Benchmark technician", Start: &connect.RoutePoint{Latitude: 52.50, Longitude: 13.35}}
}
