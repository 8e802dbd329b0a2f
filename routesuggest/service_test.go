package routesuggest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
	"github.com/integration-connect/connect/store/storetest"
)

var ctx = context.Background()

var caller = connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "erp", Scopes: connect.AllScopes}

var day = connect.Date{Year: 2026, Month: time.November, Day: 23}

// env is the importer and the route service on a real bbolt file.
type env struct {
	store   *bolt.Store
	imports *importer.Service
	routes  *routesuggest.Service
}

func mustOpen(t testing.TB) env {
	t.Helper()
	s := bolttest.Open(t)
	now := func() time.Time { return time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC) }
	return env{store: s, imports: importer.New(importer.Config{Store: s, Now: now}), routes: routesuggest.New(routesuggest.Config{Store: s, Now: now})}
}

// target is a target JSON at lat/lon (Berlin area) with extra members.
func target(id string, lat, lon float64, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"externalId":%q,"title":"Visit %s","address":{"latitude":%g,"longitude":%g}%s}`, id, id, lat, lon, extra)
}

func (e env) importBatch(t testing.TB, targets ...string) int64 {
	t.Helper()
	out, err := e.imports.ImportBatchJSON(ctx, caller, []byte(`{"targets":[`+strings.Join(targets, ",")+`]}`), connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.Result.ImportJobID
}

func (e env) suggest(t testing.TB, jobID int64, req connect.CreateImportJobRouteSuggestionRequest) (connect.CreateRouteSuggestionResponse, connect.RouteSuggestion) {
	t.Helper()
	out, err := e.routes.CreateRouteSuggestion(ctx, caller, jobID, req, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.routes.GetRouteSuggestion(ctx, caller, out.Response.RouteSuggestionID)
	if err != nil {
		t.Fatal(err)
	}
	return out.Response, r
}

func reasons(r connect.RouteSuggestion) map[string]connect.ExclusionReason {
	m := map[string]connect.ExclusionReason{}
	for _, x := range r.Excluded {
		m[x.ExternalID] = x.Reason
	}
	return m
}

func ptr[T any](v T) *T { return &v }

// TestExclusionReasons produces every exclusion reason, and checks that
// included + excluded = the job's items.
func TestExclusionReasons(t *testing.T) {
	e := mustOpen(t)
	e.importBatch(t, target("C1", 52.50, 13.40, ""))
	jobID := e.importBatch(t,
		target("OK", 52.52, 13.41, `"planning":{"routeDate":"2026-11-23"}`),
		`{"externalId":"BAD","title":"x","planning":{"estimatedWorkMinutes":4}}`,
		`{"externalId":"NOCOORD","title":"x"}`,
		target("OTHERDAY", 52.52, 13.42, `"planning":{"routeDate":"2026-11-24"}`),
		target("WINDOW-OTHERDAY", 52.52, 13.42, `"planning":{"timeWindowStartUtc":"2026-11-25T08:00:00Z","timeWindowEndUtc":"2026-11-25T10:00:00Z"}`),
		target("EVENING", 52.53, 13.40, `"planning":{"timeWindowStartUtc":"2026-11-23T20:00:00Z","timeWindowEndUtc":"2026-11-23T21:00:00Z"}`),
		target("LONG1", 52.51, 13.39, `"planning":{"estimatedWorkMinutes":300,"priority":"high"}`),
		target("LONG2", 52.51, 13.38, `"planning":{"estimatedWorkMinutes":300,"priority":"low"}`),
		target("C1", 52.50, 13.40, `"operation":"cancel"`),
	)
	resp, r := e.suggest(t, jobID, connect.CreateImportJobRouteSuggestionRequest{RouteDate: day})
	want := map[string]connect.ExclusionReason{
		"BAD": connect.ExcludedRejected, "NOCOORD": connect.ExcludedMissingCoordinates,
		"OTHERDAY": connect.ExcludedOtherRouteDate, "WINDOW-OTHERDAY": connect.ExcludedOtherRouteDate,
		"EVENING": connect.ExcludedOutsideShift, "LONG2": connect.ExcludedDoesNotFit, "C1": connect.ExcludedCancelled,
	}
	if got := reasons(r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("exclusions %v\nwant %v", got, want)
	}
	for _, x := range r.Excluded {
		located := x.Latitude != nil && x.Longitude != nil
		if wantLocated := x.ExternalID != "BAD" && x.ExternalID != "NOCOORD"; located != wantLocated || (x.Latitude == nil) != (x.Longitude == nil) {
			t.Errorf("excluded %s has coordinates %v, %v; want them: %t", x.ExternalID, x.Latitude, x.Longitude, wantLocated)
		}
		if x.ExternalID == "EVENING" && (*x.Latitude != 52.53 || *x.Longitude != 13.40) {
			t.Errorf("EVENING is excluded at %v, %v, want 52.53, 13.40", *x.Latitude, *x.Longitude)
		}
	}
	if resp.IncludedTargets+resp.ExcludedTargets != 9 || resp.IncludedTargets != 2 || resp.Status != connect.RouteDraft {
		t.Errorf("response %+v", resp)
	}
	var routed []string
	for _, s := range r.Stops {
		routed = append(routed, s.ExternalID)
	}
	slices.Sort(routed)
	if fmt.Sprint(routed) != "[LONG1 OK]" {
		t.Errorf("routed %v, want the high-priority long job and OK", routed)
	}

	// maxStops caps the route.
	_, capped := e.suggest(t, jobID, connect.CreateImportJobRouteSuggestionRequest{RouteDate: day, MaxStops: ptr(1)})
	if len(capped.Stops) != 1 || !slices.Contains(slices.Collect(mapValues(reasons(capped))), connect.ExcludedMaxStopsReached) {
		t.Errorf("with maxStops 1: %d stops, exclusions %v", len(capped.Stops), reasons(capped))
	}
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// TestRouteRespectsTheDay: windows, fixed times, the shift, the buffer and the
// employee's start and end hold on the stored route, and times add up.
func TestRouteRespectsTheDay(t *testing.T) {
	e := mustOpen(t)
	profile, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "Berlin", TimeZone: "Europe/Berlin", ShiftStart: "07:30", ShiftEnd: "16:00", AverageSpeedKmh: 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.routes.PutEmployee(ctx, "acme", store.Employee{ID: "tech-1", Name: "Jo", Start: &connect.RoutePoint{Latitude: 52.45, Longitude: 13.30}, ProfileID: &profile.ID}); err != nil {
		t.Fatal(err)
	}
	var targets []string
	for i := range 12 {
		extra := ""
		switch i {
		case 3:
			extra = `"planning":{"timeWindowStartUtc":"2026-11-23T12:00:00Z","timeWindowEndUtc":"2026-11-23T13:00:00Z"}`
		case 7:
			extra = `"planning":{"timeWindowStartUtc":"2026-11-23T09:30:00Z","timeWindowEndUtc":"2026-11-23T10:00:00Z","fixedTime":true}`
		}
		targets = append(targets, target(fmt.Sprintf("T%02d", i), 52.40+float64(i%4)*0.04, 13.25+float64(i/4)*0.08, extra))
	}
	jobID := e.importBatch(t, targets...)
	_, r := e.suggest(t, jobID, connect.CreateImportJobRouteSuggestionRequest{RouteDate: day, EmployeeID: ptr("tech-1"), MinimumBufferMinutes: ptr(10)})
	if r.OptimizationProfileID == nil || *r.OptimizationProfileID != profile.ID || *r.EmployeeID != "tech-1" || r.Start == nil || r.End == nil {
		t.Fatalf("suggestion %+v", r)
	}
	shiftStart := time.Date(2026, 11, 23, 6, 30, 0, 0, time.UTC) // 07:30 in Berlin
	shiftEnd := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	if len(r.Stops) == 0 || r.StartUtc.Before(shiftStart) || r.EndUtc.After(shiftEnd) {
		t.Fatalf("%d stops from %v to %v; shift %v-%v", len(r.Stops), r.StartUtc, r.EndUtc, shiftStart, shiftEnd)
	}
	work, travel, waiting := 0, 0.0, 0.0
	for i, s := range r.Stops {
		if s.Sequence != i+1 {
			t.Errorf("stop %d has sequence %d", i, s.Sequence)
		}
		if got := s.DepartureUtc.Sub(s.ArrivalUtc); got < 30*time.Minute {
			t.Errorf("%s: %v between arrival and departure, want at least the 30 min of work", s.ExternalID, got)
		}
		if i > 0 {
			prev := r.Stops[i-1]
			minGap := time.Duration(s.TravelMinutesFromPrevious*float64(time.Minute)) + 10*time.Minute - 6*time.Second
			if gap := s.ArrivalUtc.Sub(prev.DepartureUtc); gap < minGap {
				t.Errorf("%s arrives %v after %s leaves; travel %.1f min + 10 min buffer", s.ExternalID, gap, prev.ExternalID, s.TravelMinutesFromPrevious)
			}
		}
		switch s.ExternalID {
		case "T03":
			if start := s.ServiceStartUtc; start.Before(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)) || start.After(time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)) {
				t.Errorf("T03 starts work at %v, outside its window", start)
			}
		case "T07":
			if start := s.ServiceStartUtc; !start.Equal(time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)) {
				t.Errorf("fixed T07 starts work at %v, want 09:30", start)
			}
		}
		checkStopTimes(t, s, 30)
		if want := "Visit " + s.ExternalID; s.Title != want {
			t.Errorf("%s has title %q, want %q", s.ExternalID, s.Title, want)
		}
		work += 30
		travel += s.TravelMinutesFromPrevious
		waiting += s.WaitMinutes
	}
	if r.TotalWorkMinutes != work || r.TotalTravelMinutes < travel-0.5 || !near(r.WaitMinutes, waiting, 0.1*float64(len(r.Stops))) {
		t.Errorf("totals: work %d (want %d), travel %.1f (stops sum %.1f), waiting %.1f (stops sum %.1f)", r.TotalWorkMinutes, work, r.TotalTravelMinutes, travel, r.WaitMinutes, waiting)
	}
	if r.TimeZone != "Europe/Berlin" {
		t.Errorf("time zone %q, want the profile's Europe/Berlin", r.TimeZone)
	}
	if len(r.Stops)+len(r.Excluded) != 12 {
		t.Errorf("%d stops + %d excluded != 12", len(r.Stops), len(r.Excluded))
	}
}

// checkStopTimes checks that a stop's times add up: arrival, then the wait,
// then work minutes of service.
func checkStopTimes(t *testing.T, s connect.RouteStop, work int) {
	t.Helper()
	wait := s.ServiceStartUtc.Sub(s.ArrivalUtc)
	if wait < 0 || !near(s.WaitMinutes, wait.Minutes(), 0.05) || s.DepartureUtc.Sub(s.ServiceStartUtc) != time.Duration(work)*time.Minute {
		t.Errorf("%s: arrives %v, waits %.1f min, works %v-%v; want the wait between arrival and work and %d min of work",
			s.ExternalID, s.ArrivalUtc, s.WaitMinutes, s.ServiceStartUtc, s.DepartureUtc, work)
	}
}

func near(a, b, tolerance float64) bool { return a-b <= tolerance && b-a <= tolerance }

// TestDayStartsLate: the technician leaves the depot so as to arrive when the
// first window opens, and a wait the windows force stays where it is
// unavoidable, after the earlier stop has been moved as late as it can go.
func TestDayStartsLate(t *testing.T) {
	depot := connect.RoutePoint{Latitude: 52.50, Longitude: 13.40}
	at := func(hour, minute int) time.Time { return time.Date(2026, 11, 23, hour, minute, 0, 0, time.UTC) }
	window := func(from, to time.Time, fixed bool) string {
		return fmt.Sprintf(`"planning":{"estimatedWorkMinutes":60,"fixedTime":%t,"timeWindowStartUtc":%q,"timeWindowEndUtc":%q}`,
			fixed, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	tests := []struct {
		name    string
		targets []string
		starts  []time.Time // the wanted service starts
	}{
		{"one window opening at 08:00 Berlin", []string{target("A", 52.52, 13.45, window(at(7, 0), at(9, 0), false))},
			[]time.Time{at(7, 0)}},
		{"a fixed time after a short window", []string{
			target("A", 52.52, 13.45, window(at(7, 0), at(7, 30), false)),
			target("B", 52.53, 13.47, window(at(10, 0), at(12, 0), true)),
		}, []time.Time{at(7, 30), at(10, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustOpen(t)
			profile, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "Berlin", TimeZone: "Europe/Berlin", ShiftStart: "07:00", ShiftEnd: "17:00", AverageSpeedKmh: 30})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.routes.PutEmployee(ctx, "acme", store.Employee{ID: "tech-1", Start: &depot, ProfileID: &profile.ID}); err != nil {
				t.Fatal(err)
			}
			_, r := e.suggest(t, e.importBatch(t, tt.targets...), connect.CreateImportJobRouteSuggestionRequest{RouteDate: day, EmployeeID: ptr("tech-1")})
			if len(r.Stops) != len(tt.starts) {
				t.Fatalf("%d stops, want %d", len(r.Stops), len(tt.starts))
			}
			first := r.Stops[0]
			if leave := first.ArrivalUtc.Add(-time.Duration(first.TravelMinutesFromPrevious * float64(time.Minute))); r.StartUtc.Sub(leave).Abs() > 6*time.Second || first.WaitMinutes != 0 {
				t.Errorf("leaves at %v, arrives at %v after %.1f min and waits %.1f min; want to leave so as to arrive as the window opens",
					r.StartUtc, first.ArrivalUtc, first.TravelMinutesFromPrevious, first.WaitMinutes)
			}
			total := 0.0
			for i, s := range r.Stops {
				checkStopTimes(t, s, 60)
				if !s.ServiceStartUtc.Equal(tt.starts[i]) {
					t.Errorf("%s starts work at %v, want %v", s.ExternalID, s.ServiceStartUtc, tt.starts[i])
				}
				total += s.WaitMinutes
			}
			if last := r.Stops[len(r.Stops)-1]; len(r.Stops) == 2 {
				// Leaving A at 08:30 is as late as A allows; B waits the rest.
				want := at(10, 0).Sub(r.Stops[0].DepartureUtc).Minutes() - last.TravelMinutesFromPrevious
				if !near(last.WaitMinutes, want, 0.2) {
					t.Errorf("B waits %.1f min, want %.1f", last.WaitMinutes, want)
				}
			}
			if !near(r.WaitMinutes, total, 0.1) {
				t.Errorf("waitMinutes %.1f, stops sum %.1f", r.WaitMinutes, total)
			}
		})
	}
}

func TestSameInputSameRoute(t *testing.T) {
	e := mustOpen(t)
	var targets []string
	for i := range 40 {
		targets = append(targets, target(fmt.Sprintf("D%02d", i), 52.3+float64(i*7%13)*0.02, 13.2+float64(i*5%11)*0.03, ""))
	}
	jobID := e.importBatch(t, targets...)
	req := connect.CreateImportJobRouteSuggestionRequest{RouteDate: day}
	_, a := e.suggest(t, jobID, req)
	_, b := e.suggest(t, jobID, req)
	a.ID, b.ID = 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) || len(a.Stops) == 0 {
		t.Errorf("the same request gave two different routes:\n%s\n%s", ja, jb)
	}
}

func TestNotFoundAndBadRequests(t *testing.T) {
	e := mustOpen(t)
	jobID := e.importBatch(t, target("A", 52.5, 13.4, ""))
	other := caller
	other.TenantID = "globex"
	tests := []struct {
		name   string
		who    connect.Caller
		job    int64
		body   string
		code   connect.ErrorCode
		inText string
	}{
		{"unknown job", caller, jobID + 1, `{"routeDate":"2026-11-23"}`, connect.CodeNotFound, "import job"},
		{"other tenant's job", other, jobID, `{"routeDate":"2026-11-23"}`, connect.CodeNotFound, "import job"},
		{"unknown employee", caller, jobID, `{"routeDate":"2026-11-23","employeeId":"nobody"}`, connect.CodeNotFound, `employee "nobody"`},
		{"unknown profile", caller, jobID, `{"routeDate":"2026-11-23","optimizationProfileId":77}`, connect.CodeNotFound, "optimization profile 77"},
		{"no route date", caller, jobID, `{}`, connect.CodeInvalidRequest, "routeDate is required"},
		{"bad route date", caller, jobID, `{"routeDate":"23.11.2026"}`, connect.CodeInvalidRequest, "routeDate must be a date"},
		{"wrong type", caller, jobID, `{"routeDate":"2026-11-23","maxStops":"ten"}`, connect.CodeInvalidRequest, "maxStops must be an integer, not a string"},
		{"not an object", caller, jobID, `[]`, connect.CodeInvalidRequest, "must be a JSON object"},
	}
	for _, tc := range tests {
		_, err := e.routes.CreateRouteSuggestionJSON(ctx, tc.who, tc.job, []byte(tc.body), connect.WriteOptions{})
		if connect.ErrorCodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.inText) {
			t.Errorf("%s: %v; want %s containing %q", tc.name, err, tc.code, tc.inText)
		}
	}
	// Out-of-range bounds are clamped and unknown members ignored: only the
	// route date is a reason for 400.
	lenient, err := e.routes.CreateRouteSuggestionJSON(ctx, caller, jobID, []byte(`{"routeDate":"2026-11-23","minimumBufferMinutes":-5,"maxStops":0,"colour":"red"}`), connect.WriteOptions{})
	if err != nil || lenient.Response.IncludedTargets != 1 {
		t.Errorf("clamped request: %+v, %v", lenient, err)
	}
	if _, err := e.routes.GetRouteSuggestion(ctx, caller, 99); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("unknown suggestion: %v", err)
	}
	noScope := connect.Caller{TenantID: "acme", ClientID: "x", Scopes: []connect.Scope{connect.ScopeImportJobsRead}}
	_, err = e.routes.CreateRouteSuggestionJSON(ctx, noScope, jobID, []byte(`{"routeDate":"2026-11-23"}`), connect.WriteOptions{})
	if e := connect.AsError(err); e == nil || e.RequiredScope != connect.ScopeRouteSuggestionsCreate {
		t.Errorf("without scope: %v", err)
	}
}

// TestTypedRequestJSONCannotHold: an employee id that is not valid UTF-8 is a
// request error naming the field, with and without an Idempotency-Key, and
// nothing is stored.
func TestTypedRequestJSONCannotHold(t *testing.T) {
	for _, key := range []string{"", "key-1"} {
		t.Run(fmt.Sprintf("key %q", key), func(t *testing.T) {
			e := mustOpen(t)
			jobID := e.importBatch(t, target("A", 52.5, 13.4, ""))
			req := connect.CreateImportJobRouteSuggestionRequest{RouteDate: day, EmployeeID: ptr("caf\xe9")}
			_, err := e.routes.CreateRouteSuggestion(ctx, caller, jobID, req, connect.WriteOptions{IdempotencyKey: key})
			if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || connect.AsError(err).Message != "employeeId must be valid UTF-8" {
				t.Fatalf("got %v, want InvalidRequest naming employeeId", err)
			}
			if list, err := e.routes.RouteSuggestionsForJob(ctx, caller.TenantID, jobID); err != nil || len(list) != 0 {
				t.Errorf("%d suggestions stored, %v", len(list), err)
			}
		})
	}
}

func TestIdempotentSuggestion(t *testing.T) {
	e := mustOpen(t)
	jobID := e.importBatch(t, target("A", 52.5, 13.4, ""), target("B", 52.6, 13.5, ""))
	key := connect.WriteOptions{IdempotencyKey: "route-1"}
	first, err := e.routes.CreateRouteSuggestionJSON(ctx, caller, jobID, []byte(`{"routeDate":"2026-11-23"}`), key)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.routes.CreateRouteSuggestionJSON(ctx, caller, jobID, []byte(`{ "routeDate" : "2026-11-23" }`), key)
	if err != nil || !again.Replayed || again.Response.RouteSuggestionID != first.Response.RouteSuggestionID {
		t.Errorf("replay %+v, %v", again, err)
	}
	if list, _ := e.routes.RouteSuggestionsForJob(ctx, "acme", jobID); len(list) != 1 {
		t.Errorf("%d suggestions after a replay, want 1", len(list))
	}
	_, err = e.routes.CreateRouteSuggestionJSON(ctx, caller, jobID, []byte(`{"routeDate":"2026-11-24"}`), key)
	if connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyReused {
		t.Errorf("other body: %v", err)
	}
	_, err = e.routes.CreateRouteSuggestionJSON(ctx, caller, jobID+1, []byte(`{"routeDate":"2026-11-23"}`), key)
	if connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyReused {
		t.Errorf("other job: %v", err)
	}
}

func TestPublishAndDiscard(t *testing.T) {
	e := mustOpen(t)
	jobID := e.importBatch(t, target("A", 52.5, 13.4, ""))
	a, _ := e.suggest(t, jobID, connect.CreateImportJobRouteSuggestionRequest{RouteDate: day})
	b, _ := e.suggest(t, jobID, connect.CreateImportJobRouteSuggestionRequest{RouteDate: day})
	if r, err := e.routes.PublishRouteSuggestion(ctx, "acme", a.RouteSuggestionID); err != nil || r.Status != connect.RoutePublished {
		t.Errorf("publish: %+v, %v", r.Status, err)
	}
	if r, err := e.routes.DiscardRouteSuggestion(ctx, "acme", b.RouteSuggestionID); err != nil || r.Status != connect.RouteDiscarded {
		t.Errorf("discard: %+v, %v", r.Status, err)
	}
	for _, id := range []int64{a.RouteSuggestionID, b.RouteSuggestionID} {
		if _, err := e.routes.PublishRouteSuggestion(ctx, "acme", id); connect.ErrorCodeOf(err) != connect.CodeInvalidStateTransition {
			t.Errorf("publishing a final suggestion %d: %v", id, err)
		}
	}
	if _, err := e.routes.DiscardRouteSuggestion(ctx, "globex", a.RouteSuggestionID); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("another tenant's suggestion: %v", err)
	}
	list, err := e.routes.RouteSuggestionsForJob(ctx, "acme", jobID)
	if err != nil || len(list) != 2 || list[0].Status != connect.RoutePublished || list[1].Status != connect.RouteDiscarded {
		t.Errorf("list %+v, %v", list, err)
	}
}

func TestProfilesAndEmployees(t *testing.T) {
	e := mustOpen(t)
	p, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "Vans", PriorityFactors: map[string]int64{"High": 5}})
	if err != nil || p.ID == 0 || p.AverageSpeedKmh != 40 || p.TimeZone != "UTC" || p.PriorityFactors["high"] != 5 {
		t.Fatalf("profile %+v, %v", p, err)
	}
	bad := []struct {
		profile store.OptimizationProfile
		want    string
	}{
		{store.OptimizationProfile{}, "name is required"},
		{store.OptimizationProfile{Name: "x", TimeZone: "Mars/Olympus"}, "timeZone must be an IANA time zone"},
		{store.OptimizationProfile{Name: "x", ShiftStart: "8:00"}, "shiftStart must be a time of day HH:MM"},
		{store.OptimizationProfile{Name: "x", ShiftStart: "18:00", ShiftEnd: "08:00"}, "shiftEnd must be after shiftStart"},
		{store.OptimizationProfile{Name: "x", AverageSpeedKmh: 500}, "averageSpeedKmh must be between 1 and 200"},
		{store.OptimizationProfile{Name: "x", Break: &store.BreakRule{Minutes: 4, Earliest: "11:30", Latest: "13:30"}}, "break.minutes must be between 5 and 240"},
		{store.OptimizationProfile{Name: "x", Break: &store.BreakRule{Minutes: 30, Earliest: "11.30", Latest: "13:30"}}, "break.earliest must be a time of day HH:MM"},
		{store.OptimizationProfile{Name: "x", Break: &store.BreakRule{Minutes: 30, Earliest: "13:30", Latest: "11:30"}}, "break.latest is 11:30, before break.earliest 13:30"},
	}
	for _, b := range bad {
		if _, err := e.routes.CreateProfile(ctx, "acme", b.profile); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("profile %+v: %v, want %q", b.profile, err, b.want)
		}
	}
	if _, err := e.routes.PutEmployee(ctx, "acme", store.Employee{ID: "e1", ProfileID: ptr(int64(99))}); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("employee with an unknown profile: %v", err)
	}
	if _, err := e.routes.PutEmployee(ctx, "acme", store.Employee{ID: "e1", Start: &connect.RoutePoint{Latitude: 95}}); err == nil || !strings.Contains(err.Error(), "start must have a latitude") {
		t.Errorf("employee with a bad start: %v", err)
	}
	if _, err := e.routes.PutEmployee(ctx, "acme", store.Employee{ID: "e1", Break: &store.BreakRule{Minutes: 30, Earliest: "14:00", Latest: "12:00"}}); err == nil ||
		!strings.Contains(err.Error(), "break.latest is 12:00, before break.earliest 14:00") {
		t.Errorf("employee with a backwards break: %v", err)
	}
	if _, err := e.routes.PutEmployee(ctx, "acme", store.Employee{ID: "e1", Name: "Jo", ProfileID: &p.ID, ShiftStart: ptr("06:00")}); err != nil {
		t.Fatal(err)
	}
	list, err := e.routes.Employees(ctx, "acme")
	if err != nil || len(list) != 1 || list[0].Name != "Jo" {
		t.Errorf("employees %+v, %v", list, err)
	}
	if err := e.routes.DeleteEmployee(ctx, "acme", "e1"); err != nil {
		t.Fatal(err)
	}
	if err := e.routes.DeleteEmployee(ctx, "acme", "e1"); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("deleting twice: %v", err)
	}
	if err := e.routes.DeleteProfile(ctx, "globex", p.ID); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("deleting another tenant's profile: %v", err)
	}
	faster := p
	faster.AverageSpeedKmh = 55
	updated, err := e.routes.UpdateProfile(ctx, "acme", faster)
	if err != nil || updated.AverageSpeedKmh != 55 || !updated.CreatedAt.Equal(p.CreatedAt) {
		t.Errorf("updated %+v, %v", updated, err)
	}
	if list, err := e.routes.Profiles(ctx, "acme"); err != nil || len(list) != 1 || list[0].AverageSpeedKmh != 55 {
		t.Errorf("profiles after the update %+v, %v", list, err)
	}
	faster.AverageSpeedKmh = 500
	if _, err := e.routes.UpdateProfile(ctx, "acme", faster); err == nil || !strings.Contains(err.Error(), "averageSpeedKmh must be between 1 and 200") {
		t.Errorf("update beyond the bounds: %v", err)
	}
	faster.AverageSpeedKmh = 55
	if _, err := e.routes.UpdateProfile(ctx, "globex", faster); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("updating another tenant's profile: %v", err)
	}
}

// TestRouteSuggestionCreatedEvent: a created suggestion appends its webhook
// event in the same transaction; a refused request appends nothing.
func TestRouteSuggestionCreatedEvent(t *testing.T) {
	e := mustOpen(t)
	jobID := e.importBatch(t, target("A", 52.5, 13.4, ""), `{"externalId":"B","title":"no coordinates"}`)
	resp, _ := e.suggest(t, jobID, connect.CreateImportJobRouteSuggestionRequest{RouteDate: day})
	if _, err := e.routes.CreateRouteSuggestionJSON(ctx, caller, jobID+5, []byte(`{"routeDate":"2026-11-23"}`), connect.WriteOptions{}); err == nil {
		t.Fatal("a suggestion for an unknown job was created")
	}
	got := storetest.Events(t, e.store, "acme", connect.EventRouteSuggestionCreated)
	if len(got) != 1 {
		t.Fatalf("%d route_suggestion.created events, want 1", len(got))
	}
	var data connect.RouteSuggestionCreatedEvent
	if err := json.Unmarshal(got[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	want := connect.RouteSuggestionCreatedEvent{RouteSuggestionID: resp.RouteSuggestionID, ImportJobID: jobID, RouteDate: day,
		Status: connect.RouteDraft, IncludedTargets: 1, ExcludedTargets: 1}
	if data != want {
		t.Errorf("event data %+v, want %+v", data, want)
	}
}
