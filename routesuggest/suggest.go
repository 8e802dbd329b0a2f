package routesuggest

import (
	"context"
	"math"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/solver"
	"github.com/integration-connect/connect/store"
)

// suggest plans the route: it reads what it needs in one read transaction,
// then solves outside any transaction. included counts the job items whose
// target is on the route.
func (s *Service) suggest(ctx context.Context, tenantID string, jobID int64, req connect.CreateImportJobRouteSuggestionRequest, now time.Time) (connect.RouteSuggestion, int, error) {
	p, err := s.load(ctx, tenantID, jobID, req)
	if err != nil {
		return connect.RouteSuggestion{}, 0, err
	}
	points := p.points()
	travel, err := s.cfg.Travel.Matrix(ctx, points, p.profile)
	if err != nil {
		return connect.RouteSuggestion{}, 0, errors.Wrap(err, "computing travel times")
	}
	sol, err := solver.Solve(ctx, p.problem(travel, s.cfg.Iterations))
	if err != nil {
		return connect.RouteSuggestion{}, 0, errors.Wrap(err, "solving the route")
	}
	r := p.suggestion(sol, travel, points, now)
	return r, len(p.job.Items) - len(r.Excluded), nil
}

// load reads the job, the profile and the employee and sorts the job's items.
func (s *Service) load(ctx context.Context, tenantID string, jobID int64, req connect.CreateImportJobRouteSuggestionRequest) (*plan, error) {
	p := &plan{req: req}
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		if p.job, err = tx.Job(tenantID, jobID); errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "import job %d not found", jobID)
		} else if err != nil {
			return err
		}
		if err := p.resolve(tx, tenantID); err != nil {
			return err
		}
		return p.sort(tx)
	})
	return p, err
}

// resolve finds the employee and the profile: the request's, else the
// employee's, else DefaultProfile.
func (p *plan) resolve(tx store.Tx, tenantID string) error {
	if id := p.req.EmployeeID; id != nil {
		e, err := tx.Employee(tenantID, *id)
		if errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "employee %s not found", connect.Quote(*id))
		}
		if err != nil {
			return err
		}
		p.employee = e
	}
	profileID := p.req.OptimizationProfileID
	if profileID == nil && p.employee != nil {
		profileID = p.employee.ProfileID
	}
	p.profile = DefaultProfile()
	if profileID != nil {
		pr, err := tx.Profile(tenantID, *profileID)
		if errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "optimization profile %d not found", *profileID)
		}
		if err != nil {
			return err
		}
		p.profile = *pr
	}
	loc, err := location(p.profile)
	if err != nil {
		return err
	}
	p.dayStart = p.req.RouteDate.In(loc)
	return nil
}

// points are the matrix nodes: the candidates in order, then the start and
// end locations when the employee has them.
func (p *plan) points() []Point {
	points := make([]Point, 0, len(p.candidates)+2)
	for _, t := range p.candidates {
		points = append(points, Point{*t.Effective.Latitude, *t.Effective.Longitude})
	}
	if start, end := p.depots(); start != nil {
		points = append(points, Point{start.Latitude, start.Longitude}, Point{end.Latitude, end.Longitude})
	}
	return points
}

// depots are the employee's start and end (the start when no end is set).
func (p *plan) depots() (start, end *connect.RoutePoint) {
	if p.employee == nil || p.employee.Start == nil {
		return nil, nil
	}
	if p.employee.End == nil {
		return p.employee.Start, p.employee.Start
	}
	return p.employee.Start, p.employee.End
}

func (p *plan) problem(travel Travel, iterations int) solver.Problem {
	n := len(p.candidates)
	pr := solver.Problem{
		Travel: solver.Matrix(travel.Seconds), Start: -1, End: -1,
		Buffer: int64(deref32(p.req.MinimumBufferMinutes)) * 60, MaxStops: deref32(p.req.MaxStops),
		Iterations: iterations,
	}
	if start, _ := p.depots(); start != nil {
		pr.Start, pr.End = n, n+1
	}
	pr.ShiftStart, pr.ShiftEnd = p.shift()
	for i, t := range p.candidates {
		pr.Stops = append(pr.Stops, p.stop(i, t))
	}
	return pr
}

func deref32(i *int) int {
	if i == nil {
		return 0
	}
	return *i
}

// exclusion maps the solver's reasons to the contract's.
var exclusion = map[solver.Reason]connect.ExclusionReason{
	solver.InfeasibleAlone: connect.ExcludedOutsideShift,
	solver.NoRoom:          connect.ExcludedDoesNotFit,
	solver.MaxStops:        connect.ExcludedMaxStopsReached,
}

// suggestion turns the solution into the stored resource.
func (p *plan) suggestion(sol solver.Solution, travel Travel, points []Point, now time.Time) connect.RouteSuggestion {
	r := connect.RouteSuggestion{
		ImportJobID: p.job.ID, RouteDate: p.req.RouteDate, EmployeeID: p.req.EmployeeID,
		Status: connect.RouteDraft, CreatedAtUtc: now, Stops: []connect.RouteStop{}, Excluded: []connect.RouteExcludedItem{},
	}
	if p.profile.ID != 0 {
		r.OptimizationProfileID = &p.profile.ID
	}
	r.TimeZone = p.dayStart.Location().String()
	start, end := p.depots()
	r.Start, r.End = start, end
	p.addStops(&r, sol, travel)
	p.addExcluded(&r, sol)
	return r
}

func (p *plan) addStops(r *connect.RouteSuggestion, sol solver.Solution, travel Travel) {
	n := len(p.candidates)
	prev := -1
	if r.Start != nil {
		prev = n
	}
	var meters float64
	var seconds, waiting int64
	for i, v := range sol.Visits {
		t := p.candidates[v.Stop]
		legSeconds, legMeters := leg(travel, prev, v.Stop)
		meters, seconds = meters+legMeters, seconds+legSeconds
		wait := v.ServiceStart - v.Arrival
		waiting += wait
		r.Stops = append(r.Stops, connect.RouteStop{
			Sequence: i + 1, TargetID: t.ID, ExternalID: t.ExternalID, Title: t.Data.Title,
			Latitude: *t.Effective.Latitude, Longitude: *t.Effective.Longitude,
			ArrivalUtc: p.at(v.Arrival), WaitMinutes: minutes(wait),
			ServiceStartUtc: p.at(v.ServiceStart), DepartureUtc: p.at(v.Departure),
			TravelMinutesFromPrevious: minutes(legSeconds), TravelKmFromPrevious: round1(legMeters / 1000),
		})
		r.TotalWorkMinutes += t.Effective.EstimatedWorkMinutes
		prev = v.Stop
	}
	if len(sol.Visits) == 0 {
		return
	}
	if r.End != nil {
		legSeconds, legMeters := leg(travel, prev, n+1)
		meters, seconds = meters+legMeters, seconds+legSeconds
	}
	startAt, endAt := p.at(sol.StartTime), p.at(sol.EndTime)
	r.StartUtc, r.EndUtc = &startAt, &endAt
	r.TotalTravelKm, r.TotalTravelMinutes, r.WaitMinutes = round1(meters/1000), minutes(seconds), minutes(waiting)
}

// minutes turns solver seconds into minutes rounded to one decimal.
func minutes(seconds int64) float64 { return round1(float64(seconds) / 60) }

// leg is the travel from node from (-1: nowhere, the route's first stop) to
// node to.
func leg(travel Travel, from, to int) (int64, float64) {
	if from < 0 {
		return 0, 0
	}
	return travel.Seconds[from][to], travel.Meters[from][to]
}

// addExcluded lists every job item whose target is not on the route, in job
// order, with its reason.
func (p *plan) addExcluded(r *connect.RouteSuggestion, sol solver.Solution) {
	unrouted := map[int64]connect.ExclusionReason{}
	for _, u := range sol.Unrouted {
		unrouted[p.candidates[u.Stop].ID] = exclusion[u.Reason]
	}
	for i, v := range p.verdicts {
		reason := v.reason
		if reason == "" {
			reason = unrouted[v.target.ID]
		}
		if reason == "" {
			continue
		}
		item := connect.RouteExcludedItem{TargetID: p.job.Items[i].TargetID, ExternalID: p.job.Items[i].ExternalID, Reason: reason}
		if v.target != nil && v.target.Effective.HasCoordinates() {
			item.Latitude, item.Longitude = new(*v.target.Effective.Latitude), new(*v.target.Effective.Longitude)
		}
		r.Excluded = append(r.Excluded, item)
	}
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
