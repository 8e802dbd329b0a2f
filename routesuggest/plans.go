package routesuggest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/solver"
	"github.com/integration-connect/connect/store"
)

// Route plans: a team's day in one solve (connect.RoutePlanner), beside
// endpoint 6. The adapter works as endpoint 6's does, for several
// technicians: each has their own profile (speed, time zone, travel model),
// shift, start and end, and break; every target is a stop of at most one of
// them. Stops keep endpoint 6's value (priority factor × business value ×
// weight), and the priority factor ranks them above value: a target of a
// higher priority is left out only when no route could take it even without
// every target of a lower priority (solver.Stop.Priority).

var _ connect.RoutePlanner = (*Service)(nil)

// CreateRoutePlan plans a team's day: req's JSON, planned as
// CreateRoutePlanJSON plans it. See connect.RoutePlanner.
func (s *Service) CreateRoutePlan(ctx context.Context, caller connect.Caller, req connect.CreateRoutePlanRequest, opts connect.WriteOptions) (connect.RoutePlanOutcome, error) {
	body, err := connect.EncodeRequest(req)
	if err != nil {
		return connect.RoutePlanOutcome{}, err
	}
	return s.CreateRoutePlanJSON(ctx, caller, body, opts)
}

// CreateRoutePlanJSON decodes the body of POST {base_url}/route-plans and
// plans the team's day; the plan and its drafts are stored in one
// transaction with the idempotency record, as endpoint 6's suggestion is,
// and solves wait in the same queue. See connect.RoutePlanner.
func (s *Service) CreateRoutePlanJSON(ctx context.Context, caller connect.Caller, body []byte, opts connect.WriteOptions) (connect.RoutePlanOutcome, error) {
	if err := caller.RequireScope(connect.Required.CreateRoutePlan); err != nil {
		return connect.RoutePlanOutcome{}, err
	}
	w := store.Write{
		Caller: caller, Key: opts.IdempotencyKey, Operation: "POST /route-plans",
		Body: body, Now: s.now(), Retention: s.cfg.IdempotencyRetention,
	}
	claim, err := store.ClaimWrite[connect.CreateRoutePlanResponse](ctx, s.cfg.Store, w)
	if err != nil {
		return connect.RoutePlanOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return planOutcome(claim.Replay())
	}
	req, err := decodePlanRequest(body)
	if err != nil {
		return planOutcome(claim.Fail(ctx, err))
	}
	leave, err := s.queue.enter(ctx) // a refused request takes no place in the queue
	if err != nil {
		return connect.RoutePlanOutcome{}, err
	}
	defer leave()
	drafts, leftOut, err := s.planDay(ctx, caller.TenantID, req, w.Now)
	if err != nil {
		return planOutcome(claim.Fail(ctx, err))
	}
	return planOutcome(claim.Commit(ctx, func(tx store.Tx) (connect.CreateRoutePlanResponse, bool, error) {
		return storePlan(tx, caller.TenantID, req, drafts, leftOut, w.Now)
	}))
}

func planOutcome(out store.Outcome[connect.CreateRoutePlanResponse], err error) (connect.RoutePlanOutcome, error) {
	return connect.RoutePlanOutcome{Response: out.Value, Replayed: out.Replayed}, err
}

// decodePlanRequest decodes the body of POST {base_url}/route-plans,
// strictly (a member not in the schema is refused), checks it and clamps its
// optional bounds as endpoint 6 clamps them.
func decodePlanRequest(body []byte) (connect.CreateRoutePlanRequest, error) {
	var req connect.CreateRoutePlanRequest
	limits := connect.Limits{What: "route plan request", Bounds: map[string]connect.Bound{
		"employeeIds":  {Max: connect.MaxPlanEmployees, Code: connect.CodeInvalidRequest},
		"importJobIds": {Max: maxPlanJobs, Code: connect.CodeInvalidRequest},
	}}
	if err := connect.DecodeBounded(body, &req, limits, json.RejectUnknownMembers(true)); err != nil {
		return req, err
	}
	if req.RouteDate.IsZero() {
		return req, connect.Errorf(connect.CodeInvalidRequest, "routeDate is required, a date such as 2026-11-21")
	}
	if len(req.EmployeeIDs) == 0 {
		return req, connect.Errorf(connect.CodeInvalidRequest, "employeeIds is required and must name 1 to %d employees", connect.MaxPlanEmployees)
	}
	seen := map[string]bool{}
	for i, id := range req.EmployeeIDs {
		if seen[id] {
			return req, connect.Errorf(connect.CodeInvalidRequest, "employeeIds[%d] is %s again: name each employee once", i, connect.Quote(id))
		}
		seen[id] = true
	}
	if b := req.MinimumBufferMinutes; b != nil {
		req.MinimumBufferMinutes = new(min(max(*b, 0), maxBufferMinutes))
	}
	if m := req.MaxStops; m != nil {
		req.MaxStops = new(min(max(*m, 1), maxStopsLimit))
	}
	return req, nil
}

// maxPlanJobs bounds the import jobs one plan names.
const maxPlanJobs = 100

// storePlan stores the drafts and the plan in the transaction of the write,
// and answers with the plan's summary.
func storePlan(tx store.Tx, tenantID string, req connect.CreateRoutePlanRequest, drafts []connect.RouteSuggestion, leftOut []connect.RouteExcludedItem, now time.Time) (connect.CreateRoutePlanResponse, bool, error) {
	plan := &store.RoutePlan{
		TenantID: tenantID, RouteDate: req.RouteDate, Status: connect.RouteDraft, CreatedAtUtc: now,
		EmployeeIDs: req.EmployeeIDs, ImportJobIDs: req.ImportJobIDs, LeftOut: leftOut,
	}
	recs := make([]*store.RouteSuggestion, len(drafts))
	for i, d := range drafts {
		recs[i] = &store.RouteSuggestion{TenantID: tenantID, RouteSuggestion: d}
		if err := tx.CreateRouteSuggestion(recs[i]); err != nil {
			return connect.CreateRoutePlanResponse{}, false, err
		}
		plan.RouteSuggestionIDs = append(plan.RouteSuggestionIDs, recs[i].ID)
	}
	if err := tx.CreateRoutePlan(plan); err != nil {
		return connect.CreateRoutePlanResponse{}, false, err
	}
	resp := connect.CreateRoutePlanResponse{RoutePlanID: plan.ID, Status: plan.Status, Routes: []connect.RoutePlanRoute{}, LeftOutTargets: len(leftOut)}
	for i, rec := range recs {
		rec.RoutePlanID = &plan.ID
		if err := tx.PutRouteSuggestion(rec); err != nil {
			return connect.CreateRoutePlanResponse{}, false, err
		}
		resp.Routes = append(resp.Routes, connect.RoutePlanRoute{EmployeeID: req.EmployeeIDs[i], RouteSuggestionID: rec.ID, IncludedTargets: len(rec.Stops)})
		resp.IncludedTargets += len(rec.Stops)
	}
	return resp, true, nil
}

// GetRoutePlan returns a plan of the caller's tenant with its drafts (scope
// import_jobs.read). See connect.RoutePlanner.
func (s *Service) GetRoutePlan(ctx context.Context, caller connect.Caller, id int64) (connect.RoutePlan, error) {
	if err := caller.RequireScope(connect.Required.ReadRoutePlans); err != nil {
		return connect.RoutePlan{}, err
	}
	var plan connect.RoutePlan
	err := s.cfg.Store.View(ctx, func(tx store.Tx) error {
		rec, err := tx.RoutePlan(caller.TenantID, id)
		if errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "route plan %d not found", id)
		}
		if err != nil {
			return err
		}
		plan = connect.RoutePlan{
			ID: rec.ID, RouteDate: rec.RouteDate, Status: rec.Status, CreatedAtUtc: rec.CreatedAtUtc,
			EmployeeIDs: rec.EmployeeIDs, ImportJobIDs: nonNil(rec.ImportJobIDs), Routes: []connect.RouteSuggestion{}, LeftOut: nonNil(rec.LeftOut),
		}
		for _, rid := range rec.RouteSuggestionIDs {
			draft, err := suggestion(tx, caller.TenantID, rid)
			if err != nil {
				return err
			}
			plan.Routes = append(plan.Routes, draft.RouteSuggestion)
		}
		return nil
	})
	return plan, err
}

// nonNil is s, or an empty slice for nil, so lists are [] in JSON.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// crew is one technician of a plan being worked out.
type crew struct {
	employee *store.Employee
	profile  store.OptimizationProfile
	dayStart time.Time // local midnight of the route date
	model    TravelModel
	travel   int // index into the plan's travels
	fallback bool
	// start and end are the matrix nodes of the depots, -1 without.
	start, end int
	shift      shiftSpan
}

// dayPlan is a route plan being worked out.
type dayPlan struct {
	req     connect.CreateRoutePlanRequest
	profile store.OptimizationProfile // of the values and of employees without one
	crews   []*crew
	// base is solver time 0, the earliest local midnight of the day among
	// the crews; from and to bound the day, from the earliest local midnight
	// to the latest next one.
	base, from, to time.Time
	jobs           []*store.Job
	candidates     []*store.Target
	leftOut        []connect.RouteExcludedItem
	travels        []Travel
	fallbacks      []bool // per travel: great-circle in place of the failed road engine
	noRoad         []bool
	stopCandidate  []int
}

// seconds is t as solver time.
func (p *dayPlan) seconds(t time.Time) int64 { return int64(t.Sub(p.base) / time.Second) }

// at is solver time as UTC.
func (p *dayPlan) at(seconds int64) time.Time {
	return p.base.Add(time.Duration(seconds) * time.Second).UTC()
}

// planDay reads what the plan needs in one read transaction, then fetches the
// travel and solves outside any transaction, and returns one draft per
// employee and the targets left out.
func (s *Service) planDay(ctx context.Context, tenantID string, req connect.CreateRoutePlanRequest, now time.Time) ([]connect.RouteSuggestion, []connect.RouteExcludedItem, error) {
	p := &dayPlan{req: req}
	err := s.cfg.Store.View(ctx, func(tx store.Tx) error {
		if err := p.resolve(tx, tenantID); err != nil {
			return err
		}
		return p.gather(tx, tenantID)
	})
	if err != nil {
		return nil, nil, err
	}
	points := p.points()
	if err := s.fetchTravel(ctx, p, points); err != nil {
		return nil, nil, err
	}
	p.markNoRoadAccess()
	problem := p.problem(s.cfg.Iterations)
	sol, err := solver.SolveTeam(ctx, problem)
	if err != nil {
		return nil, nil, errors.Wrap(err, "solving the plan")
	}
	drafts := p.drafts(sol, now)
	for i, c := range p.crews {
		if paths, ok := c.model.(RoadPaths); ok && !c.fallback && p.travels[c.travel].Model == connect.TravelRoad {
			s.drawOnRoads(ctx, paths, &drafts[i])
		}
	}
	return drafts, p.excluded(problem, sol), nil
}

// resolve reads the employees, their profiles and the import jobs.
func (p *dayPlan) resolve(tx store.Tx, tenantID string) error {
	p.profile = DefaultProfile()
	if id := p.req.OptimizationProfileID; id != nil {
		pr, err := profile(tx, tenantID, *id, "optimizationProfileId")
		if err != nil {
			return err
		}
		p.profile = *pr
	}
	for i, id := range p.req.EmployeeIDs {
		e, err := tx.Employee(tenantID, id)
		if errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "employeeIds[%d] is %s, an employee the tenant does not have", i, connect.Quote(id))
		}
		if err != nil {
			return err
		}
		c := &crew{employee: e, profile: p.profile}
		if e.ProfileID != nil {
			pr, err := profile(tx, tenantID, *e.ProfileID, fmt.Sprintf("employeeIds[%d]'s profile", i))
			if err != nil {
				return err
			}
			c.profile = *pr
		}
		loc, err := location(c.profile)
		if err != nil {
			return err
		}
		c.dayStart = p.req.RouteDate.In(loc)
		p.crews = append(p.crews, c)
	}
	p.frame()
	for i, id := range p.req.ImportJobIDs {
		job, err := tx.Job(tenantID, id)
		if errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "importJobIds[%d] is %d, an import job the tenant does not have", i, id)
		}
		if err != nil {
			return err
		}
		p.jobs = append(p.jobs, job)
	}
	return nil
}

// profile reads a profile of a tenant; an unknown one is NotFound naming
// field, where the request (or an employee) names it.
func profile(tx store.Tx, tenantID string, id int64, field string) (*store.OptimizationProfile, error) {
	pr, err := tx.Profile(tenantID, id)
	if errors.Is(err, connect.ErrNotFound) {
		return nil, connect.Errorf(connect.CodeNotFound, "%s is %d, an optimization profile the tenant does not have", field, id)
	}
	return pr, err
}

// frame sets the day and solver time 0 from the crews' local days.
func (p *dayPlan) frame() {
	p.from, p.to = p.crews[0].dayStart, p.crews[0].dayStart.AddDate(0, 0, 1)
	for _, c := range p.crews {
		if c.dayStart.Before(p.from) {
			p.from = c.dayStart
		}
		if end := c.dayStart.AddDate(0, 0, 1); end.After(p.to) {
			p.to = end
		}
	}
	p.base = p.from
	for _, c := range p.crews {
		c.shift = p.shiftOf(c)
	}
}

// shiftOf is a crew's working day in solver time: the employee's hours, else
// the profile's, on the route date in the profile's time zone.
func (p *dayPlan) shiftOf(c *crew) shiftSpan {
	from, to := c.profile.ShiftStart, c.profile.ShiftEnd
	if c.employee.ShiftStart != nil {
		from = *c.employee.ShiftStart
	}
	if c.employee.ShiftEnd != nil {
		to = *c.employee.ShiftEnd
	}
	return shiftSpan{p.clock(c, from), p.clock(c, to)}
}

// clock turns "HH:MM" on a crew's route date into solver time.
func (p *dayPlan) clock(c *crew, hhmm string) int64 {
	minutes, _ := connect.ParseClock(hhmm) // validated when stored
	d := c.dayStart
	return p.seconds(time.Date(d.Year(), d.Month(), d.Day(), minutes/60, minutes%60, 0, 0, d.Location()))
}

// gather finds the candidates: the targets of the named jobs that can be on
// the day (endpoint 6's rules), or, without jobs, every target of the tenant
// for the day. Every target that cannot be a candidate is left out with its
// reason; a job item twice counts once.
func (p *dayPlan) gather(tx store.Tx, tenantID string) error {
	seen := map[int64]bool{}
	consider := func(t *store.Target) {
		if seen[t.ID] {
			return
		}
		seen[t.ID] = true
		switch {
		case t.Status == store.TargetCancelled:
			p.leaveOut(t, connect.ExcludedCancelled)
		case !touchesDay(t, p.req.RouteDate, p.from, p.to):
			p.leaveOut(t, connect.ExcludedOtherRouteDate)
		case !t.Effective.HasCoordinates():
			p.leaveOut(t, connect.ExcludedMissingCoordinates)
		default:
			p.candidates = append(p.candidates, t)
		}
	}
	if len(p.jobs) == 0 {
		if err := p.gatherDay(tx, tenantID, consider); err != nil {
			return err
		}
	}
	for _, job := range p.jobs {
		for _, item := range job.Items {
			if item.Status == connect.ItemRejected || item.TargetID == nil {
				p.leftOut = append(p.leftOut, connect.RouteExcludedItem{ExternalID: item.ExternalID, Reason: connect.ExcludedRejected,
					Message: exclusionMessage(connect.ExcludedRejected, true, 0)})
				continue
			}
			t, err := tx.Target(tenantID, *item.TargetID)
			if err != nil {
				return errors.Wrapf(err, "target %d of job %d", *item.TargetID, job.ID)
			}
			consider(t)
		}
	}
	if len(p.candidates) > solver.MaxProblemStops {
		field := "importJobIds"
		if len(p.req.ImportJobIDs) == 0 {
			field = "routeDate"
		}
		return connect.Errorf(connect.CodeInvalidRequest, "%s has %d targets to route, more than the %d one plan takes: name fewer importJobIds, or split the team's day",
			field, len(p.candidates), solver.MaxProblemStops)
	}
	return nil
}

// gatherDay considers every non-cancelled target of the tenant that is for
// the day: its route date is the day, or it has none and its time window or
// due time falls on the day. Targets without planning are for no day in
// particular and are left to the plans that name their jobs. The targets are
// considered in id order, so the plan does not depend on the engine's order.
func (p *dayPlan) gatherDay(tx store.Tx, tenantID string, consider func(*store.Target)) error {
	var day []*store.Target
	err := tx.TenantTargets(tenantID, func(t *store.Target) error {
		if t.Status == store.TargetActive && p.forTheDay(t) {
			day = append(day, t)
		}
		return nil
	})
	slices.SortFunc(day, func(a, b *store.Target) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range day {
		consider(t)
	}
	return err
}

// forTheDay reports whether a target names the plan's day: by its route date,
// or, without one, by a time window or due time on the day.
func (p *dayPlan) forTheDay(t *store.Target) bool {
	pl := t.Data.Planning
	switch {
	case pl == nil:
		return false
	case pl.RouteDate != nil:
		return *pl.RouteDate == p.req.RouteDate
	case pl.TimeWindowStartUtc == nil && pl.TimeWindowEndUtc == nil && pl.DueAtUtc == nil:
		return false
	}
	return touchesDay(t, p.req.RouteDate, p.from, p.to)
}

// leaveOut records a target left out with its reason.
func (p *dayPlan) leaveOut(t *store.Target, reason connect.ExclusionReason) {
	item := connect.RouteExcludedItem{TargetID: &t.ID, ExternalID: t.ExternalID, Reason: reason,
		Message: exclusionMessage(reason, true, t.Effective.EstimatedWorkMinutes)}
	if t.Effective.HasCoordinates() {
		item.Latitude, item.Longitude = new(*t.Effective.Latitude), new(*t.Effective.Longitude)
	}
	p.leftOut = append(p.leftOut, item)
}

// points are the matrix nodes: the candidates in order, then each crew's
// start and end when it has them.
func (p *dayPlan) points() []Point {
	points := make([]Point, 0, len(p.candidates)+2*len(p.crews))
	for _, t := range p.candidates {
		points = append(points, Point{*t.Effective.Latitude, *t.Effective.Longitude})
	}
	for _, c := range p.crews {
		c.start, c.end = -1, -1
		start, end := c.employee.Start, c.employee.End
		if start == nil {
			continue
		}
		if end == nil {
			end = start
		}
		c.start, c.end = len(points), len(points)+1
		points = append(points, Point{start.Latitude, start.Longitude}, Point{end.Latitude, end.Longitude})
	}
	return points
}

// fetchTravel fetches the travel between the points once per model: once for
// every crew on the road engine, once per speed and detour for the crews on
// great-circle estimates.
func (s *Service) fetchTravel(ctx context.Context, p *dayPlan, points []Point) error {
	keys := map[string]int{}
	for _, c := range p.crews {
		c.model = s.model(c.profile)
		key := "road"
		if _, gc := c.model.(GreatCircle); gc {
			key = fmt.Sprintf("greatCircle %g %g", c.profile.AverageSpeedKmh, c.profile.DetourFactor)
		}
		i, ok := keys[key]
		if !ok {
			t, fallback, err := s.travel(ctx, c.model, points, c.profile)
			if err != nil {
				return err
			}
			i, keys[key] = len(p.travels), len(p.travels)
			p.travels, p.fallbacks = append(p.travels, t), append(p.fallbacks, fallback)
		}
		c.travel, c.fallback = i, p.fallbacks[i]
	}
	return nil
}

// markNoRoadAccess finds the candidates the road network does not reach, as
// endpoint 6 does, for every crew on the road engine; a plan with a crew on
// great-circle estimates reaches every candidate.
func (p *dayPlan) markNoRoadAccess() {
	n := len(p.candidates)
	p.noRoad = make([]bool, n)
	for _, c := range p.crews {
		if p.travels[c.travel].Model != connect.TravelRoad {
			return
		}
	}
	for i := range n {
		p.noRoad[i] = true
		for _, c := range p.crews {
			if p.reaches(c, i) {
				p.noRoad[i] = false
				break
			}
		}
	}
}

// reaches reports whether crew c's roads reach candidate i (see
// plan.markNoRoadAccess).
func (p *dayPlan) reaches(c *crew, i int) bool {
	t := p.travels[c.travel]
	switch {
	case t.OffRoad != nil && t.OffRoad[i]:
		return false
	case c.start >= 0:
		return t.Seconds[c.start][i] < NoRoute && t.Seconds[i][c.end] < NoRoute
	}
	return len(p.candidates) == 1 || !isolated(t, i, len(p.candidates))
}

// problem is the solver's team problem: a vehicle per crew, a stop per
// candidate the roads reach, valued by the plan's profile and ranked by its
// priority factor.
func (p *dayPlan) problem(iterations int) solver.TeamProblem {
	pr := solver.TeamProblem{
		Buffer: int64(deref32(p.req.MinimumBufferMinutes)) * 60, Iterations: iterations,
	}
	for _, t := range p.travels {
		pr.Travels = append(pr.Travels, solver.Matrix(t.Seconds))
	}
	for _, c := range p.crews {
		pr.Vehicles = append(pr.Vehicles, solver.Vehicle{
			Travel: c.travel, Start: c.start, End: c.end, ShiftStart: c.shift.start, ShiftEnd: c.shift.end,
			MaxStops: deref32(p.req.MaxStops),
			Break:    breakOf(breakRule(c.employee, c.profile), func(hhmm string) int64 { return p.clock(c, hhmm) }),
		})
	}
	p.stopCandidate = p.stopCandidate[:0]
	for i, t := range p.candidates {
		if p.noRoad[i] {
			continue
		}
		stop := targetStop(i, t, p.seconds, p.from)
		stop.Value = value(t, p.profile)
		stop.Priority = int(priorityFactor(t.Effective.Priority, p.profile))
		pr.Stops = append(pr.Stops, stop)
		p.stopCandidate = append(p.stopCandidate, i)
	}
	return pr
}

// drafts turns the solved routes into one draft RouteSuggestion per crew.
func (p *dayPlan) drafts(sol solver.TeamSolution, now time.Time) []connect.RouteSuggestion {
	var jobID int64
	if len(p.jobs) == 1 {
		jobID = p.jobs[0].ID
	}
	drafts := make([]connect.RouteSuggestion, len(p.crews))
	for i, c := range p.crews {
		r := connect.RouteSuggestion{
			ImportJobID: jobID, RouteDate: p.req.RouteDate, EmployeeID: &c.employee.ID, TimeZone: c.dayStart.Location().String(),
			Status: connect.RouteDraft, CreatedAtUtc: now, Stops: []connect.RouteStop{}, Excluded: []connect.RouteExcludedItem{},
			TravelModel: p.travels[c.travel].Model, TravelFallback: c.fallback,
		}
		if c.profile.ID != 0 {
			r.OptimizationProfileID = &c.profile.ID
		}
		if c.start >= 0 {
			r.Start, r.End = c.employee.Start, c.employee.End
			if r.End == nil {
				r.End = r.Start
			}
		}
		fillRoute(&r, sol.Routes[i], routeShape{travel: p.travels[c.travel], start: c.start, end: c.end, at: p.at,
			target: func(stop int) (*store.Target, int) {
				node := p.stopCandidate[stop]
				return p.candidates[node], node
			}})
		drafts[i] = r
	}
	return drafts
}

// excluded lists every target left out: those that could not be
// candidates, those the roads do not reach, and those no route took, with
// the reasons a dispatcher can act on, in the order they were considered.
func (p *dayPlan) excluded(problem solver.TeamProblem, sol solver.TeamSolution) []connect.RouteExcludedItem {
	shifts := make([]shiftSpan, len(p.crews))
	for i, c := range p.crews {
		shifts[i] = c.shift
	}
	for i, t := range p.candidates {
		if p.noRoad[i] {
			p.leaveOut(t, connect.ExcludedNoRoadAccess)
		}
	}
	for _, u := range sol.Unrouted {
		p.leaveOut(p.candidates[p.stopCandidate[u.Stop]], unroutedReason(u.Reason, problem.Stops[u.Stop], shifts))
	}
	return nonNil(p.leftOut)
}
