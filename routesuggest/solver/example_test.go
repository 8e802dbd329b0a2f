package solver_test

import (
	"context"
	"fmt"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// A technician may leave the depot from 8:00 (times in minutes since midnight)
// and must be back by 12:00. One customer has an appointment at 9:00 sharp,
// one is available only in the afternoon and so cannot be served. Visiting
// stop 0 first would miss the appointment, so the route starts with it; the
// technician leaves at 8:40 to arrive just in time rather than wait.
func ExampleSolve() {
	travel := solver.Matrix{
		{0, 20, 30, 25},
		{20, 0, 15, 30},
		{30, 15, 0, 20},
		{25, 30, 20, 0},
	}
	p := solver.Problem{
		Travel: travel, Start: 0, End: 0,
		ShiftStart: 8 * 60, ShiftEnd: 12 * 60,
		Buffer: 5,
		Stops: []solver.Stop{
			{Node: 1, Service: 30, Value: 1},
			{Node: 2, Service: 45, Value: 1, Fixed: true, Windows: []solver.Window{{Open: 9 * 60, Close: 9 * 60}}},
			{Node: 3, Service: 30, Value: 1, Windows: []solver.Window{{Open: 13 * 60, Close: 17 * 60}}},
		},
	}
	sol, err := solver.Solve(context.Background(), p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range sol.Visits {
		fmt.Printf("stop %d: arrive %d, start %d, leave %d\n", v.Stop, v.Arrival, v.ServiceStart, v.Departure)
	}
	fmt.Println("travel", sol.TravelTime, "back at", sol.EndTime)
	for _, u := range sol.Unrouted {
		fmt.Printf("stop %d not visited: %v\n", u.Stop, u.Reason)
	}
	// Output:
	// stop 1: arrive 540, start 540, leave 585
	// stop 0: arrive 605, start 605, leave 635
	// travel 65 back at 655
	// stop 2 not visited: infeasible-alone
}
