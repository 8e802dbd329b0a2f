package routesuggest_test

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest"
)

func TestSVG(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	start := &connect.RoutePoint{Latitude: 52.45, Longitude: 13.30}
	r := connect.RouteSuggestion{
		ID: 7, RouteDate: day, Status: connect.RouteDraft, EmployeeID: ptr("tech-1"), Start: start, End: start,
		TotalTravelKm: 12.3, TotalTravelMinutes: 25,
		Stops: []connect.RouteStop{
			{Sequence: 1, TargetID: 1, ExternalID: "A&B <1>", Latitude: 52.50, Longitude: 13.40, ArrivalUtc: at, DepartureUtc: at.Add(time.Hour)},
			{Sequence: 2, TargetID: 2, ExternalID: "C", Latitude: 52.55, Longitude: 13.35, ArrivalUtc: at.Add(2 * time.Hour), DepartureUtc: at.Add(3 * time.Hour)},
		},
		Excluded: []connect.RouteExcludedItem{{ExternalID: "X", Reason: connect.ExcludedDoesNotFit}},
	}
	svg := string(routesuggest.SVG(r))
	if err := xml.Unmarshal([]byte(svg), new(struct{ XMLName xml.Name })); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, svg)
	}
	for _, want := range []string{
		"Route suggestion 7 (Draft) · 2026-11-23 · tech-1", "2 stops · 12.3 km · 25 min travel · 0 min work · 1 excluded",
		">1</text>", ">2</text>", ">S/E</text>", "A&amp;B &lt;1&gt;", "08:00–09:00 UTC", "<polyline",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	// The path starts and ends at the depot: four points.
	if i := strings.Index(svg, `points="`); i < 0 || strings.Count(strings.SplitN(svg[i+8:], `"`, 2)[0], ",") != 4 {
		t.Errorf("path does not go start → 1 → 2 → end")
	}
	if string(routesuggest.SVG(r)) != svg {
		t.Error("the same route drew two different pictures")
	}
	empty := string(routesuggest.SVG(connect.RouteSuggestion{ID: 8, RouteDate: day, Status: connect.RouteDraft}))
	if !strings.Contains(empty, "No stops on this route") {
		t.Error("an empty route has no message")
	}
}
