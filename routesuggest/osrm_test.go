package routesuggest_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/routesuggest/osrmtest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

// The road tests run on a real OSRM over the Monaco extract (osrmtest):
// © OpenStreetMap contributors, ODbL.

// monacoAddress is one line of testdata/monaco/addresses.json.
type monacoAddress struct {
	OSMWay    int64   `json:"osmWay"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

func monacoPoints(tb testing.TB, n int) []routesuggest.Point {
	tb.Helper()
	data, err := os.ReadFile("testdata/monaco/addresses.json")
	if err != nil {
		tb.Fatal(err)
	}
	var addresses []monacoAddress
	if err := json.Unmarshal(data, &addresses); err != nil {
		tb.Fatal(err)
	}
	points := make([]routesuggest.Point, n)
	for i := range points {
		a := addresses[i*len(addresses)/n]
		points[i] = routesuggest.Point{Latitude: a.Latitude, Longitude: a.Longitude}
	}
	return points
}

// inTheSea is a point of the Mediterranean 1.5 km off Monaco's port, far
// from any road.
var inTheSea = routesuggest.Point{Latitude: 43.725, Longitude: 7.445}

// rawTable is OSRM's own answer for points, decoded here without the model.
func rawTable(t *testing.T, url string, points []routesuggest.Point) (durations, distances [][]*float64) {
	t.Helper()
	var coords []string
	for _, p := range points {
		coords = append(coords, fmt.Sprintf("%f,%f", p.Longitude, p.Latitude))
	}
	resp, err := http.Get(url + "/table/v1/driving/" + strings.Join(coords, ";") + "?annotations=duration,distance")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Code      string       `json:"code"`
		Durations [][]*float64 `json:"durations"`
		Distances [][]*float64 `json:"distances"`
	}
	if err := json.UnmarshalRead(resp.Body, &answer); err != nil || answer.Code != "Ok" {
		t.Fatalf("OSRM's own table: %s, %v", answer.Code, err)
	}
	return answer.Durations, answer.Distances
}

// checkAgainstOSRM compares every cell of a matrix with OSRM's own answer.
func checkAgainstOSRM(t *testing.T, url string, points []routesuggest.Point, got routesuggest.Travel) {
	t.Helper()
	durations, distances := rawTable(t, url, points)
	for i := range points {
		for j := range points {
			if i == j {
				continue
			}
			if durations[i][j] == nil {
				if got.Seconds[i][j] != routesuggest.NoRoute {
					t.Errorf("[%d][%d] = %d s where OSRM knows no route", i, j, got.Seconds[i][j])
				}
				continue
			}
			if want := int64(math.Round(*durations[i][j])); got.Seconds[i][j] != want || got.Meters[i][j] != *distances[i][j] {
				t.Errorf("[%d][%d] = %d s %.1f m, OSRM says %d s %.1f m", i, j, got.Seconds[i][j], got.Meters[i][j], want, *distances[i][j])
			}
		}
	}
}

// TestOSRMMatrixIsOSRMsAnswer: the model's matrix is OSRM's durations
// (rounded to the second) and distances, cell by cell, with every Monaco
// address on the road network.
func TestOSRMMatrixIsOSRMsAnswer(t *testing.T) {
	url := osrmtest.URL(t)
	points := monacoPoints(t, 25)
	model := &routesuggest.OSRM{URL: url}
	got, err := model.Matrix(t.Context(), points, store.OptimizationProfile{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != connect.TravelRoad {
		t.Errorf("model %q, want road", got.Model)
	}
	checkAgainstOSRM(t, url, points, got)
	for i, off := range got.OffRoad {
		if off {
			t.Errorf("address %d is off the road network", i)
		}
	}
}

// TestOSRMBlocks: a matrix larger than the server's table limit is fetched in
// blocks and assembled into exactly the matrix one request gives; a matrix
// that would need more requests than allowed, or a limit the server refuses,
// fails as the engine being unavailable.
func TestOSRMBlocks(t *testing.T) {
	small := osrmtest.Start(t, 7) // 49 cells per request
	points := monacoPoints(t, 30)
	model := &routesuggest.OSRM{URL: small.URL, TableLimit: 7}
	got, err := model.Matrix(t.Context(), points, store.OptimizationProfile{})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstOSRM(t, osrmtest.URL(t), points, got)

	tests := []struct {
		name  string
		model routesuggest.OSRM
		want  string
	}{
		{"more requests than allowed", routesuggest.OSRM{URL: small.URL, TableLimit: 7, MaxRequests: 10},
			"a matrix of 30 points needs 30 table requests at the table limit 7, more than the 10 allowed"},
		{"a limit the server refuses", routesuggest.OSRM{URL: small.URL, TableLimit: 20}, `code "TooBig"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.model.Matrix(t.Context(), points, store.OptimizationProfile{})
			if !errors.Is(err, routesuggest.ErrTravelUnavailable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrTravelUnavailable saying %q", err, tc.want)
			}
		})
	}
}

// TestOSRMPointOffTheRoad: a point farther from a road than MaxSnapMeters is
// off the road network; nearer, it is not.
func TestOSRMPointOffTheRoad(t *testing.T) {
	url := osrmtest.URL(t)
	points := append(monacoPoints(t, 3), inTheSea)
	for _, tc := range []struct {
		snap float64
		want []bool
	}{
		{0, []bool{false, false, false, true}},     // the default, 500 m
		{5000, []bool{false, false, false, false}}, // the sea point snaps within 5 km
	} {
		got, err := (&routesuggest.OSRM{URL: url, MaxSnapMeters: tc.snap}).Matrix(t.Context(), points, store.OptimizationProfile{})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.OffRoad) != fmt.Sprint(tc.want) {
			t.Errorf("snap %g m: off road %v, want %v", tc.snap, got.OffRoad, tc.want)
		}
	}
}

// newRoadEnv is an importer and a route service configured with cfg on a
// real bbolt file, and a technician who starts and ends the day at Monaco's
// port.
func newRoadEnv(t testing.TB, cfg routesuggest.Config) env {
	t.Helper()
	s := bolttest.Open(t)
	now := func() time.Time { return time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC) }
	cfg.Store, cfg.Now, cfg.Logger = s, now, slog.New(slog.DiscardHandler)
	e := env{store: s, imports: importer.New(importer.Config{Store: s, Now: now}), routes: routesuggest.New(cfg)}
	p, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "Monaco", TimeZone: "Europe/Monaco", ShiftStart: "08:00", ShiftEnd: "18:00"})
	if err != nil {
		t.Fatal(err)
	}
	port := &connect.RoutePoint{Latitude: 43.7355, Longitude: 7.4215}
	if _, err := e.routes.PutEmployee(ctx, "acme", store.Employee{ID: "tech-mc", Start: port, ProfileID: &p.ID}); err != nil {
		t.Fatal(err)
	}
	return e
}

// monacoJob imports targets at points, 20 minutes of work each, and returns
// the job.
func monacoJob(t testing.TB, e env, points []routesuggest.Point) int64 {
	t.Helper()
	var targets []string
	for i, p := range points {
		targets = append(targets, target(fmt.Sprintf("MC-%03d", i), p.Latitude, p.Longitude, `"planning":{"estimatedWorkMinutes":20}`))
	}
	return e.importBatch(t, targets...)
}

var monacoRequest = connect.CreateImportJobRouteSuggestionRequest{RouteDate: day, EmployeeID: ptr("tech-mc")}

// TestRoadSuggestion: a suggestion planned on OSRM says so, leaves out a
// target in the sea as NoRoadAccess (and routes the rest), and has a road
// path for every leg.
func TestRoadSuggestion(t *testing.T) {
	e := newRoadEnv(t, routesuggest.Config{Travel: &routesuggest.OSRM{URL: osrmtest.URL(t)}})
	jobID := monacoJob(t, e, append(monacoPoints(t, 8), inTheSea))
	_, r := e.suggest(t, jobID, monacoRequest)
	if r.TravelModel != connect.TravelRoad || r.TravelFallback || len(r.Stops) != 8 {
		t.Fatalf("model %q (fallback %v), %d stops; want road, 8 stops", r.TravelModel, r.TravelFallback, len(r.Stops))
	}
	if len(r.Excluded) != 1 || r.Excluded[0].ExternalID != "MC-008" || r.Excluded[0].Reason != connect.ExcludedNoRoadAccess {
		t.Errorf("excluded %+v, want MC-008 NoRoadAccess", r.Excluded)
	}
	for i, s := range r.Stops {
		if s.GeometryFromPrevious == nil {
			t.Errorf("stop %d has no road path", i+1)
		}
	}
	if r.GeometryToEnd == nil {
		t.Error("no road path to the end")
	}
}

// TestRoadEngineStops: with the engine stopped mid-run, the next suggestion
// fails as ServiceUnavailable with a wait to retry after, and records nothing
// under its key; when the operator allows it, the suggestion is planned on
// great-circle estimates instead and says so.
func TestRoadEngineStops(t *testing.T) {
	server := osrmtest.Start(t, 1000)
	strict := newRoadEnv(t, routesuggest.Config{Travel: &routesuggest.OSRM{URL: server.URL, Timeout: 5 * time.Second}})
	jobID := monacoJob(t, strict, monacoPoints(t, 6))
	if _, r := strict.suggest(t, jobID, monacoRequest); r.TravelModel != connect.TravelRoad {
		t.Fatalf("before the stop: model %q", r.TravelModel)
	}
	server.Stop()

	key := connect.WriteOptions{IdempotencyKey: "after-the-stop"}
	_, err := strict.routes.CreateRouteSuggestion(ctx, caller, jobID, monacoRequest, key)
	var cerr *connect.Error
	if !errors.As(err, &cerr) || cerr.Code != connect.CodeServiceUnavailable || cerr.RetryAfter <= 0 {
		t.Fatalf("with the engine stopped: %v, want ServiceUnavailable with RetryAfter", err)
	}
	if list, _ := strict.routes.RouteSuggestionsForJob(ctx, "acme", jobID); len(list) != 1 {
		t.Errorf("%d suggestions, want only the first", len(list))
	}

	lenient := newRoadEnv(t, routesuggest.Config{Travel: &routesuggest.OSRM{URL: server.URL}, TravelFallback: true})
	jobID = monacoJob(t, lenient, monacoPoints(t, 6))
	_, r := lenient.suggest(t, jobID, monacoRequest)
	if r.TravelModel != connect.TravelGreatCircle || !r.TravelFallback || len(r.Stops) != 6 || r.Stops[1].GeometryFromPrevious != nil {
		t.Errorf("fallback: model %q, fallback %v, %d stops", r.TravelModel, r.TravelFallback, len(r.Stops))
	}
}

// TestProfileKeepsGreatCircle: a profile may keep the great-circle model on
// a service with a road engine, which it then never asks.
func TestProfileKeepsGreatCircle(t *testing.T) {
	stopped := osrmtest.Start(t, 1000)
	stopped.Stop()
	e := newRoadEnv(t, routesuggest.Config{Travel: &routesuggest.OSRM{URL: stopped.URL}})
	p, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "Estimates", TravelModel: connect.TravelGreatCircle})
	if err != nil {
		t.Fatal(err)
	}
	jobID := monacoJob(t, e, monacoPoints(t, 4))
	req := monacoRequest
	req.OptimizationProfileID = &p.ID
	if _, r := e.suggest(t, jobID, req); r.TravelModel != connect.TravelGreatCircle || r.TravelFallback || len(r.Stops) != 4 {
		t.Errorf("model %q, fallback %v, %d stops", r.TravelModel, r.TravelFallback, len(r.Stops))
	}
	if _, err := e.routes.CreateProfile(ctx, "acme", store.OptimizationProfile{Name: "x", TravelModel: "teleport"}); err == nil || !strings.Contains(err.Error(), "travelModel must be one of: greatCircle") {
		t.Errorf("an unknown travel model: %v", err)
	}
}

// TestOSRMCallerLeaves: a caller that gives up stops the matrix without it
// counting as the engine's failure.
func TestOSRMCallerLeaves(t *testing.T) {
	url := osrmtest.URL(t)
	leaving, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := (&routesuggest.OSRM{URL: url}).Matrix(leaving, monacoPoints(t, 5), store.OptimizationProfile{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, routesuggest.ErrTravelUnavailable) {
		t.Errorf("got %v, want the caller's cancellation", err)
	}
}
