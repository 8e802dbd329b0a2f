package routesuggest

import (
	"bytes"
	"fmt"
	"html"
	"math"

	"github.com/integration-connect/connect"
)

// The drawing area of SVG, in pixels.
const (
	svgWidth, svgHeight = 800.0, 600.0
	svgMargin           = 48.0
	svgTop              = 56.0 // room for the caption
)

// SVG draws a route suggestion as a picture a manager can read at a glance: the
// path in visiting order, every stop numbered with its sequence (hover shows the
// target and its times), the start (S) and end (E) marked, and a caption with
// the totals. The map is an equirectangular projection of the route's bounding
// box, which is exact enough for one day's area.
func SVG(r connect.RouteSuggestion) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif">`+"\n", svgWidth, svgHeight, svgWidth, svgHeight)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fbfbf8"/>`+"\n")
	title, totals := caption(r)
	fmt.Fprintf(&b, `<text x="16" y="24" font-size="16" fill="#222">%s</text>`+"\n", html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="16" y="44" font-size="13" fill="#555">%s</text>`+"\n", html.EscapeString(totals))
	points := routePoints(r)
	if len(points) == 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="18" fill="#777" text-anchor="middle">No stops on this route</text>`+"\n", svgWidth/2, svgHeight/2)
	} else {
		project := projection(points)
		drawPath(&b, r, project)
		drawDepots(&b, r, project)
		drawStops(&b, r, project)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// caption is the title line and the totals line of the picture.
func caption(r connect.RouteSuggestion) (string, string) {
	who := ""
	if r.EmployeeID != nil {
		who = " · " + *r.EmployeeID
	}
	return fmt.Sprintf("Route suggestion %d (%s) · %s%s", r.ID, r.Status, r.RouteDate, who),
		fmt.Sprintf("%s · %.1f km · %.0f min travel · %d min work · %d excluded",
			plural(len(r.Stops), "stop"), r.TotalTravelKm, r.TotalTravelMinutes, r.TotalWorkMinutes, len(r.Excluded))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// routePoints are the places on the picture: start, stops, end.
func routePoints(r connect.RouteSuggestion) []connect.RoutePoint {
	var points []connect.RoutePoint
	for _, p := range []*connect.RoutePoint{r.Start, r.End} {
		if p != nil {
			points = append(points, *p)
		}
	}
	for _, s := range r.Stops {
		points = append(points, connect.RoutePoint{Latitude: s.Latitude, Longitude: s.Longitude})
	}
	return points
}

// projection maps coordinates into the drawing area, keeping the aspect ratio
// (a degree of longitude is shorter than one of latitude, by cos(latitude)).
func projection(points []connect.RoutePoint) func(connect.RoutePoint) (float64, float64) {
	minLat, maxLat, minLon, maxLon := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range points {
		minLat, maxLat = math.Min(minLat, p.Latitude), math.Max(maxLat, p.Latitude)
		minLon, maxLon = math.Min(minLon, p.Longitude), math.Max(maxLon, p.Longitude)
	}
	shrink := math.Cos((minLat + maxLat) / 2 * math.Pi / 180)
	spanX, spanY := math.Max((maxLon-minLon)*shrink, 1e-6), math.Max(maxLat-minLat, 1e-6)
	areaX, areaY := svgWidth-2*svgMargin, svgHeight-svgTop-2*svgMargin
	scale := math.Min(areaX/spanX, areaY/spanY)
	offX, offY := svgMargin+(areaX-spanX*scale)/2, svgTop+svgMargin+(areaY-spanY*scale)/2
	return func(p connect.RoutePoint) (float64, float64) {
		return round1(offX + (p.Longitude-minLon)*shrink*scale), round1(offY + (maxLat-p.Latitude)*scale)
	}
}

func drawPath(b *bytes.Buffer, r connect.RouteSuggestion, project func(connect.RoutePoint) (float64, float64)) {
	var path []connect.RoutePoint
	if r.Start != nil {
		path = append(path, *r.Start)
	}
	for _, s := range r.Stops {
		path = append(path, connect.RoutePoint{Latitude: s.Latitude, Longitude: s.Longitude})
	}
	if r.End != nil && len(r.Stops) > 0 {
		path = append(path, *r.End)
	}
	b.WriteString(`<polyline fill="none" stroke="#2b6cb0" stroke-width="3" stroke-linejoin="round" points="`)
	for i, p := range path {
		x, y := project(p)
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(b, "%g,%g", x, y)
	}
	b.WriteString(`"/>` + "\n")
}

func drawDepots(b *bytes.Buffer, r connect.RouteSuggestion, project func(connect.RoutePoint) (float64, float64)) {
	mark := func(p *connect.RoutePoint, label, title string) {
		x, y := project(*p)
		fmt.Fprintf(b, `<g><title>%s</title><rect x="%g" y="%g" width="34" height="22" rx="3" fill="#2f855a"/><text x="%g" y="%g" font-size="12" fill="#fff" text-anchor="middle">%s</text></g>`+"\n",
			title, x-17, y-11, x, y+4, label)
	}
	switch {
	case r.Start == nil:
	case r.End != nil && *r.End == *r.Start:
		mark(r.Start, "S/E", "start and end")
	default:
		mark(r.Start, "S", "start")
		if r.End != nil {
			mark(r.End, "E", "end")
		}
	}
}

func drawStops(b *bytes.Buffer, r connect.RouteSuggestion, project func(connect.RoutePoint) (float64, float64)) {
	for _, s := range r.Stops {
		x, y := project(connect.RoutePoint{Latitude: s.Latitude, Longitude: s.Longitude})
		title := fmt.Sprintf("%d. %s (target %d), %s–%s UTC, %.1f km from the previous stop",
			s.Sequence, s.ExternalID, s.TargetID, s.ArrivalUtc.Format("15:04"), s.DepartureUtc.Format("15:04"), s.TravelKmFromPrevious)
		fmt.Fprintf(b, `<g><title>%s</title><circle cx="%g" cy="%g" r="12" fill="#c05621" stroke="#fff" stroke-width="2"/><text x="%g" y="%g" font-size="12" fill="#fff" text-anchor="middle">%d</text></g>`+"\n",
			html.EscapeString(title), x, y, x, y+4, s.Sequence)
	}
}
