package routesuggest_test

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/routesuggest/routetest"
)

// node is an element of a drawn map, parsed generically.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n node) num(t *testing.T, name string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.XMLName.Local, name, n.attr(name), err)
	}
	return f
}

// text is all text inside n, its children's joined by spaces.
func (n node) text() string {
	parts := []string{strings.TrimSpace(n.Text)}
	for _, c := range n.Children {
		parts = append(parts, c.text())
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// all returns every element below n (n included) whose class is class.
func (n node) all(class string) []node {
	var out []node
	if n.attr("class") == class {
		out = append(out, n)
	}
	for _, c := range n.Children {
		out = append(out, c.all(class)...)
	}
	return out
}

// child returns n's first child element called name.
func (n node) child(t *testing.T, name string) node {
	t.Helper()
	for _, c := range n.Children {
		if c.XMLName.Local == name {
			return c
		}
	}
	t.Fatalf("<%s class=%q> has no <%s>", n.XMLName.Local, n.attr("class"), name)
	return node{}
}

func parseSVG(t *testing.T, svg []byte) node {
	t.Helper()
	var root node
	if err := xml.Unmarshal(svg, &root); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, svg)
	}
	return root
}

// circleOf is a drawn marker: centre and radius.
type circleOf struct {
	what    string
	x, y, r float64
}

// markerShape finds the centre and size of a stop, depot or excluded marker.
func markerShape(t *testing.T, g node) circleOf {
	t.Helper()
	what := g.attr("class") + " " + g.child(t, "text").text()
	switch g.attr("class") {
	case "stop":
		c := g.child(t, "circle")
		return circleOf{what, c.num(t, "cx"), c.num(t, "cy"), c.num(t, "r")}
	case "depot":
		r := g.child(t, "rect")
		return circleOf{what, r.num(t, "x") + r.num(t, "width")/2, r.num(t, "y") + r.num(t, "height")/2, r.num(t, "width") / 2}
	}
	var xs, ys []float64
	for _, p := range strings.Fields(g.child(t, "polygon").attr("points")) {
		x, y, _ := strings.Cut(p, ",")
		fx, _ := strconv.ParseFloat(x, 64)
		fy, _ := strconv.ParseFloat(y, 64)
		xs, ys = append(xs, fx), append(ys, fy)
	}
	return circleOf{what, (xs[0] + xs[2]) / 2, (ys[1] + ys[3]) / 2, (xs[1] - xs[3]) / 2}
}

// goldenRoutes are the routes the map is checked on: real days planned by
// the example program, and the hard cases built by hand.
func goldenRoutes(t *testing.T) map[string]connect.RouteSuggestion {
	t.Helper()
	routes, err := routetest.GoldenRoutes()
	if err != nil || len(routes) == 0 {
		t.Fatalf("golden routes: %v (%d)", err, len(routes))
	}
	for name, r := range handMadeRoutes() {
		routes[name] = r
	}
	return routes
}

func handMadeRoutes() map[string]connect.RouteSuggestion {
	at := func(h, m int) time.Time { return time.Date(2026, 11, 23, h, m, 0, 0, time.UTC) }
	depot := &connect.RoutePoint{Latitude: 52.45, Longitude: 13.30}
	stop := func(seq int, id, title string, lat, lon float64, arrive, start time.Time, work int) connect.RouteStop {
		return connect.RouteStop{Sequence: seq, TargetID: int64(seq), ExternalID: id, Title: title, Latitude: lat, Longitude: lon,
			ArrivalUtc: arrive, WaitMinutes: start.Sub(arrive).Minutes(), ServiceStartUtc: start, DepartureUtc: start.Add(time.Duration(work) * time.Minute),
			TravelKmFromPrevious: 2.5, TravelMinutesFromPrevious: 6}
	}
	located := func(id string, reason connect.ExclusionReason, lat, lon float64) connect.RouteExcludedItem {
		return connect.RouteExcludedItem{TargetID: ptr(int64(100)), ExternalID: id, Reason: reason, Latitude: ptr(lat), Longitude: ptr(lon)}
	}
	return map[string]connect.RouteSuggestion{
		"crowded": {
			ID: 7, ImportJobID: 3, RouteDate: day, TimeZone: "Europe/Berlin", Status: connect.RouteDraft, EmployeeID: ptr("tech-1"),
			Start: depot, End: &connect.RoutePoint{Latitude: 52.52, Longitude: 13.41},
			TotalTravelKm: 12.3, TotalTravelMinutes: 25, TotalWorkMinutes: 150, WaitMinutes: 53,
			StartUtc: ptr(at(6, 30)), EndUtc: ptr(at(12, 0)),
			Stops: []connect.RouteStop{
				stop(1, "A&B <1>", "Boiler", 52.50, 13.40, at(7, 0), at(7, 0), 60),
				// Three stops in one building, and a fourth next door.
				stop(2, "3f2a9c1e-77d4-4c2a-9d0e-5b1f8e6a0c11", "Heat pump inspection at the back house", 52.5100, 13.3500, at(8, 7), at(9, 0), 30),
				stop(3, "WO-3", "", 52.5100, 13.3500, at(9, 30), at(9, 30), 20),
				stop(4, "WO-4", "", 52.5100, 13.3500, at(9, 50), at(9, 50), 20),
				stop(5, "WO-5", "", 52.5101, 13.3502, at(10, 10), at(10, 10), 20),
			},
			Excluded: []connect.RouteExcludedItem{
				located("X1", connect.ExcludedDoesNotFit, 52.5100, 13.3500),
				located("X2", connect.ExcludedOutsideShift, 52.48, 13.45),
				{ExternalID: "X3", Reason: connect.ExcludedRejected},
				{TargetID: ptr(int64(9)), ExternalID: "X4", Reason: connect.ExcludedMissingCoordinates},
				located("X5", connect.ExcludedDoesNotFit, 52.53, 13.33),
			},
		},
		"single stop": {
			ID: 8, RouteDate: day, TimeZone: "America/New_York", Status: connect.RoutePublished,
			TotalWorkMinutes: 45, StartUtc: ptr(at(14, 0)), EndUtc: ptr(at(14, 45)),
			Stops: []connect.RouteStop{stop(1, "NY-1", "Roof inspection", 40.7128, -74.0060, at(14, 0), at(14, 0), 45)},
		},
		"no stops": {
			ID: 9, RouteDate: day, TimeZone: "UTC", Status: connect.RouteDraft, EmployeeID: ptr("tech-2"), Start: depot, End: depot,
			Excluded: []connect.RouteExcludedItem{
				located("LATE", connect.ExcludedOutsideShift, 52.47, 13.31),
				{ExternalID: "FAR", Reason: connect.ExcludedOtherRouteDate, TargetID: ptr(int64(2)), Latitude: ptr(52.44), Longitude: ptr(13.29)},
			},
		},
		// A suggestion stored before stops had a service start and the
		// suggestion a time zone: times are UTC, work from the arrival.
		"stored before the time zone": {
			ID: 10, RouteDate: day, Status: connect.RouteDraft,
			Stops: []connect.RouteStop{
				{Sequence: 1, ExternalID: "OLD-1", Latitude: 52.5, Longitude: 13.4, ArrivalUtc: at(8, 0), DepartureUtc: at(9, 0)},
				{Sequence: 2, ExternalID: "OLD-2", Latitude: 52.6, Longitude: 13.5, ArrivalUtc: at(9, 30), DepartureUtc: at(10, 0)},
			},
		},
	}
}

// TestSVGStructure checks, on every golden route, what a dispatcher needs on
// paper: a title block with the totals, a label per stop with its sequence,
// name and local work times, a marker per excluded item with coordinates and
// the list of all of them, a legend, a scale bar, arrows on the legs,
// markers apart from each other and inside the map, and a tooltip on every
// marker.
func TestSVGStructure(t *testing.T) {
	for name, r := range goldenRoutes(t) {
		t.Run(name, func(t *testing.T) {
			svg := routesuggest.SVG(r)
			root := parseSVG(t, svg)
			checkTitleBlock(t, root, r)
			checkStops(t, root, r)
			checkExcluded(t, root, r)
			checkMarkers(t, root)
			if len(root.all("legend")) != 1 || len(root.all("legend")[0].Children) < 7 {
				t.Error("no legend with an entry per symbol")
			}
			if len(r.Stops)+len(r.Excluded) > 0 {
				scale := root.all("scale-bar")
				if len(scale) != 1 || !strings.HasSuffix(scale[0].text(), "m") {
					t.Errorf("no scale bar with a length in m or km: %v", scale)
				}
			}
			if string(routesuggest.SVG(r)) != string(svg) {
				t.Error("the same route drew two different pictures")
			}
		})
	}
}

func checkTitleBlock(t *testing.T, root node, r connect.RouteSuggestion) {
	t.Helper()
	blocks := root.all("title-block")
	if len(blocks) != 1 {
		t.Fatalf("%d title blocks", len(blocks))
	}
	text := blocks[0].text()
	want := []string{"Monday 23 November 2026", fmt.Sprintf("%.1f km", r.TotalTravelKm), fmt.Sprintf("%.0f min travel", r.TotalTravelMinutes),
		fmt.Sprintf("%d min work", r.TotalWorkMinutes), fmt.Sprintf("%.0f min waiting", r.WaitMinutes)}
	if len(r.Stops) == 1 {
		want = append(want, "1 stop ")
	} else {
		want = append(want, fmt.Sprintf("%d stops", len(r.Stops)))
	}
	if r.EmployeeID != nil {
		want = append(want, *r.EmployeeID)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("title block %q lacks %q", text, w)
		}
	}
}

// checkStops: one marker with a tooltip and one label per stop; the label
// names the stop and its work in the suggestion's local time.
func checkStops(t *testing.T, root node, r connect.RouteSuggestion) {
	t.Helper()
	markers, labels := root.all("stop"), root.all("stop-label")
	if len(markers) != len(r.Stops) || len(labels) != len(r.Stops) {
		t.Fatalf("%d stop markers and %d labels for %d stops", len(markers), len(labels), len(r.Stops))
	}
	loc := time.UTC
	if r.TimeZone != "" {
		loc, _ = time.LoadLocation(r.TimeZone)
	}
	for i, s := range r.Stops {
		from := s.ServiceStartUtc
		if from.IsZero() {
			from = s.ArrivalUtc
		}
		times := from.In(loc).Format("15:04") + "–" + s.DepartureUtc.In(loc).Format("15:04")
		text := labels[i].text()
		name := s.ExternalID
		if len(name) > 16 {
			name = s.Title[:15]
		}
		if labels[i].attr("data-sequence") != strconv.Itoa(s.Sequence) || !strings.HasPrefix(text, strconv.Itoa(s.Sequence)+" ") ||
			!strings.Contains(text, name) || !strings.Contains(text, times) {
			t.Errorf("label %q; want sequence %d, %q and %s", text, s.Sequence, name, times)
		}
		if s.WaitMinutes >= 1 && !strings.Contains(text, fmt.Sprintf("waits %.0f", s.WaitMinutes)) {
			t.Errorf("label %q does not show the %.0f min wait", text, s.WaitMinutes)
		}
		if tip := markers[i].child(t, "title").text(); !strings.Contains(tip, s.ExternalID) || !strings.Contains(tip, times) {
			t.Errorf("tooltip %q lacks %s and %s", tip, s.ExternalID, times)
		}
	}
	if len(r.Stops) > 1 && len(root.all("arrow")) == 0 {
		t.Error("no direction arrows on the legs")
	}
}

// checkExcluded: a marker per excluded item with coordinates, every item in
// the side list, and the number of those without coordinates.
func checkExcluded(t *testing.T, root node, r connect.RouteSuggestion) {
	t.Helper()
	located := 0
	for _, x := range r.Excluded {
		if x.Latitude != nil {
			located++
		}
	}
	markers := root.all("excluded")
	if len(markers) != located {
		t.Errorf("%d excluded markers, want %d", len(markers), located)
	}
	for _, m := range markers {
		if m.child(t, "title").text() == "" {
			t.Error("an excluded marker has no tooltip")
		}
	}
	entries := root.all("excluded-entry")
	if len(entries) != len(r.Excluded) {
		t.Errorf("%d entries in the side list, want %d", len(entries), len(r.Excluded))
	}
	if len(r.Excluded) == 0 {
		return
	}
	count := root.all("unlocated-count")
	if want := fmt.Sprintf("%d without coordinates", len(r.Excluded)-located); len(count) != 1 || !strings.Contains(count[0].text(), want) {
		t.Errorf("count %v, want %q", count, want)
	}
}

// checkMarkers: markers do not overlap, and stay inside the map area; a single
// place is in its middle.
func checkMarkers(t *testing.T, root node) {
	t.Helper()
	var shapes []circleOf
	for _, class := range []string{"stop", "depot", "excluded"} {
		for _, g := range root.all(class) {
			shapes = append(shapes, markerShape(t, g))
		}
	}
	area := root.all("map-area")[0]
	x0, y0 := area.num(t, "x"), area.num(t, "y")
	x1, y1 := x0+area.num(t, "width"), y0+area.num(t, "height")
	for i, a := range shapes {
		if a.x-a.r < x0-0.5 || a.x+a.r > x1+0.5 || a.y-a.r < y0-0.5 || a.y+a.r > y1+0.5 {
			t.Errorf("%s at %g,%g is outside the map", a.what, a.x, a.y)
		}
		for _, b := range shapes[i+1:] {
			if d := math.Hypot(a.x-b.x, a.y-b.y); d < a.r+b.r-0.5 {
				t.Errorf("%s and %s overlap (%.1f apart)", a.what, b.what, d)
			}
		}
	}
	if len(shapes) == 1 {
		if a := shapes[0]; math.Abs(a.x-(x0+x1)/2) > 0.5 || math.Abs(a.y-(y0+y1)/2) > 0.5 {
			t.Errorf("the single marker is at %g,%g, not in the middle of the map", a.x, a.y)
		}
	}
}

// TestSVGPushesApartWithLeaders: stops at one address are drawn apart, each
// joined to the true place by a leader line.
func TestSVGPushesApartWithLeaders(t *testing.T) {
	root := parseSVG(t, routesuggest.SVG(handMadeRoutes()["crowded"]))
	if n := len(root.all("leader")); n < 4 {
		t.Errorf("%d leader lines for four markers at one place and one next door, want at least 4", n)
	}
}

// TestSVGLabelsDoNotCollide: on the real day, no label covers another label
// or a marker.
func TestSVGLabelsDoNotCollide(t *testing.T) {
	r := goldenRoutes(t)["berlin-day.json"]
	root := parseSVG(t, routesuggest.SVG(r))
	type rect struct {
		what           string
		x0, y0, x1, y1 float64
	}
	var rects []rect
	for _, l := range root.all("stop-label") {
		b := l.child(t, "rect")
		rects = append(rects, rect{"label " + l.attr("data-sequence"), b.num(t, "x"), b.num(t, "y"), b.num(t, "x") + b.num(t, "width"), b.num(t, "y") + b.num(t, "height")})
	}
	labels := len(rects)
	for _, class := range []string{"stop", "depot", "excluded"} {
		for _, g := range root.all(class) {
			c := markerShape(t, g)
			rects = append(rects, rect{c.what, c.x - c.r, c.y - c.r, c.x + c.r, c.y + c.r})
		}
	}
	for i := range labels {
		for j, b := range rects {
			a := rects[i]
			if j != i && a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
				t.Errorf("%s covers %s", a.what, b.what)
			}
		}
	}
}

func TestSVGEmptyRoute(t *testing.T) {
	empty := string(routesuggest.SVG(connect.RouteSuggestion{ID: 8, RouteDate: day, Status: connect.RouteDraft}))
	if !strings.Contains(empty, "No stops on this route") {
		t.Error("an empty route has no message")
	}
	parseSVG(t, []byte(empty))
}

// BenchmarkSVG draws the real day, and a job of 1000 targets of which most
// are excluded, all in one district: the worst case for pushing markers apart.
func BenchmarkSVG(b *testing.B) {
	routes, err := routetest.GoldenRoutes()
	if err != nil {
		b.Fatal(err)
	}
	crowded := routes["berlin-day.json"]
	for i := range 1000 {
		lat, lon := 52.50+float64(i%40)*0.0005, 13.40+float64(i/40)*0.0005
		crowded.Excluded = append(crowded.Excluded, connect.RouteExcludedItem{ExternalID: fmt.Sprintf("X-%d", i), Reason: connect.ExcludedDoesNotFit, Latitude: &lat, Longitude: &lon})
	}
	for name, r := range map[string]connect.RouteSuggestion{"day": routes["berlin-day.json"], "1000 excluded": crowded} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				routesuggest.SVG(r)
			}
		})
	}
}

// TestSVGRoadLegs: a leg with a road path is drawn along it, from the marker
// where it starts to the one where it ends, and a route planned on the road
// network credits OpenStreetMap; legs without a path stay straight lines.
func TestSVGRoadLegs(t *testing.T) {
	r := goldenRoutes(t)["berlin-day.json"]
	if len(r.Stops) < 2 || r.Start == nil {
		t.Fatal("the Berlin day has no start or fewer than two stops")
	}
	r.TravelModel = connect.TravelRoad
	from, to := r.Stops[0], r.Stops[1]
	mid := connect.RoutePoint{Latitude: (from.Latitude+to.Latitude)/2 + 0.01, Longitude: (from.Longitude + to.Longitude) / 2}
	path := routesuggest.EncodePolylineForTest([]connect.RoutePoint{{Latitude: from.Latitude, Longitude: from.Longitude}, mid, {Latitude: to.Latitude, Longitude: to.Longitude}})
	r.Stops[1].GeometryFromPrevious = &path
	root := parseSVG(t, routesuggest.SVG(r))
	roads := root.all("leg road")
	if len(roads) != 1 || len(strings.Fields(roads[0].attr("points"))) != 3 {
		t.Fatalf("road legs %+v, want one of 3 points", roads)
	}
	points := strings.Fields(roads[0].attr("points"))
	stops := root.all("stop")
	first, last := markerShape(t, stops[0]), markerShape(t, stops[1])
	if points[0] != fmt.Sprintf("%g,%g", first.x, first.y) || points[2] != fmt.Sprintf("%g,%g", last.x, last.y) {
		t.Errorf("the road leg runs %s … %s, the markers are at %g,%g and %g,%g", points[0], points[2], first.x, first.y, last.x, last.y)
	}
	legs := len(r.Stops) // start→1, the stops between, last→end, one of them on the road
	if r.End == nil {
		legs--
	}
	if len(root.all("leg")) != legs {
		t.Errorf("%d straight legs, want %d", len(root.all("leg")), legs)
	}
	if a := root.all("attribution"); len(a) != 1 || !strings.Contains(a[0].text(), "© OpenStreetMap contributors") {
		t.Errorf("attribution %+v", a)
	}
	r.TravelModel, r.Stops[1].GeometryFromPrevious = connect.TravelGreatCircle, nil
	if root := parseSVG(t, routesuggest.SVG(r)); len(root.all("attribution")) != 0 || len(root.all("leg road")) != 0 {
		t.Error("a great-circle route credits OpenStreetMap or draws road legs")
	}
}
