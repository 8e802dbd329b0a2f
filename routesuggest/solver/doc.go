// Package solver is the route optimizer core: it plans the route of one
// vehicle (Problem, Solve), or the routes of a team of vehicles sharing one
// set of stops (TeamProblem, SolveTeam), on an abstract problem (travel-time
// matrices, time windows, values, breaks), independent of HTTP, storage and
// real-world units. The adapter from targets, the HTTP host and the
// benchmark runner build problems and call the solver.
//
// # Objective and constraints
//
// The objective is lexicographic: first maximize the total Value of the
// visited stops, then minimize the total travel time. Time windows, the
// shift, fixed appointment times, the buffer between stops and the stop cap
// are hard constraints: Solve never returns a route that violates them.
// Waiting before a window opens is allowed. Every stop is visited at most
// once; stops that are not visited are reported with a Reason. Once the route
// is chosen, its schedule is the one with the least waiting (see Solution):
// it leaves as late as it can without ending later, then serves every stop as
// early as possible.
//
// # Teams
//
// A team plan visits every stop at most once in all; each vehicle has its
// own travel times (one of TeamProblem.Travels), depots, shift, stop cap and
// break. The objective is lexicographic: the total value first, then the
// total travel time, then the balance of the day, measured as the end of the
// latest route. Making value lexicographic in a caller's priorities is the
// caller's: give one stop of a higher priority more value than all stops of
// the lower ones together (values and their sums stay below MaxTime, so they
// never overflow).
//
// The team search is the search below on a plan of routes. Each iteration
// ruins either part of one route or a cluster of nearby stops across routes,
// refills the routes that changed from every unvisited stop and the others
// from the stops it freed, and descends: the moves of each changed route,
// relocation of their stops to other routes where they cost less travel, and
// making room for a freed stop in a route by moving one of its stops to
// another route. Its default budget is one route's budget per vehicle plus
// one, at most four.
//
// A break (Vehicle.Break) is taken at a stop boundary by the rule Break
// states; the route's arrays account for it where it is, and a change that
// would move it where it no longer fits is undone.
//
// # Method
//
// Solve builds a first route by greedy insertion (value per added time), then
// improves it by an iterated local search. Every iteration perturbs the
// current route, either by a double bridge (reconnecting A B C D as A C B D,
// which the local search cannot undo) or by ruin and recreate: it removes a
// string of consecutive stops, a cluster of nearby stops or random stops,
// and reinserts unvisited stops greedily. It then descends with 2-opt,
// or-opt (segments of 1 to 3 stops in both orientations, which includes
// relocate), exchange, insertion of unvisited stops and replacement of a
// visited stop by a more valuable one. A threshold acceptance that tightens
// over the iteration budget decides whether the new route replaces the
// current one; the search restarts from the best route after a long run
// without improvement.
//
// Time-window feasibility of an insertion is checked in constant time from
// two arrays kept for the current route: the earliest service start of each
// stop (forward pass) and the latest arrival that keeps the rest of the route
// feasible (backward pass). Both are exact also with several windows per
// stop, because the earliest schedule is monotone in the arrival time. They
// are recomputed after every applied move.
//
// # Determinism
//
// The result depends only on the Problem (including Seed and Iterations): the
// search uses its own seeded generator, never iterates over maps and never
// looks at the clock. The only source of nondeterminism is the context: when
// ctx is done before the iteration budget is spent, Solve stops early and
// returns the best route found so far.
package solver
