package httpapi_test

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/routesuggest/osrmtest"
	"github.com/integration-connect/connect/store"
)

// monacoPoints are n of the 200 Monaco building locations of the road tests
// (© OpenStreetMap contributors, ODbL).
func monacoPoints(t *testing.T, n int) []connect.RoutePoint {
	t.Helper()
	data, err := os.ReadFile("../routesuggest/testdata/monaco/addresses.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []connect.RoutePoint
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	points := make([]connect.RoutePoint, n)
	for i := range points {
		points[i] = all[i*len(all)/n]
	}
	return points
}

// osrmDurations is OSRM's own table of durations between points, in seconds.
func osrmDurations(t *testing.T, url string, points []connect.RoutePoint) [][]float64 {
	t.Helper()
	var coords []string
	for _, p := range points {
		coords = append(coords, fmt.Sprintf("%f,%f", p.Longitude, p.Latitude))
	}
	resp, err := http.Get(url + "/table/v1/driving/" + strings.Join(coords, ";"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Durations [][]float64 `json:"durations"`
	}
	if err := json.UnmarshalRead(resp.Body, &answer); err != nil {
		t.Fatal(err)
	}
	return answer.Durations
}

// TestRoadSuggestionThroughHTTP: endpoint 6 on a service with OSRM plans on
// road times: every stop's travel from the previous one is OSRM's duration,
// the times add up (arrival = previous departure + travel + buffer, service
// starts after waiting, departure = service start + work), the suggestion
// says which model it used, every leg carries its road path from one stop to
// the next, and the map draws the legs along those paths with OpenStreetMap's
// attribution. With the engine stopped, the same request answers 503
// ServiceUnavailable with Retry-After.
func TestRoadSuggestionThroughHTTP(t *testing.T) {
	engine := osrmtest.Start(t, 1000)
	var routes *routesuggest.Service
	s := newServer(t, func(c *httpapi.Config) {
		routes = routesuggest.New(routesuggest.Config{Store: c.Clients.(*store.Clients).Store, Travel: &routesuggest.OSRM{URL: engine.URL}, Logger: c.Logger})
		c.Routes = routes
	})
	port := connect.RoutePoint{Latitude: 43.7355, Longitude: 7.4215}
	if _, err := routes.PutEmployee(t.Context(), "acme", store.Employee{ID: "tech-mc", Start: &port}); err != nil {
		t.Fatal(err)
	}
	key := s.key("acme", "planner", connect.ScopeTargetsBatchWrite, connect.ScopeRouteSuggestionsCreate, connect.ScopeImportJobsRead)
	points := monacoPoints(t, 10)
	var targets []string
	for i, p := range points {
		targets = append(targets, fmt.Sprintf(`{"externalId":"MC-%d","title":"Visit %d","address":{"latitude":%g,"longitude":%g},"planning":{"estimatedWorkMinutes":15}}`, i, i, p.Latitude, p.Longitude))
	}
	imported := s.do(request{method: "POST", path: base + "/inbound/targets/batch", key: key, body: `{"targets":[` + strings.Join(targets, ",") + `]}`})
	var job connect.InboundImportResult
	imported.json(t, &job)
	path := fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, job.ImportJobID)
	body := `{"routeDate":"2026-11-23","employeeId":"tech-mc","minimumBufferMinutes":5}`
	created := s.do(request{method: "POST", path: path, key: key, body: body})
	var resp connect.CreateRouteSuggestionResponse
	created.json(t, &resp)
	if created.status != 200 || resp.IncludedTargets != 10 {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	var r connect.RouteSuggestion
	s.do(request{method: "GET", path: resp.Links["self"], key: key}).json(t, &r)
	if r.TravelModel != connect.TravelRoad || r.TravelFallback {
		t.Errorf("travel model %q, fallback %v", r.TravelModel, r.TravelFallback)
	}

	// The stops in visiting order, from the start, and OSRM's durations
	// between them.
	visited := []connect.RoutePoint{port}
	for _, stop := range r.Stops {
		visited = append(visited, connect.RoutePoint{Latitude: stop.Latitude, Longitude: stop.Longitude})
	}
	durations := osrmDurations(t, engine.URL, visited)
	previousDeparture := *r.StartUtc
	for i, stop := range r.Stops {
		seconds := math.Round(durations[i][i+1])
		if want := math.Round(seconds/6) / 10; stop.TravelMinutesFromPrevious != want {
			t.Errorf("stop %d: %.1f min from the previous stop, OSRM says %.1f", i+1, stop.TravelMinutesFromPrevious, want)
		}
		buffer := 5 * time.Minute
		if i == 0 {
			buffer = 0 // none after the start
		}
		if want := previousDeparture.Add(time.Duration(seconds)*time.Second + buffer); !stop.ArrivalUtc.Equal(want) {
			t.Errorf("stop %d arrives %s, want %s (departure %s + %v + %v)", i+1, stop.ArrivalUtc, want, previousDeparture, seconds, buffer)
		}
		if stop.ServiceStartUtc.Before(stop.ArrivalUtc) || !stop.DepartureUtc.Equal(stop.ServiceStartUtc.Add(15*time.Minute)) {
			t.Errorf("stop %d: arrive %s, start %s, leave %s", i+1, stop.ArrivalUtc, stop.ServiceStartUtc, stop.DepartureUtc)
		}
		checkLegPath(t, fmt.Sprintf("leg to stop %d", i+1), stop.GeometryFromPrevious, visited[i], visited[i+1])
		previousDeparture = stop.DepartureUtc
	}
	checkLegPath(t, "leg to the end", r.GeometryToEnd, visited[len(visited)-1], port)

	picture := s.do(request{method: "GET", path: resp.Links["map"], key: key})
	svg := string(picture.body)
	if roads := regexp.MustCompile(`<polyline class="leg road" points="[^"]+"`).FindAllString(svg, -1); len(roads) != 11 {
		t.Errorf("the map draws %d legs along roads, want 11", len(roads))
	}
	if strings.Contains(svg, `<line class="leg"`) || !strings.Contains(svg, "© OpenStreetMap contributors") {
		t.Error("the map draws straight legs, or lacks OpenStreetMap's attribution")
	}

	engine.Stop()
	refused := s.do(request{method: "POST", path: path, key: key, body: body})
	if e := refused.apiError(t); refused.status != 503 || e.Code != connect.CodeServiceUnavailable || refused.header.Get("Retry-After") == "" || e.RetryAfterSeconds == nil {
		t.Errorf("with the engine stopped: %d %s (Retry-After %q)", refused.status, refused.body, refused.header.Get("Retry-After"))
	}
}

// checkLegPath checks that a leg's road path is an encoded polyline that
// starts near from and ends near to (where OSRM snapped them: within 100 m).
func checkLegPath(t *testing.T, what string, geometry *string, from, to connect.RoutePoint) {
	t.Helper()
	if geometry == nil {
		t.Errorf("%s has no road path", what)
		return
	}
	path := decodePolyline6(t, *geometry)
	if len(path) < 2 || metres(path[0], from) > 100 || metres(path[len(path)-1], to) > 100 {
		t.Errorf("%s: a path of %d points from %v to %v, want from %v to %v", what, len(path), path[0], path[len(path)-1], from, to)
	}
}

// decodePolyline6 reads an encoded polyline of precision 6, independently of
// the package's own decoder.
func decodePolyline6(t *testing.T, s string) []connect.RoutePoint {
	t.Helper()
	var path []connect.RoutePoint
	var values []int64
	var shift uint
	var acc int64
	for _, c := range []byte(s) {
		acc |= int64(c-63) & 0x1f << shift
		shift += 5
		if c-63 < 0x20 {
			if acc&1 != 0 {
				acc = ^(acc >> 1)
			} else {
				acc >>= 1
			}
			values = append(values, acc)
			acc, shift = 0, 0
		}
	}
	var lat, lon int64
	for i := 0; i+1 < len(values); i += 2 {
		lat, lon = lat+values[i], lon+values[i+1]
		path = append(path, connect.RoutePoint{Latitude: float64(lat) / 1e6, Longitude: float64(lon) / 1e6})
	}
	return path
}

// metres is the distance between two nearby points.
func metres(a, b connect.RoutePoint) float64 {
	dy := (a.Latitude - b.Latitude) * 111_195
	dx := (a.Longitude - b.Longitude) * 111_195 * math.Cos(a.Latitude*math.Pi/180)
	return math.Hypot(dx, dy)
}
