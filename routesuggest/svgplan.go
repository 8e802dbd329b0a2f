package routesuggest

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/integration-connect/connect"
)

// routeColours tell the technicians of a plan apart, one each, in turn;
// chosen to stay apart from each other and from the grey of left-out targets.
var routeColours = []string{"#2b6cb0", "#c05621", "#2f855a", "#805ad5", "#b7791f", "#d53f8c", "#0987a0", "#9b2c2c"}

// PlanSVG draws a route plan as one map a dispatcher can read on paper:
// every technician's route in a colour of its own (its legs along their road
// paths when the plan has them, its stops numbered in visiting order, its
// start and end marked S), the targets left out as grey diamonds, and beside
// the map a legend: per technician the colour, the stops, km, the day and the
// break, then the targets left out grouped by reason. The same plan always
// gives the same picture.
func PlanSVG(plan connect.RoutePlan) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" fill="%s">`+"\n",
		pageWidth, pageHeight, pageWidth, pageHeight, colourText)
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	writePlanTitle(&b, plan)
	fmt.Fprintf(&b, `<rect class="map-area" x="%g" y="%g" width="%g" height="%g" fill="#f7f7f2" stroke="#cbd5e0"/>`+"\n",
		mapArea.x0, mapArea.y0, mapArea.width(), mapArea.height())
	if places := planPlaces(plan); len(places) > 0 {
		proj := fit(places)
		for i, r := range plan.Routes {
			writePlanRoute(&b, proj, r, routeColours[i%len(routeColours)])
		}
		for _, l := range plan.LeftOut {
			if l.Latitude != nil && l.Longitude != nil {
				p := proj.at(connect.RoutePoint{Latitude: *l.Latitude, Longitude: *l.Longitude})
				fmt.Fprintf(&b, `<g class="left-out"><title>%s</title><polygon points="%s %s %s %s" fill="#edf2f7" stroke="%s" stroke-width="1.5"/></g>`+"\n",
					esc(l.ExternalID+" — not planned: "+l.Message), coord(p.add(pt{0, -7})), coord(p.add(pt{7, 0})), coord(p.add(pt{0, 7})), coord(p.add(pt{-7, 0})), colourExcluded)
			}
		}
		d := &drawing{proj: proj}
		d.writeScaleBar(&b)
		writeNorth(&b)
		if planOnRoads(plan) {
			d.r.TravelModel = connect.TravelRoad
			d.writeAttribution(&b)
		}
	}
	writePlanLegend(&b, plan)
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// planPlaces are the coordinates the plan's map must show.
func planPlaces(plan connect.RoutePlan) []connect.RoutePoint {
	var ps []connect.RoutePoint
	for _, r := range plan.Routes {
		d := drawing{r: r}
		ps = append(ps, d.places()...)
	}
	for _, l := range plan.LeftOut {
		if l.Latitude != nil && l.Longitude != nil {
			ps = append(ps, connect.RoutePoint{Latitude: *l.Latitude, Longitude: *l.Longitude})
		}
	}
	return ps
}

// planOnRoads reports whether any route of the plan was planned on roads.
func planOnRoads(plan connect.RoutePlan) bool {
	for _, r := range plan.Routes {
		if r.TravelModel == connect.TravelRoad {
			return true
		}
	}
	return false
}

// writePlanRoute draws one technician's route in its colour: legs along their
// road paths (straight without), numbered stops, the start and end.
func writePlanRoute(b *bytes.Buffer, proj projection, r connect.RouteSuggestion, colour string) {
	if len(r.Stops) == 0 {
		return
	}
	who := "route"
	if r.EmployeeID != nil {
		who = *r.EmployeeID
	}
	fmt.Fprintf(b, `<g class="plan-route" data-employee="%s">`+"\n", esc(who))
	var prev *connect.RoutePoint = r.Start
	for i, s := range r.Stops {
		here := connect.RoutePoint{Latitude: s.Latitude, Longitude: s.Longitude}
		if prev != nil {
			writePlanLeg(b, proj, *prev, here, roadPath(s.GeometryFromPrevious), colour, i == 0)
		}
		prev = &here
	}
	if r.End != nil {
		writePlanLeg(b, proj, *prev, *r.End, roadPath(r.GeometryToEnd), colour, true)
	}
	switch {
	case r.Start != nil && (r.End == nil || *r.End == *r.Start):
		writePlanDepot(b, proj.at(*r.Start), who+": start and end of the day", "S", colour)
	case r.Start != nil:
		writePlanDepot(b, proj.at(*r.Start), who+": start of the day", "S", colour)
		writePlanDepot(b, proj.at(*r.End), who+": end of the day", "E", colour)
	}
	for _, s := range r.Stops {
		p := proj.at(connect.RoutePoint{Latitude: s.Latitude, Longitude: s.Longitude})
		fmt.Fprintf(b, `<g class="stop"><title>%s</title><circle cx="%g" cy="%g" r="9" fill="%s" stroke="#ffffff" stroke-width="1.5"/><text x="%g" y="%g" font-size="9" font-weight="bold" fill="#ffffff" text-anchor="middle">%d</text></g>`+"\n",
			esc(fmt.Sprintf("%s, stop %d: %s — %s", who, s.Sequence, s.ExternalID, s.Title)), round1(p.x), round1(p.y), colour, round1(p.x), round1(p.y+3.2), s.Sequence)
	}
	b.WriteString("</g>\n")
}

// writePlanDepot marks where a technician's day starts or ends.
func writePlanDepot(b *bytes.Buffer, p pt, title, letter, colour string) {
	fmt.Fprintf(b, `<g class="depot"><title>%s</title><rect x="%g" y="%g" width="16" height="16" rx="3" fill="%s"/><text x="%g" y="%g" font-size="10" font-weight="bold" fill="#ffffff" text-anchor="middle">%s</text></g>`+"\n",
		esc(title), round1(p.x-8), round1(p.y-8), colour, round1(p.x), round1(p.y+3.5), letter)
}

// writePlanLeg draws one leg, dashed from the start and to the end.
func writePlanLeg(b *bytes.Buffer, proj projection, from, to connect.RoutePoint, path []connect.RoutePoint, colour string, depot bool) {
	if len(path) < 2 {
		path = []connect.RoutePoint{from, to}
	}
	points := make([]string, len(path))
	for i, p := range path {
		points[i] = coord(proj.at(p))
	}
	dash := ""
	if depot {
		dash = ` stroke-dasharray="6 4"`
	}
	fmt.Fprintf(b, `<polyline class="leg" points="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round"%s/>`+"\n", strings.Join(points, " "), colour, dash)
}

// writePlanTitle writes what the plan is: the day and its totals.
func writePlanTitle(b *bytes.Buffer, plan connect.RoutePlan) {
	stops, km := 0, 0.0
	for _, r := range plan.Routes {
		stops += len(r.Stops)
		km += r.TotalTravelKm
	}
	date := time.Date(plan.RouteDate.Year, plan.RouteDate.Month, plan.RouteDate.Day, 12, 0, 0, 0, time.UTC)
	line1 := fmt.Sprintf("Route plan %d · %s", plan.ID, date.Format("Monday 2 January 2006"))
	line2 := fmt.Sprintf("%s · %s · %.1f km · %s left out", plural(len(plan.Routes), "technician"), plural(stops, "stop"), round1(km), plural(len(plan.LeftOut), "target"))
	fmt.Fprintf(b, `<g class="title-block"><text x="%g" y="30" font-size="21" font-weight="bold">%s</text><text x="%g" y="54" font-size="15">%s</text><text x="%g" y="74" font-size="12" fill="%s">%s</text></g>`+"\n",
		pageMargin, esc(line1), pageMargin, esc(line2), pageMargin, colourMuted, esc("Status "+string(plan.Status)+" · each technician's times in their own time zone"))
}

// writePlanLegend lists the technicians with their colours and days, then
// the targets left out by reason.
func writePlanLegend(b *bytes.Buffer, plan connect.RoutePlan) {
	x, y := panelX0, titleHeight+22
	b.WriteString(`<g class="legend">`)
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="14" font-weight="bold">Technicians</text>`, x, y)
	for i, r := range plan.Routes {
		y += 36
		who := "route"
		if r.EmployeeID != nil {
			who = *r.EmployeeID
		}
		fmt.Fprintf(b, `<g class="legend-route"><rect x="%g" y="%g" width="14" height="14" rx="2" fill="%s"/><text x="%g" y="%g" font-size="12" font-weight="bold">%s</text><text x="%g" y="%g" font-size="11" fill="%s">%s</text></g>`,
			x, y-11, routeColours[i%len(routeColours)], x+20, y, esc(shorten(who, 30)), x+20, y+14, colourMuted, esc(routeLine(r)))
	}
	y += 40
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="14" font-weight="bold">Left out (%d)</text>`, x, y, len(plan.LeftOut))
	for _, g := range groupExcluded(plan.LeftOut) {
		if y > pageHeight-40 {
			break
		}
		y += 20
		ids := make([]string, 0, len(g.items))
		for _, e := range g.items {
			ids = append(ids, e.item.ExternalID)
		}
		fmt.Fprintf(b, `<text x="%g" y="%g" font-size="12" font-weight="bold">%s (%d)</text>`, x, y, esc(reasonName(g.reason)), len(g.items))
		y += 15
		fmt.Fprintf(b, `<text x="%g" y="%g" font-size="11" fill="%s">%s</text>`, x+8, y, colourMuted, esc(shorten(strings.Join(ids, ", "), 44)))
	}
	b.WriteString("</g>\n")
}

// routeLine sums up one technician's day for the legend.
func routeLine(r connect.RouteSuggestion) string {
	loc := zone(r.TimeZone)
	line := fmt.Sprintf("%s, %.1f km", plural(len(r.Stops), "stop"), r.TotalTravelKm)
	if r.StartUtc != nil && r.EndUtc != nil {
		line += fmt.Sprintf(", %s–%s", r.StartUtc.In(loc).Format("15:04"), r.EndUtc.In(loc).Format("15:04"))
	}
	if r.Break != nil {
		line += fmt.Sprintf(", break %s", r.Break.StartUtc.In(loc).Format("15:04"))
	}
	return line
}
