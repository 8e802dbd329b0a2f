// Package solver is the route optimizer core: it plans the route of one
// vehicle through a set of stops on an abstract problem (a travel-time
// matrix, time windows, values), independent of HTTP, storage and real-world
// units. The adapter from import-job targets, the HTTP host and the benchmark
// runner all build a Problem and call Solve.
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
