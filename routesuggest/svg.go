package routesuggest

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/integration-connect/connect"
)

// SVG draws a route suggestion as a map a dispatcher can read on paper, in
// print or on a touch screen, without hovering:
//
//   - a title block: the date, the employee, the number of stops, km, travel,
//     work and waiting minutes, and when the day starts and ends;
//   - the path in visiting order with an arrow on every leg, the legs from the
//     start and to the end dashed, start (S) and end (E) marked;
//   - every stop numbered with its sequence and labelled beside it with the
//     sequence, its externalId (its shortened title when the externalId is
//     long) and the start and end of work in the suggestion's time zone;
//   - excluded items with coordinates as lettered grey diamonds, and a side
//     list of every excluded item grouped by reason, keyed by those letters,
//     with the number of those that have no coordinates;
//   - a legend and a scale bar;
//   - on a route planned on the road network, every leg along its road
//     path (straight where it has none) and the data's attribution.
//
// Markers that would overlap are pushed apart; a thin leader line joins a
// pushed marker to its true place, and a label placed away from its marker to
// the marker. The view is fitted to what is drawn, with padding; a single
// place is drawn in the middle. Every marker keeps a tooltip with the details.
// The same suggestion always gives the same picture.
func SVG(r connect.RouteSuggestion) []byte {
	d := newDrawing(r)
	var b bytes.Buffer
	d.write(&b)
	return b.Bytes()
}

// markerKind tells what a marker stands for.
type markerKind int

const (
	stopMarker markerKind = iota
	depotMarker
	excludedMarker
	// anchorMarker is the true place of another marker, not drawn as a
	// marker: other markers keep off it, so that the dot at the end of a
	// leader line stays visible.
	anchorMarker
)

// Marker sizes (radius, or half the side of a square).
const (
	stopRadius     = 11.0
	depotRadius    = 11.0
	excludedRadius = 9.0
)

// marker is one symbol on the map.
type marker struct {
	kind   markerKind
	geo    connect.RoutePoint
	at     pt // the true place on the page
	pos    pt // where it is drawn, after pushing overlapping markers apart
	radius float64
	owner  *marker // of an anchor: the marker whose true place it is
	text   string  // inside the symbol
	title  string  // the tooltip
	stop   *connect.RouteStop
}

// drawing is a suggestion being drawn: its markers in place and its labels.
type drawing struct {
	r        connect.RouteSuggestion
	loc      *time.Location
	proj     projection
	depots   []*marker // start, then end (one marker when they are the same place)
	stops    []*marker
	excluded []*marker
	groups   []exclusionGroup
	labels   []label
	// paths[i] is the road path into stop i; endPath the one from the last
	// stop to the end. Nil where a leg has none: it is drawn straight.
	paths   [][]connect.RoutePoint
	endPath []connect.RoutePoint
}

// label is a stop's label in its place.
type label struct {
	m      *marker
	b      box
	leader bool
	lines  [2]string
}

// newDrawing projects every place, pushes overlapping markers apart and
// places the labels.
func newDrawing(r connect.RouteSuggestion) *drawing {
	d := &drawing{r: r, loc: zone(r.TimeZone)}
	d.groups = groupExcluded(r.Excluded)
	d.paths = make([][]connect.RoutePoint, len(r.Stops))
	for i, stop := range r.Stops {
		d.paths[i] = roadPath(stop.GeometryFromPrevious)
	}
	d.endPath = roadPath(r.GeometryToEnd)
	places := d.places()
	if len(places) == 0 {
		return d
	}
	d.proj = fit(places)
	d.addMarkers()
	all := d.markers()
	for _, m := range all {
		m.at = d.proj.at(m.geo)
		m.pos = m.at
	}
	spread(all)
	d.placeLabels(all)
	return d
}

// zone is the suggestion's time zone, UTC when it has none (suggestions made
// before they recorded one) or it is unknown here.
func zone(name string) *time.Location {
	loc, err := time.LoadLocation(name) // "" is UTC
	if err != nil {
		return time.UTC
	}
	return loc
}

// places are the coordinates the map must show.
func (d *drawing) places() []connect.RoutePoint {
	var ps []connect.RoutePoint
	for _, p := range []*connect.RoutePoint{d.r.Start, d.r.End} {
		if p != nil {
			ps = append(ps, *p)
		}
	}
	for _, s := range d.r.Stops {
		ps = append(ps, connect.RoutePoint{Latitude: s.Latitude, Longitude: s.Longitude})
	}
	for _, g := range d.groups {
		for _, e := range g.items {
			if e.key != "" {
				ps = append(ps, connect.RoutePoint{Latitude: *e.item.Latitude, Longitude: *e.item.Longitude})
			}
		}
	}
	for _, path := range append(d.paths, d.endPath) {
		ps = append(ps, path...)
	}
	return ps
}

// roadPath decodes a leg's geometry; nil when there is none or it cannot be
// read (the leg is then drawn straight).
func roadPath(geometry *string) []connect.RoutePoint {
	if geometry == nil {
		return nil
	}
	points, err := decodePolyline(*geometry)
	if err != nil || len(points) < 2 {
		return nil
	}
	path := make([]connect.RoutePoint, len(points))
	for i, p := range points {
		path[i] = connect.RoutePoint{Latitude: p.Latitude, Longitude: p.Longitude}
	}
	return path
}

// addMarkers creates the markers at their coordinates.
func (d *drawing) addMarkers() {
	start, end := d.r.Start, d.r.End
	switch {
	case start != nil && end != nil && *start == *end:
		d.depots = append(d.depots, &marker{kind: depotMarker, geo: *start, radius: depotRadius + 4, text: "S/E", title: "Start and end of the day"})
	default:
		if start != nil {
			d.depots = append(d.depots, &marker{kind: depotMarker, geo: *start, radius: depotRadius, text: "S", title: "Start of the day"})
		}
		if end != nil {
			d.depots = append(d.depots, &marker{kind: depotMarker, geo: *end, radius: depotRadius, text: "E", title: "End of the day"})
		}
	}
	for i := range d.r.Stops {
		s := &d.r.Stops[i]
		d.stops = append(d.stops, &marker{kind: stopMarker, geo: connect.RoutePoint{Latitude: s.Latitude, Longitude: s.Longitude},
			radius: stopRadius, text: fmt.Sprint(s.Sequence), title: d.stopTitle(s), stop: s})
	}
	for _, g := range d.groups {
		for _, e := range g.items {
			if e.key != "" {
				d.excluded = append(d.excluded, &marker{kind: excludedMarker, geo: connect.RoutePoint{Latitude: *e.item.Latitude, Longitude: *e.item.Longitude},
					radius: excludedRadius, text: e.key, title: fmt.Sprintf("%s · %s: not on the route (%s)", e.key, e.item.ExternalID, g.reason)})
			}
		}
	}
}

// markers are all markers, stops first, so that stops keep their places
// best when markers are pushed apart.
func (d *drawing) markers() []*marker {
	return append(append(append([]*marker{}, d.stops...), d.depots...), d.excluded...)
}

// stopTitle is a stop's tooltip.
func (d *drawing) stopTitle(s *connect.RouteStop) string {
	t := fmt.Sprintf("%d. %s", s.Sequence, s.ExternalID)
	if s.Title != "" {
		t += " — " + s.Title
	}
	t += fmt.Sprintf(" (target %d): arrive %s", s.TargetID, d.clock(s.ArrivalUtc))
	if s.WaitMinutes > 0 {
		t += fmt.Sprintf(", wait %.0f min", s.WaitMinutes)
	}
	return t + fmt.Sprintf(", work %s, leave %s; %.1f km, %.0f min from the previous stop",
		d.span(s), d.clock(s.DepartureUtc), s.TravelKmFromPrevious, s.TravelMinutesFromPrevious)
}

// clock is t as local time of day.
func (d *drawing) clock(t time.Time) string { return t.In(d.loc).Format("15:04") }

// span is a stop's work, start–end, in local time. Suggestions made before
// serviceStartUtc existed show arrival–departure.
func (d *drawing) span(s *connect.RouteStop) string {
	from := s.ServiceStartUtc
	if from.IsZero() {
		from = s.ArrivalUtc
	}
	return d.clock(from) + "–" + d.clock(s.DepartureUtc)
}

// Label fonts.
const (
	labelSize, labelSmall = 12.0, 11.0
	labelPad              = 4.0
	labelHeight           = 2*labelPad + labelSize + labelSmall + 3
)

// placeLabels puts a label beside every stop, in route order, around the
// markers, the scale bar and the labels already placed.
func (d *drawing) placeLabels(all []*marker) {
	obstacles := []box{scaleBarBox()}
	for _, m := range all {
		obstacles = append(obstacles, around(m.pos, m.radius))
	}
	for _, m := range d.stops {
		l := label{m: m, lines: [2]string{fmt.Sprintf("%d  %s", m.stop.Sequence, stopName(*m.stop)), d.labelTimes(m.stop)}}
		w := max(textWidth(l.lines[0], labelSize, true), textWidth(l.lines[1], labelSmall, false)) + 2*labelPad
		l.b, l.leader = placeLabel(m, w, labelHeight, obstacles)
		obstacles = append(obstacles, l.b)
		d.labels = append(d.labels, l)
	}
}

// labelTimes is a label's second line: the work in local time, and the wait
// before it.
func (d *drawing) labelTimes(s *connect.RouteStop) string {
	if s.WaitMinutes >= 1 {
		return fmt.Sprintf("%s · waits %.0f′", d.span(s), s.WaitMinutes)
	}
	return d.span(s)
}

// maxNameRunes is the longest name a label shows in full.
const maxNameRunes = 16

// stopName is what a label calls a stop: its externalId when that is short,
// else its title (or the externalId) shortened.
func stopName(s connect.RouteStop) string {
	if len([]rune(s.ExternalID)) <= maxNameRunes || s.Title == "" {
		return shorten(s.ExternalID, maxNameRunes)
	}
	return shorten(s.Title, maxNameRunes)
}

// shorten cuts s to n runes, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
