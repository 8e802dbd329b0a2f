package solver

import "github.com/cockroachdb/errors"

// MaxTime bounds every time, duration and travel time of a Problem (in
// absolute value), so that sums along a route can never overflow int64.
// 2^40 seconds is about 35,000 years.
const MaxTime int64 = 1 << 40

// MaxProblemStops is the largest number of stops Solve and Check accept. The
// solver copies the travel times between all stops into a dense matrix, so
// the limit keeps its memory bounded (about 32 MB at the limit).
const MaxProblemStops = 2000

// ErrInvalid is wrapped by every error about a malformed Problem; the message
// names the offending field.
var ErrInvalid = errors.New("solver: invalid problem")

// ErrInfeasible is wrapped by the errors of Check when the given order breaks
// a hard constraint; the message says which one and where.
var ErrInfeasible = errors.New("solver: infeasible route")

// TravelTimes gives the travel time between two matrix nodes. The solver reads
// every pair it needs once, at the start of Solve or Check. Implementations
// must be deterministic and return values in [0, MaxTime].
type TravelTimes interface {
	Travel(from, to int) int64
}

// Matrix is a dense TravelTimes: Matrix[from][to] is the travel time.
type Matrix [][]int64

// Travel returns m[from][to].
func (m Matrix) Travel(from, to int) int64 { return m[from][to] }

// Len returns the number of nodes, so that the solver can reject node indices
// outside the matrix with a clear error instead of panicking.
func (m Matrix) Len() int { return len(m) }

// Window is an interval in which service at a stop may start: service may
// start at any time t with Open <= t <= Close.
type Window struct {
	Open, Close int64
}

// Stop is a place the vehicle may visit.
type Stop struct {
	// Node is the stop's index into the travel times.
	Node int
	// Service is how long the vehicle stays at the stop.
	Service int64
	// Windows are the intervals in which service may start. Several
	// non-overlapping windows are allowed, in any order. Empty means any time
	// in the shift.
	Windows []Window
	// Fixed means service must start exactly at the Open of one of the
	// windows (an appointment); waiting before it is allowed. A fixed stop
	// needs at least one window.
	Fixed bool
	// Value is collected when the stop is visited; it must be positive. The
	// solver maximizes the sum of the values of the visited stops.
	Value int64
	// Priority ranks stops above Value: a stop is left out only when no
	// route could take it even without every stop of a lower Priority (see
	// SolveTeam). All zero, as by default, it plays no part.
	Priority int
}

// Problem is one single-vehicle routing request. All times are integers in a
// unit chosen by the caller (seconds, tenths, distance units...).
type Problem struct {
	// Travel gives the travel times between the nodes used by Start, End and
	// the stops.
	Travel TravelTimes
	// Start and End are the nodes of the start and end depots. -1 means none:
	// the route starts at its first stop, or ends after its last one.
	Start, End int
	// ShiftStart is the earliest time the vehicle leaves Start (or, without
	// Start, the earliest service start at the first stop).
	ShiftStart int64
	// ShiftEnd is the latest time the vehicle is back at End (or, without End,
	// finishes the service at its last stop).
	ShiftEnd int64
	// Stops are the candidate stops; Solution refers to them by index.
	Stops []Stop
	// Buffer is extra time spent between two consecutive stops (for example
	// parking), before arriving at the next stop. It is not added after Start
	// or before End.
	Buffer int64
	// MaxStops caps the number of visited stops; 0 means no cap.
	MaxStops int
	// Iterations is the search budget (perturbation iterations); 0 means
	// DefaultIterations, reduced proportionally above DefaultBudgetStops
	// stops. The result depends on it, never on the clock.
	Iterations int
	// Seed seeds the search's random generator: the same Problem with the
	// same Seed gives the same Solution.
	Seed uint64
	// Break, when set, is a pause the vehicle takes, as Vehicle.Break.
	Break *Break
}

// team is the problem as a team of one vehicle, the form the solver works on.
func (p Problem) team() TeamProblem {
	return TeamProblem{
		Travels: []TravelTimes{p.Travel}, Stops: p.Stops, Buffer: p.Buffer, Iterations: p.Iterations, Seed: p.Seed,
		Vehicles: []Vehicle{{Start: p.Start, End: p.End, ShiftStart: p.ShiftStart, ShiftEnd: p.ShiftEnd, MaxStops: p.MaxStops, Break: p.Break}},
		single:   true,
	}
}

// TeamProblem is a routing request for several vehicles (a team of
// technicians) sharing one set of stops: every stop is visited by at most one
// vehicle. Times are integers in a unit chosen by the caller, as in Problem.
type TeamProblem struct {
	// Travels are the travel times between the nodes; each vehicle drives one
	// of them (vehicles with different speed profiles drive different ones).
	// Vehicles driving the same travel times share one copy in memory.
	Travels []TravelTimes
	// Vehicles are the routes to plan, at least one.
	Vehicles []Vehicle
	// Stops are the candidate stops; solutions refer to them by index.
	Stops []Stop
	// Buffer is extra time between two consecutive stops of a route, as in
	// Problem.
	Buffer int64
	// Iterations is the search budget; 0 means a default that grows with the
	// number of vehicles and shrinks above DefaultBudgetStops stops. The
	// result depends on it, never on the clock.
	Iterations int
	// Seed seeds the search's random generator.
	Seed uint64

	single bool // a Problem: its fields are named as Problem's in errors
}

// Vehicle is one route of a TeamProblem.
type Vehicle struct {
	// Travel is the index into TeamProblem.Travels of the times it drives.
	Travel int
	// Start, End, ShiftStart, ShiftEnd and MaxStops are as in Problem.
	Start, End           int
	ShiftStart, ShiftEnd int64
	MaxStops             int
	// Break, when set, is a pause the vehicle takes on a day that runs into
	// the break's window.
	Break *Break
}

// Break is a pause of Duration that must start between Open and Close
// (inclusive). It is taken at a stop boundary: on leaving Start, between two
// stops or after the last one, never during travel or service; it may use
// the time the vehicle would wait for the next stop's window. A route without
// stops, or whose day ends (at End, or with the last service) by Open, takes
// none.
//
// The route takes its break at the first boundary where its window is
// already open, or where the break fits into the wait before the next stop
// without delaying it, or after which the break could no longer start by
// Close (the next stop would end later); before the end, when the day ends
// after Open. The break starts when the boundary is reached, or at Open if
// that is later. The solver chooses the stops and their order knowing this
// rule, so every route it returns honours its break.
type Break struct {
	Duration, Open, Close int64
}

// Visit is one stop of a route with its schedule.
type Visit struct {
	// Stop is the index into Problem.Stops.
	Stop int
	// Arrival is when the vehicle arrives (after travel and buffer).
	Arrival int64
	// ServiceStart is when service starts: the earliest feasible time at or
	// after Arrival.
	ServiceStart int64
	// Departure is ServiceStart plus the stop's Service.
	Departure int64
}

// Route is one vehicle's planned route.
//
// Its schedule is the one with the least waiting: the route leaves Start as
// late as it can without ending later than when leaving at ShiftStart
// (StartTime), and from then on every stop is served as early as possible.
// A wait is left only before a stop whose window opens later than the
// vehicle can arrive, where an earlier stop's window (or fixed time) does not
// allow leaving later; EndTime is the earliest possible.
type Route struct {
	// Visits are the visited stops in route order.
	Visits []Visit
	// Value is the total value of the visited stops.
	Value int64
	// TravelTime is the total travel time: start to first stop, between
	// stops, last stop to end. It excludes buffer, waiting and service.
	TravelTime int64
	// StartTime is when the vehicle leaves Start or, without Start, starts
	// the service at its first stop (ShiftStart for an empty route).
	StartTime int64
	// EndTime is when the vehicle arrives at End or, without End, finishes the
	// service at its last stop (ShiftStart for an empty route without End).
	EndTime int64
	// Break is when the vehicle pauses, nil when it takes no break. After is
	// the number of visits before it (0: before the first stop).
	Break *BreakTime
}

// BreakTime is when a vehicle takes its break.
type BreakTime struct {
	Start, End int64
	After      int
}

// Solution is a planned single-vehicle route.
type Solution struct {
	Route
	// Unrouted lists every stop that is not visited, by increasing index,
	// with the reason.
	Unrouted []Unrouted
}

// TeamSolution is a plan for a team: one route per vehicle, no stop in two.
//
// The objective is lexicographic: the total Value of the visited stops
// first, then the total travel time, then the balance of the day: the latest
// EndTime of the routes.
type TeamSolution struct {
	// Routes are the vehicles' routes, in the order of TeamProblem.Vehicles.
	Routes []Route
	// Value and TravelTime are the sums over the routes.
	Value, TravelTime int64
	// Unrouted lists every stop no vehicle visits, by increasing index, with
	// the reason.
	Unrouted []Unrouted
}

// Unrouted is a stop left out of the route and why.
type Unrouted struct {
	// Stop is the index into Problem.Stops.
	Stop int
	// Reason says why the stop is not visited.
	Reason Reason
}

// Reason says why a stop is not visited, so that a caller can tell a
// customer whether changing its window would help.
type Reason int

// The reasons a stop is not visited.
const (
	// InfeasibleAlone: the stop cannot be served even as the only stop of the
	// route, by any vehicle (its windows and service do not fit in the shift
	// together with the travel from Start and to End).
	InfeasibleAlone Reason = iota + 1
	// NoRoom: the stop could be served alone, but it fits into no chosen
	// route, which collect more value with other stops.
	NoRoom
	// MaxStops: the stop would fit into a chosen route in time, but every
	// such route already has its MaxStops stops.
	MaxStops
)

var reasonNames = map[Reason]string{
	InfeasibleAlone: "infeasible-alone",
	NoRoom:          "no-room",
	MaxStops:        "max-stops",
}

// String returns the reason's stable name (for logs and JSON).
func (r Reason) String() string {
	if s, ok := reasonNames[r]; ok {
		return s
	}
	return "unknown"
}

// MarshalText encodes the reason as its name, so JSON shows "no-room" rather
// than a number.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
