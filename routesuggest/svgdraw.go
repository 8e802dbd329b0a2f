package routesuggest

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strings"
	"time"

	"github.com/integration-connect/connect"
)

// Colours of the map, chosen to stay apart in greyscale print.
const (
	colourRoute    = "#2b6cb0"
	colourStop     = "#c05621"
	colourDepot    = "#276749"
	colourExcluded = "#718096"
	colourLeader   = "#4a5568"
	colourText     = "#1a202c"
	colourMuted    = "#4a5568"
)

// write writes the whole picture.
func (d *drawing) write(b *bytes.Buffer) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" fill="%s">`+"\n",
		pageWidth, pageHeight, pageWidth, pageHeight, colourText)
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	d.writeTitle(b)
	d.writeMap(b)
	d.writePanel(b)
	b.WriteString("</svg>\n")
}

// writeMap draws the map area: legs, markers, labels, scale bar.
func (d *drawing) writeMap(b *bytes.Buffer) {
	fmt.Fprintf(b, `<rect class="map-area" x="%g" y="%g" width="%g" height="%g" fill="#f7f7f2" stroke="#cbd5e0"/>`+"\n",
		mapArea.x0, mapArea.y0, mapArea.width(), mapArea.height())
	if len(d.stops) == 0 {
		c := mapArea.center()
		if len(d.depots)+len(d.excluded) > 0 {
			c.y = mapArea.y0 + 28
		}
		fmt.Fprintf(b, `<text x="%g" y="%g" font-size="18" fill="%s" text-anchor="middle">No stops on this route</text>`+"\n", c.x, c.y, colourMuted)
	}
	if d.proj.pxPerKm == 0 {
		return
	}
	d.writeLegs(b)
	for _, m := range d.markers() {
		writeDisplacement(b, m)
	}
	for _, m := range d.excluded {
		writeMarker(b, m)
	}
	for _, m := range d.depots {
		writeMarker(b, m)
	}
	for _, m := range d.stops {
		writeMarker(b, m)
	}
	for _, l := range d.labels {
		writeLabel(b, l)
	}
	d.writeScaleBar(b)
	writeNorth(b)
	d.writeAttribution(b)
}

// writeLegs draws the route, leg by leg, with an arrow in the middle of every
// leg long enough to hold one; legs from the start and to the end are dashed.
func (d *drawing) writeLegs(b *bytes.Buffer) {
	if len(d.stops) == 0 {
		return
	}
	var start, end *marker
	if len(d.depots) > 0 && d.r.Start != nil {
		start = d.depots[0]
	}
	if len(d.depots) > 0 && d.r.End != nil {
		end = d.depots[len(d.depots)-1]
	}
	if start != nil {
		d.writeLeg(b, start, d.stops[0], d.paths[0], true)
	}
	for i := 1; i < len(d.stops); i++ {
		d.writeLeg(b, d.stops[i-1], d.stops[i], d.paths[i], false)
	}
	if end != nil {
		d.writeLeg(b, d.stops[len(d.stops)-1], end, d.endPath, true)
	}
}

// minArrowLeg is the shortest visible leg that gets an arrow.
const minArrowLeg = 30.0

// writeLeg draws the leg from one marker to the next: along its road path
// when it has one, straight otherwise.
func (d *drawing) writeLeg(b *bytes.Buffer, from, to *marker, path []connect.RoutePoint, depot bool) {
	dash := ""
	if depot {
		dash = ` stroke-dasharray="7 5"`
	}
	if len(path) >= 2 {
		d.writeRoadLeg(b, from, to, path, dash)
		return
	}
	x1, y1 := from.pos.rounded()
	x2, y2 := to.pos.rounded()
	fmt.Fprintf(b, `<line class="leg" x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2.5"%s/>`+"\n", x1, y1, x2, y2, colourRoute, dash)
	v := to.pos.sub(from.pos)
	length := v.length()
	if length-from.radius-to.radius < minArrowLeg {
		return
	}
	u := v.scale(1 / length)
	// The arrow sits in the middle of the visible part of the leg.
	mid := from.pos.add(u.scale(from.radius + (length-from.radius-to.radius)/2))
	writeArrow(b, "arrow", mid, u)
}

// writeRoadLeg draws a leg along its road path, from the marker where the
// leg starts to the one where it ends (a marker pushed aside pulls the ends of
// the path with it), with an arrow halfway along.
func (d *drawing) writeRoadLeg(b *bytes.Buffer, from, to *marker, path []connect.RoutePoint, dash string) {
	page := make([]pt, len(path))
	for i, p := range path {
		page[i] = d.proj.at(p)
	}
	page[0], page[len(page)-1] = from.pos, to.pos
	var points strings.Builder
	length := 0.0
	for i, p := range page {
		if i > 0 {
			points.WriteByte(' ')
			length += p.distance(page[i-1])
		}
		points.WriteString(coord(p))
	}
	fmt.Fprintf(b, `<polyline class="leg road" points="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round"%s/>`+"\n", points.String(), colourRoute, dash)
	if length-from.radius-to.radius < minArrowLeg {
		return
	}
	// The arrow sits halfway along the path, pointing along it.
	half := length / 2
	for i := 1; i < len(page); i++ {
		seg := page[i].distance(page[i-1])
		if seg > 0 && half <= seg {
			u := page[i].sub(page[i-1]).scale(1 / seg)
			writeArrow(b, "arrow", page[i-1].add(u.scale(half)), u)
			return
		}
		half -= seg
	}
}

// writeAttribution credits the map data of a route planned on the road
// network (OpenStreetMap's licence, the ODbL, asks for it wherever its data
// is shown), in the map's lower right corner.
func (d *drawing) writeAttribution(b *bytes.Buffer) {
	if d.r.TravelModel != connect.TravelRoad {
		return
	}
	fmt.Fprintf(b, `<text class="attribution" x="%g" y="%g" font-size="10" fill="%s" text-anchor="end">Road times and paths: © OpenStreetMap contributors</text>`+"\n",
		mapArea.x1-6, mapArea.y1-6, colourMuted)
}

// writeArrow draws an arrowhead at p pointing along the unit vector u.
func writeArrow(b *bytes.Buffer, class string, p, u pt) {
	n := pt{-u.y, u.x}
	tip, back := p.add(u.scale(7)), p.sub(u.scale(6))
	l, r := back.add(n.scale(6)), back.sub(n.scale(6))
	fmt.Fprintf(b, `<polygon class="%s" points="%s %s %s" fill="%s"/>`+"\n", class, coord(tip), coord(l), coord(r), colourRoute)
}

// coord formats a point for a points attribute.
func coord(p pt) string {
	x, y := p.rounded()
	return fmt.Sprintf("%g,%g", x, y)
}

// writeDisplacement draws, for a marker pushed away from its true place, a
// dot at the place and a leader line to the marker.
func writeDisplacement(b *bytes.Buffer, m *marker) {
	if m.pos.distance(m.at) < 1 {
		return
	}
	x1, y1 := m.at.rounded()
	x2, y2 := m.pos.rounded()
	fmt.Fprintf(b, `<g class="leader"><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="1"/><circle cx="%g" cy="%g" r="2.5" fill="%s"/></g>`+"\n",
		x1, y1, x2, y2, colourLeader, x1, y1, colourLeader)
}

// writeMarker draws a marker with its tooltip.
func writeMarker(b *bytes.Buffer, m *marker) {
	x, y := m.pos.rounded()
	r := m.radius
	switch m.kind {
	case stopMarker:
		size := 12.0
		if len(m.text) > 2 {
			size = 10
		}
		fmt.Fprintf(b, `<g class="stop" data-sequence="%d"><title>%s</title><circle cx="%g" cy="%g" r="%g" fill="%s" stroke="#ffffff" stroke-width="2"/><text x="%g" y="%g" font-size="%g" font-weight="bold" fill="#ffffff" text-anchor="middle">%s</text></g>`+"\n",
			m.stop.Sequence, esc(m.title), x, y, r, colourStop, x, round1(y+size*0.36), size, esc(m.text))
	case depotMarker:
		fmt.Fprintf(b, `<g class="depot"><title>%s</title><rect x="%g" y="%g" width="%g" height="%g" rx="3" fill="%s" stroke="#ffffff" stroke-width="2"/><text x="%g" y="%g" font-size="11" font-weight="bold" fill="#ffffff" text-anchor="middle">%s</text></g>`+"\n",
			esc(m.title), round1(x-r), round1(y-r*0.8), 2*r, round1(1.6*r), colourDepot, x, round1(y+4), esc(m.text))
	case excludedMarker:
		size := 10.0
		if len(m.text) > 1 {
			size = 8
		}
		fmt.Fprintf(b, `<g class="excluded"><title>%s</title><polygon points="%g,%g %g,%g %g,%g %g,%g" fill="#edf2f7" stroke="%s" stroke-width="1.5"/><text x="%g" y="%g" font-size="%g" font-weight="bold" fill="%s" text-anchor="middle">%s</text></g>`+"\n",
			esc(m.title), x, round1(y-r), round1(x+r), y, x, round1(y+r), round1(x-r), y, colourExcluded, x, round1(y+size*0.36), size, colourMuted, esc(m.text))
	}
}

// writeLabel draws a stop's label on a white ground, so that it stays
// readable over the route, with a leader line when it sits away from its
// marker.
func writeLabel(b *bytes.Buffer, l label) {
	fmt.Fprintf(b, `<g class="stop-label" data-sequence="%d">`, l.m.stop.Sequence)
	if l.leader {
		to := l.b.nearest(l.m.pos)
		from := l.m.pos.add(to.sub(l.m.pos).scale(l.m.radius / math.Max(to.distance(l.m.pos), 1e-6)))
		x1, y1 := from.rounded()
		x2, y2 := to.rounded()
		fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="0.8"/>`, x1, y1, x2, y2, colourLeader)
	}
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" rx="3" fill="#ffffff" fill-opacity="0.92" stroke="#a0aec0" stroke-width="0.8"/>`,
		round1(l.b.x0), round1(l.b.y0), round1(l.b.width()), round1(l.b.height()))
	x := round1(l.b.x0 + labelPad)
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="%g" font-weight="bold">%s</text>`, x, round1(l.b.y0+labelPad+labelSize-2), labelSize, esc(l.lines[0]))
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="%g" fill="%s">%s</text></g>`+"\n", x, round1(l.b.y1-labelPad-1), labelSmall, colourMuted, esc(l.lines[1]))
}

// scaleBarBox is where the scale bar goes: the map's lower left corner.
func scaleBarBox() box {
	return box{mapArea.x0 + 10, mapArea.y1 - 36, mapArea.x0 + 10 + maxScaleBar + 50, mapArea.y1 - 6}
}

// maxScaleBar is the longest scale bar, in pixels.
const maxScaleBar = 160.0

// writeScaleBar draws a bar of a round length (1, 2 or 5 times a power of
// ten, in m or km) of at most maxScaleBar pixels, in two halves.
func (d *drawing) writeScaleBar(b *bytes.Buffer) {
	km := roundDown(maxScaleBar / d.proj.pxPerKm)
	px := round1(km * d.proj.pxPerKm)
	bb := scaleBarBox()
	x, y := bb.x0+6, bb.y1-8
	text := fmt.Sprintf("%g km", km)
	if km < 1 {
		text = fmt.Sprintf("%g m", math.Round(km*1000))
	}
	fmt.Fprintf(b, `<g class="scale-bar"><rect x="%g" y="%g" width="%g" height="%g" fill="#ffffff" fill-opacity="0.85"/>`, bb.x0, bb.y0, round1(px+60), bb.height())
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="6" fill="%s" stroke="%s"/><rect x="%g" y="%g" width="%g" height="6" fill="#ffffff" stroke="%s"/>`,
		x, y-6, round1(px/2), colourText, colourText, round1(x+px/2), y-6, round1(px/2), colourText)
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="11">0</text><text x="%g" y="%g" font-size="11">%s</text></g>`+"\n",
		x-3, y-10, round1(x+px+4), y, text)
}

// roundDown is the largest 1, 2 or 5 times a power of ten not above x.
func roundDown(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, f := range []float64{5, 2, 1} {
		if f*p <= x {
			return f * p
		}
	}
	return p
}

// writeNorth marks north in the map's upper right corner.
func writeNorth(b *bytes.Buffer) {
	x, y := mapArea.x1-20, mapArea.y0+14
	fmt.Fprintf(b, `<g class="north"><polygon points="%g,%g %g,%g %g,%g" fill="%s"/><text x="%g" y="%g" font-size="11" font-weight="bold" text-anchor="middle">N</text></g>`+"\n",
		x, y, x-5, y+12, x+5, y+12, colourMuted, x, y+25)
}

// writeTitle draws the title block: what the route is and its totals.
func (d *drawing) writeTitle(b *bytes.Buffer) {
	r := d.r
	who := "Route"
	if r.EmployeeID != nil {
		who = "Route for " + *r.EmployeeID
	}
	date := time.Date(r.RouteDate.Year, r.RouteDate.Month, r.RouteDate.Day, 12, 0, 0, 0, time.UTC)
	line1 := fmt.Sprintf("%s · %s", who, date.Format("Monday 2 January 2006"))
	line2 := fmt.Sprintf("%s · %.1f km · %.0f min travel · %d min work · %.0f min waiting",
		plural(len(r.Stops), "stop"), r.TotalTravelKm, r.TotalTravelMinutes, r.TotalWorkMinutes, r.WaitMinutes)
	origin := fmt.Sprintf("import job %d", r.ImportJobID)
	if r.RoutePlanID != nil {
		origin = fmt.Sprintf("route plan %d", *r.RoutePlanID)
	}
	line3 := fmt.Sprintf("Times in %s · suggestion %d (%s) of %s", d.loc, r.ID, r.Status, origin)
	if r.Break != nil {
		line3 = fmt.Sprintf("Break %s–%s · ", d.clock(r.Break.StartUtc), d.clock(r.Break.EndUtc)) + line3
	}
	if r.StartUtc != nil && r.EndUtc != nil {
		line3 = fmt.Sprintf("On the road %s–%s · ", d.clock(*r.StartUtc), d.clock(*r.EndUtc)) + line3
	}
	fmt.Fprintf(b, `<g class="title-block"><text x="%g" y="30" font-size="21" font-weight="bold">%s</text><text x="%g" y="54" font-size="15">%s</text><text x="%g" y="74" font-size="12" fill="%s">%s</text></g>`+"\n",
		pageMargin, esc(line1), pageMargin, esc(line2), pageMargin, colourMuted, esc(line3))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// esc makes s safe as XML text: characters XML 1.0 forbids become spaces,
// markup is escaped.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0xFFFE || r == 0xFFFF {
			return ' '
		}
		return r
	}, s)
	return html.EscapeString(s)
}
