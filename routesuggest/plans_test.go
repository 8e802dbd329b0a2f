package routesuggest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/routesuggest/routetest"
	"github.com/integration-connect/connect/store"
)

// crew puts employees of tenant acme on the store: each starts and ends at
// the depot, the first with a 30-minute break between 11:30 and 13:30.
func crew(t testing.TB, e env, ids ...string) {
	t.Helper()
	for i, id := range ids {
		emp := store.Employee{ID: id, Start: &connect.RoutePoint{Latitude: 52.50, Longitude: 13.35}}
		if i == 0 {
			emp.Break = &store.BreakRule{Minutes: 30, Earliest: "11:30", Latest: "13:30"}
		}
		if _, err := e.routes.PutEmployee(ctx, "acme", emp); err != nil {
			t.Fatal(err)
		}
	}
}

func (e env) plan(t testing.TB, req connect.CreateRoutePlanRequest) (connect.CreateRoutePlanResponse, connect.RoutePlan) {
	t.Helper()
	out, err := e.routes.CreateRoutePlan(ctx, caller, req, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := e.routes.GetRoutePlan(ctx, caller, out.Response.RoutePlanID)
	if err != nil {
		t.Fatal(err)
	}
	return out.Response, plan
}

// TestRoutePlanSplitsTheDay: 30 Berlin targets and two technicians, the
// case of the issue: every target is on at most one of the drafts, every
// other one is left out with a reason, the break is taken in its window, and
// the drafts are stored and readable like endpoint 6's.
func TestRoutePlanSplitsTheDay(t *testing.T) {
	e := mustOpen(t)
	crew(t, e, "anna", "ben")
	jobID := e.importBatch(t, routetest.Targets(30)...)
	resp, plan := e.plan(t, connect.CreateRoutePlanRequest{RouteDate: day, EmployeeIDs: []string{"anna", "ben"}, ImportJobIDs: []int64{jobID}})
	if resp.Status != connect.RouteDraft || len(resp.Routes) != 2 || len(plan.Routes) != 2 {
		t.Fatalf("response %+v", resp)
	}
	seen := map[int64]string{}
	included := 0
	for i, r := range plan.Routes {
		if r.Status != connect.RouteDraft || *r.EmployeeID != []string{"anna", "ben"}[i] || *r.RoutePlanID != plan.ID || r.ImportJobID != jobID {
			t.Errorf("draft %d: %s %v plan %v job %d", i, r.Status, *r.EmployeeID, r.RoutePlanID, r.ImportJobID)
		}
		for _, s := range r.Stops {
			if other, ok := seen[s.TargetID]; ok {
				t.Fatalf("target %d is on the routes of %s and %s", s.TargetID, other, *r.EmployeeID)
			}
			seen[s.TargetID] = *r.EmployeeID
		}
		included += len(r.Stops)
		got, err := e.routes.GetRouteSuggestion(ctx, caller, resp.Routes[i].RouteSuggestionID)
		if err != nil || got.ID != r.ID || len(got.Stops) != len(r.Stops) {
			t.Errorf("draft %d read alone: %v", i, err)
		}
	}
	if included != resp.IncludedTargets || included+len(plan.LeftOut) != 30 || resp.LeftOutTargets != len(plan.LeftOut) {
		t.Errorf("%d included + %d left out of 30 targets (response %d/%d)", included, len(plan.LeftOut), resp.IncludedTargets, resp.LeftOutTargets)
	}
	if included < 20 {
		t.Errorf("only %d of 30 targets planned with two technicians", included)
	}
	for _, l := range plan.LeftOut {
		if l.Reason == "" || l.Message == "" || seen[*l.TargetID] != "" {
			t.Errorf("left out %+v", l)
		}
	}
	b := plan.Routes[0].Break
	lunch := func(hhmm string) time.Time {
		v, _ := time.Parse("2006-01-02 15:04", "2026-11-23 "+hhmm)
		return v
	}
	if b == nil || b.StartUtc.Before(lunch("11:30")) || b.StartUtc.After(lunch("13:30")) || b.EndUtc.Sub(b.StartUtc) != 30*time.Minute {
		t.Errorf("anna's break %+v, want 30 minutes starting 11:30-13:30 UTC", b)
	}
	if plan.Routes[1].Break != nil {
		t.Errorf("ben has no break rule, yet %+v", plan.Routes[1].Break)
	}
	checkPlanMap(t, plan)
}

// checkPlanMap: the plan's map draws each technician's route in a colour of
// its own, a grey diamond per target left out with coordinates, a legend
// with the break, the same bytes every time; and each draft alone, drawn as
// endpoint 6 draws, names its plan and shows its break.
func checkPlanMap(t *testing.T, plan connect.RoutePlan) {
	t.Helper()
	svg := string(routesuggest.PlanSVG(plan))
	if again := string(routesuggest.PlanSVG(plan)); again != svg || !strings.HasPrefix(svg, "<svg") {
		t.Fatalf("the plan's map is not one stable SVG: %.100s", svg)
	}
	for i, who := range []string{"anna", "ben"} {
		colour := []string{"#2b6cb0", "#c05621"}[i]
		if !strings.Contains(svg, `data-employee="`+who+`"`) || !strings.Contains(svg, `stroke="`+colour+`"`) || !strings.Contains(svg, `fill="`+colour+`"/><text`) {
			t.Errorf("%s's route is not drawn in %s", who, colour)
		}
	}
	withCoordinates := 0
	for _, l := range plan.LeftOut {
		if l.Latitude != nil {
			withCoordinates++
		}
	}
	lunch := plan.Routes[0].Break.StartUtc.Format("15:04")
	if got := strings.Count(svg, `class="left-out"`); got != withCoordinates || !strings.Contains(svg, fmt.Sprintf("Left out (%d)", len(plan.LeftOut))) ||
		!strings.Contains(svg, "break "+lunch) {
		t.Errorf("%d left-out diamonds for %d targets with coordinates; legend with break %s: %v", got, withCoordinates, lunch, strings.Contains(svg, "break "+lunch))
	}
	alone := string(routesuggest.SVG(plan.Routes[0]))
	if !strings.Contains(alone, fmt.Sprintf("of route plan %d", plan.ID)) || !strings.Contains(alone, "Break "+lunch+"–") {
		t.Errorf("anna's draft drawn alone does not name its plan or break")
	}
}

// TestRoutePlanReasons: every target left out says why in words a
// dispatcher can act on.
func TestRoutePlanReasons(t *testing.T) {
	e := mustOpen(t)
	crew(t, e, "anna", "ben")
	short, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "Short days", ShiftStart: "09:00", ShiftEnd: "16:00"})
	if err != nil {
		t.Fatal(err)
	}
	jobID := e.importBatch(t,
		target("OK", 52.51, 13.36, `"planning":{"routeDate":"2026-11-23"}`),
		`{"externalId":"NOWHERE","title":"no coordinates","planning":{"routeDate":"2026-11-23"}}`,
		target("NIGHT", 52.51, 13.37, `"planning":{"timeWindowStartUtc":"2026-11-23T20:00:00Z","timeWindowEndUtc":"2026-11-23T22:00:00Z"}`),
		target("LONG", 52.51, 13.38, `"planning":{"routeDate":"2026-11-23","estimatedWorkMinutes":480}`),
		target("FAR", 48.14, 11.58, `"planning":{"timeWindowStartUtc":"2026-11-23T10:00:00Z","timeWindowEndUtc":"2026-11-23T10:30:00Z"}`),
		target("TOMORROW", 52.51, 13.36, `"planning":{"routeDate":"2026-11-24"}`),
		`{"externalId":"BAD","title":"","planning":{"routeDate":"2026-11-23"}}`,
	)
	// Ben, without a break, works 7 hours: LONG's 8 hours of work never fit.
	_, plan := e.plan(t, connect.CreateRoutePlanRequest{RouteDate: day, EmployeeIDs: []string{"ben"}, OptimizationProfileID: &short.ID, ImportJobIDs: []int64{jobID}})
	want := map[string]connect.ExclusionReason{
		"NOWHERE": connect.ExcludedMissingCoordinates, "NIGHT": connect.ExcludedOutsideShift, "LONG": connect.ExcludedLongerThanShift,
		"FAR": connect.ExcludedWindowUnreachable, "TOMORROW": connect.ExcludedOtherRouteDate, "BAD": connect.ExcludedRejected,
	}
	got := map[string]connect.ExclusionReason{}
	for _, l := range plan.LeftOut {
		got[l.ExternalID] = l.Reason
		if l.Message == "" || strings.Contains(l.Message, string(l.Reason)) {
			t.Errorf("%s: message %q", l.ExternalID, l.Message)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("left out %v, want %v", got, want)
	}
	if len(plan.Routes[0].Stops) != 1 || plan.Routes[0].Stops[0].ExternalID != "OK" {
		t.Errorf("route %+v", plan.Routes[0].Stops)
	}
}

// TestRoutePlanPriority: an urgent target that fits only at the cost of
// every normal one is planned; a normal one is left out as DoesNotFit, "full
// with targets of equal or higher priority".
func TestRoutePlanPriority(t *testing.T) {
	e := mustOpen(t)
	crew(t, e, "anna", "ben")
	var targets []string
	for i := range 8 {
		targets = append(targets, target(fmt.Sprintf("N%d", i), 52.50+float64(i)/1000, 13.35, `"planning":{"routeDate":"2026-11-23","estimatedWorkMinutes":60,"priority":"normal"},"businessValue":{"expectedRevenue":100000}`))
	}
	targets = append(targets, target("URGENT", 52.52, 13.37, `"planning":{"routeDate":"2026-11-23","estimatedWorkMinutes":480,"priority":"urgent"}`))
	// Ben works 9 hours without a break: the urgent target's 8 hours leave
	// room for none of the valuable normal ones. (Anna could not take it at
	// all: work that long leaves no room for her break in its window.)
	p, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "Long days", ShiftStart: "07:00", ShiftEnd: "16:00"})
	if err != nil {
		t.Fatal(err)
	}
	_, plan := e.plan(t, connect.CreateRoutePlanRequest{RouteDate: day, EmployeeIDs: []string{"ben"}, OptimizationProfileID: &p.ID,
		ImportJobIDs: []int64{e.importBatch(t, targets...)}})
	if stops := plan.Routes[0].Stops; len(stops) != 1 || stops[0].ExternalID != "URGENT" {
		t.Fatalf("route %+v, want the urgent target alone", stops)
	}
	for _, l := range plan.LeftOut {
		if l.Reason != connect.ExcludedDoesNotFit || !strings.Contains(l.Message, "equal or higher priority") {
			t.Errorf("left out %+v", l)
		}
	}
}

// TestRoutePlanWithoutJobs: without import jobs the plan takes every
// non-cancelled target of the tenant for the day, and no other tenant's.
func TestRoutePlanWithoutJobs(t *testing.T) {
	e := mustOpen(t)
	crew(t, e, "anna")
	e.importBatch(t,
		target("DAY", 52.51, 13.36, `"planning":{"routeDate":"2026-11-23"}`),
		target("WINDOW", 52.51, 13.37, `"planning":{"timeWindowStartUtc":"2026-11-23T09:00:00Z","timeWindowEndUtc":"2026-11-23T12:00:00Z"}`),
		target("OTHER-DAY", 52.51, 13.36, `"planning":{"routeDate":"2026-11-24"}`),
		target("ANY-DAY", 52.51, 13.36, ""),
	)
	e.importBatch(t, `{"externalId":"DAY","operation":"cancel","title":"x"}`)
	other := caller
	other.TenantID = "globex"
	if _, err := e.imports.ImportBatchJSON(ctx, other, []byte(`{"targets":[`+target("THEIRS", 52.51, 13.36, `"planning":{"routeDate":"2026-11-23"}`)+`]}`), connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, plan := e.plan(t, connect.CreateRoutePlanRequest{RouteDate: day, EmployeeIDs: []string{"anna"}})
	if stops := plan.Routes[0].Stops; len(stops) != 1 || stops[0].ExternalID != "WINDOW" || len(plan.LeftOut) != 0 {
		t.Errorf("stops %+v, left out %+v; want WINDOW alone", stops, plan.LeftOut)
	}
}

// TestRoutePlanRefusals: bad requests name the field; unknown employees,
// profiles and jobs, and another tenant's job, are NotFound; a plan is
// another tenant's NotFound too.
func TestRoutePlanRefusals(t *testing.T) {
	e := mustOpen(t)
	crew(t, e, "anna")
	jobID := e.importBatch(t, target("A", 52.5, 13.4, ""))
	other := caller
	other.TenantID = "globex"
	theirs, err := e.imports.ImportBatchJSON(ctx, other, []byte(`{"targets":[`+target("B", 52.5, 13.4, "")+`]}`), connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fifty := make([]string, 51)
	for i := range fifty {
		fifty[i] = fmt.Sprintf("%q", fmt.Sprint("e", i))
	}
	tests := []struct {
		name, body string
		code       connect.ErrorCode
		message    string
	}{
		{"no route date", `{"employeeIds":["anna"]}`, connect.CodeInvalidRequest, "routeDate is required"},
		{"no employees", `{"routeDate":"2026-11-23","employeeIds":[]}`, connect.CodeInvalidRequest, "employeeIds is required and must name 1 to 50 employees"},
		{"51 employees", `{"routeDate":"2026-11-23","employeeIds":[` + strings.Join(fifty, ",") + `]}`, connect.CodeInvalidRequest, "employeeIds must have at most 50 entries"},
		{"an employee twice", `{"routeDate":"2026-11-23","employeeIds":["anna","anna"]}`, connect.CodeInvalidRequest, `employeeIds[1] is "anna" again: name each employee once`},
		{"unknown member", `{"routeDate":"2026-11-23","employeeIds":["anna"],"colour":"red"}`, connect.CodeInvalidRequest, "colour is not a field of the route plan request"},
		{"unknown employee", `{"routeDate":"2026-11-23","employeeIds":["zoe"]}`, connect.CodeNotFound, `employeeIds[0] is "zoe", an employee the tenant does not have`},
		{"unknown profile", `{"routeDate":"2026-11-23","employeeIds":["anna"],"optimizationProfileId":9}`, connect.CodeNotFound, "optimizationProfileId is 9, an optimization profile the tenant does not have"},
		{"unknown job", fmt.Sprintf(`{"routeDate":"2026-11-23","employeeIds":["anna"],"importJobIds":[%d]}`, jobID+9), connect.CodeNotFound, "importJobIds[0] is"},
		{"another tenant's job", fmt.Sprintf(`{"routeDate":"2026-11-23","employeeIds":["anna"],"importJobIds":[%d,%d]}`, jobID, theirs.Result.ImportJobID), connect.CodeNotFound, "importJobIds[1] is"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.routes.CreateRoutePlanJSON(ctx, caller, []byte(tc.body), connect.WriteOptions{})
			if connect.ErrorCodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("got %v, want %s containing %q", err, tc.code, tc.message)
			}
		})
	}
	out, err := e.routes.CreateRoutePlan(ctx, caller, connect.CreateRoutePlanRequest{RouteDate: day, EmployeeIDs: []string{"anna"}}, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// More candidates than one solve takes: refused before any solving,
	// naming what chose them.
	var jobs []int64
	for batch := range 3 {
		targets := routetest.Targets(700)
		for i := range targets {
			targets[i] = strings.Replace(targets[i], `"R-`, fmt.Sprintf(`"R%d-`, batch), 1)
		}
		jobs = append(jobs, e.importBatch(t, targets...))
	}
	for _, tc := range []struct {
		jobs  []int64
		field string
	}{{jobs, "importJobIds"}, {nil, "routeDate"}} {
		_, err := e.routes.CreateRoutePlan(ctx, caller, connect.CreateRoutePlanRequest{RouteDate: day, EmployeeIDs: []string{"anna"}, ImportJobIDs: tc.jobs}, connect.WriteOptions{})
		if want := tc.field + " has 2100 targets to route, more than the 2000 one plan takes"; connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || !strings.Contains(err.Error(), want) {
			t.Errorf("too many targets: %v, want %q", err, want)
		}
	}
	if _, err := e.routes.GetRoutePlan(ctx, other, out.Response.RoutePlanID); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("another tenant's plan: %v", err)
	}
	noScope := connect.Caller{TenantID: "acme", ClientID: "x", Scopes: []connect.Scope{connect.ScopeImportJobsRead}}
	if _, err := e.routes.CreateRoutePlanJSON(ctx, noScope, []byte(`{}`), connect.WriteOptions{}); connect.AsError(err) == nil || connect.AsError(err).RequiredScope != connect.ScopeRouteSuggestionsCreate {
		t.Errorf("without scope: %v", err)
	}
}

// TestRoutePlanIdempotent: the same key gives the same plan back, once.
func TestRoutePlanIdempotent(t *testing.T) {
	e := mustOpen(t)
	crew(t, e, "anna", "ben")
	jobID := e.importBatch(t, routetest.Targets(12)...)
	req := connect.CreateRoutePlanRequest{RouteDate: day, EmployeeIDs: []string{"anna", "ben"}, ImportJobIDs: []int64{jobID}}
	key := connect.WriteOptions{IdempotencyKey: "plan-1"}
	first, err := e.routes.CreateRoutePlan(ctx, caller, req, key)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.routes.CreateRoutePlan(ctx, caller, req, key)
	if err != nil || !again.Replayed || again.Response.RoutePlanID != first.Response.RoutePlanID {
		t.Errorf("replay %+v, %v", again, err)
	}
	if list, _ := e.routes.RouteSuggestionsForJob(ctx, "acme", jobID); len(list) != 2 {
		t.Errorf("%d drafts after a replay, want 2", len(list))
	}
	req.EmployeeIDs = []string{"anna"}
	if _, err := e.routes.CreateRoutePlan(ctx, caller, req, key); connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyReused {
		t.Errorf("another request with the key: %v", err)
	}
}
