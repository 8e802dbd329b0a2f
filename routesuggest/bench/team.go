package bench

import (
	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// TeamProblem maps a TOPTW instance to a team of m identical vehicles (the
// team orienteering problem with time windows): each leaves the depot at its
// opening, is back by its closing, and every customer is visited at most
// once in all. m = 1 is Problem() as a team.
func (in *Instance) TeamProblem(m int) solver.TeamProblem {
	p := in.Problem()
	team := solver.TeamProblem{Travels: []solver.TravelTimes{p.Travel}, Stops: p.Stops, Buffer: p.Buffer}
	for range m {
		team.Vehicles = append(team.Vehicles, solver.Vehicle{
			Start: p.Start, End: p.End, ShiftStart: p.ShiftStart, ShiftEnd: p.ShiftEnd, MaxStops: p.MaxStops,
		})
	}
	return team
}

// TeamRoutes returns, for each route of sol, the node numbers as Route writes
// them: the depot first, then the visited nodes.
func (in *Instance) TeamRoutes(sol solver.TeamSolution) [][]int {
	routes := make([][]int, len(sol.Routes))
	for k, r := range sol.Routes {
		routes[k] = in.Route(solver.Solution{Route: r})
	}
	return routes
}

// VerifyTeam checks routes (each as Verify takes one) against the instance
// with its own arithmetic: every route feasible, no customer on two routes;
// it returns the total collected score.
func (in *Instance) VerifyTeam(routes [][]int) (int64, error) {
	seen := map[int]int{}
	var total int64
	for k, route := range routes {
		score, err := in.Verify(route)
		if err != nil {
			return 0, errors.Wrapf(err, "route %d", k+1)
		}
		for _, id := range route[1:] {
			if other, ok := seen[id]; ok {
				return 0, errors.Newf("%w: node %d is on routes %d and %d", ErrRoute, id, other, k+1)
			}
			seen[id] = k + 1
		}
		total += score
	}
	return total, nil
}
