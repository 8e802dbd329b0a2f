package routesuggest

import (
	"context"
	"fmt"
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
	model := s.model(p.profile)
	travel, fallback, err := s.travel(ctx, model, points, p.profile)
	if err != nil {
		return connect.RouteSuggestion{}, 0, err
	}
	p.markNoRoadAccess(travel)
	sol, err := solver.Solve(ctx, p.problem(travel, s.cfg.Iterations))
	if err != nil {
		return connect.RouteSuggestion{}, 0, errors.Wrap(err, "solving the route")
	}
	r := p.suggestion(sol, travel, now)
	r.TravelFallback = fallback
	if paths, ok := model.(RoadPaths); ok && !fallback {
		s.drawOnRoads(ctx, paths, &r)
	}
	return r, len(p.job.Items) - len(r.Excluded), nil
}

// model is the travel model a profile plans with.
func (s *Service) model(profile store.OptimizationProfile) TravelModel {
	if profile.TravelModel == connect.TravelGreatCircle {
		return GreatCircle{}
	}
	return s.cfg.Travel
}

// travel asks model for the travel between points. When the model is
// unavailable, it falls back to great-circle estimates if the operator allows
// it (fallback is then true), else fails with ServiceUnavailable; either way
// the cause is logged for the operator, never shown to the caller.
func (s *Service) travel(ctx context.Context, model TravelModel, points []Point, profile store.OptimizationProfile) (t Travel, fallback bool, err error) {
	t, err = model.Matrix(ctx, points, profile)
	if !errors.Is(err, ErrTravelUnavailable) {
		return t, false, errors.Wrap(err, "computing travel times")
	}
	if !s.cfg.TravelFallback {
		s.cfg.Logger.ErrorContext(ctx, "the road engine is unavailable; the route request fails", "error", err.Error())
		return Travel{}, false, &connect.Error{Code: connect.CodeServiceUnavailable, RetryAfter: travelRetryAfter,
			Message: "the road engine that plans routes is unavailable; retry later"}
	}
	s.cfg.Logger.WarnContext(ctx, "the road engine is unavailable; planning on great-circle estimates", "error", err.Error())
	t, err = GreatCircle{}.Matrix(ctx, points, profile)
	return t, true, err
}

// travelRetryAfter is when a request refused for want of the road engine may
// be retried.
const travelRetryAfter = 10 * time.Second

// drawOnRoads gives every leg of r its road path, so that its map shows the
// roads its times were measured on. It is best effort: a leg without a path
// is drawn straight, and a failure is logged, not the request's.
func (s *Service) drawOnRoads(ctx context.Context, paths RoadPaths, r *connect.RouteSuggestion) {
	var route []Point
	if r.Start != nil {
		route = append(route, Point{r.Start.Latitude, r.Start.Longitude})
	}
	for _, stop := range r.Stops {
		route = append(route, Point{stop.Latitude, stop.Longitude})
	}
	if r.End != nil && len(r.Stops) > 0 {
		route = append(route, Point{r.End.Latitude, r.End.Longitude})
	}
	legs, err := paths.Paths(ctx, route)
	if err != nil || len(legs) != max(len(route)-1, 0) {
		s.cfg.Logger.WarnContext(ctx, "the road paths of a route could not be fetched; its map draws straight legs", "error", fmt.Sprint(err))
		return
	}
	first := 0 // the stop the first leg leads to
	if r.Start == nil {
		first = 1
	}
	for i, leg := range legs {
		geometry := encodePolyline(leg)
		if stop := first + i; stop < len(r.Stops) {
			r.Stops[stop].GeometryFromPrevious = &geometry
		} else {
			r.GeometryToEnd = &geometry
		}
	}
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

// markNoRoadAccess finds the candidates the road network does not reach: a
// candidate farther from any road than the model accepts, or one with no road
// from the route's start or to its end (roads that connect two places connect
// everything between, so no other order could reach it), or, on a route
// without a start, one no road connects with any other candidate. The start
// and end themselves are the employee's, taken as they snap.
func (p *plan) markNoRoadAccess(t Travel) {
	n := len(p.candidates)
	p.noRoad = make([]bool, n)
	start, end := -1, -1
	if depot, _ := p.depots(); depot != nil {
		start, end = n, n+1
	}
	for i := range n {
		switch {
		case t.OffRoad != nil && t.OffRoad[i]:
			p.noRoad[i] = true
		case start >= 0:
			p.noRoad[i] = t.Seconds[start][i] >= NoRoute || t.Seconds[i][end] >= NoRoute
		default:
			p.noRoad[i] = n > 1 && isolated(t, i, n)
		}
	}
}

// isolated reports whether no road leads from candidate i to another of the n
// candidates, or from another to it.
func isolated(t Travel, i, n int) bool {
	for j := range n {
		if j != i && (t.Seconds[i][j] < NoRoute || t.Seconds[j][i] < NoRoute) {
			return false
		}
	}
	return true
}

// problem is the solver's problem: every candidate the roads reach is a stop
// at its matrix node.
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
	pr.Break = breakOf(breakRule(p.employee, p.profile), p.clock)
	p.stopCandidate = p.stopCandidate[:0]
	for i, t := range p.candidates {
		if !p.noRoad[i] {
			pr.Stops = append(pr.Stops, p.stop(i, t))
			p.stopCandidate = append(p.stopCandidate, i)
		}
	}
	return pr
}

func deref32(i *int) int {
	if i == nil {
		return 0
	}
	return *i
}

// suggestion turns the solution into the stored resource.
func (p *plan) suggestion(sol solver.Solution, travel Travel, now time.Time) connect.RouteSuggestion {
	r := connect.RouteSuggestion{
		ImportJobID: p.job.ID, RouteDate: p.req.RouteDate, EmployeeID: p.req.EmployeeID,
		Status: connect.RouteDraft, CreatedAtUtc: now, Stops: []connect.RouteStop{}, Excluded: []connect.RouteExcludedItem{},
		TravelModel: travel.Model,
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
	sh := routeShape{travel: travel, start: -1, end: -1, at: p.at, target: func(stop int) (*store.Target, int) {
		node := p.stopCandidate[stop]
		return p.candidates[node], node
	}}
	if r.Start != nil {
		sh.start, sh.end = n, n+1
	}
	fillRoute(r, sol.Route, sh)
}

// routeShape is what fillRoute needs to know of a solved route: the travel
// it was planned on, the target and matrix node of every solver stop, the
// nodes of its depots (-1 without) and how solver time maps to UTC.
type routeShape struct {
	travel     Travel
	target     func(stop int) (*store.Target, int)
	start, end int
	at         func(int64) time.Time
}

// fillRoute gives r the stops, times, totals and break of a solved route.
func fillRoute(r *connect.RouteSuggestion, route solver.Route, sh routeShape) {
	prev := sh.start
	var meters float64
	var seconds, waiting int64
	for i, v := range route.Visits {
		t, node := sh.target(v.Stop)
		legSeconds, legMeters := leg(sh.travel, prev, node)
		meters, seconds = meters+legMeters, seconds+legSeconds
		wait := v.ServiceStart - v.Arrival
		waiting += wait
		r.Stops = append(r.Stops, connect.RouteStop{
			Sequence: i + 1, TargetID: t.ID, ExternalID: t.ExternalID, Title: t.Data.Title,
			Latitude: *t.Effective.Latitude, Longitude: *t.Effective.Longitude,
			ArrivalUtc: sh.at(v.Arrival), WaitMinutes: minutes(wait),
			ServiceStartUtc: sh.at(v.ServiceStart), DepartureUtc: sh.at(v.Departure),
			TravelMinutesFromPrevious: minutes(legSeconds), TravelKmFromPrevious: round1(legMeters / 1000),
		})
		r.TotalWorkMinutes += t.Effective.EstimatedWorkMinutes
		prev = node
	}
	if len(route.Visits) == 0 {
		return
	}
	if sh.end >= 0 {
		legSeconds, legMeters := leg(sh.travel, prev, sh.end)
		meters, seconds = meters+legMeters, seconds+legSeconds
	}
	startAt, endAt := sh.at(route.StartTime), sh.at(route.EndTime)
	r.StartUtc, r.EndUtc = &startAt, &endAt
	r.TotalTravelKm, r.TotalTravelMinutes, r.WaitMinutes = round1(meters/1000), minutes(seconds), minutes(waiting)
	if b := route.Break; b != nil {
		r.Break = &connect.RouteBreak{StartUtc: sh.at(b.Start), EndUtc: sh.at(b.End), AfterStop: b.After}
	}
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
	start, end := p.shift()
	for _, u := range sol.Unrouted {
		node := p.stopCandidate[u.Stop]
		unrouted[p.candidates[node].ID] = unroutedReason(u.Reason, p.stop(node, p.candidates[node]), []shiftSpan{{start, end}})
	}
	for i, t := range p.candidates {
		if p.noRoad[i] {
			unrouted[t.ID] = connect.ExcludedNoRoadAccess
		}
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
		work := 0
		if v.target != nil {
			work = v.target.Effective.EstimatedWorkMinutes
		}
		item.Message = exclusionMessage(reason, false, work)
		if v.target != nil && v.target.Effective.HasCoordinates() {
			item.Latitude, item.Longitude = new(*v.target.Effective.Latitude), new(*v.target.Effective.Longitude)
		}
		r.Excluded = append(r.Excluded, item)
	}
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
