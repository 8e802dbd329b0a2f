package routesuggest

import (
	"math"
	"unicode/utf8"

	"github.com/integration-connect/connect"
)

// The page of the SVG map, in pixels: landscape, in the proportions of an A4
// or Letter sheet, so that it prints on one page. The title block runs along
// the top, the map takes the left and the side panel (legend, excluded items)
// the right.
const (
	pageWidth, pageHeight = 1200.0, 850.0
	titleHeight           = 84.0
	panelWidth            = 284.0
	pageMargin            = 16.0
	// mapPadding keeps markers away from the map's edge, so that their labels
	// fit beside them.
	mapPadding = 48.0
	// minSpanKm is the smallest area the map shows: a single stop, or stops on
	// one street, are drawn in the middle of at least this many km.
	minSpanKm = 1.0
)

// mapArea is where the map is drawn.
var mapArea = box{pageMargin, titleHeight + 8, pageWidth - panelWidth - 2*pageMargin, pageHeight - pageMargin}

// pt is a point on the page.
type pt struct{ x, y float64 }

func (p pt) add(q pt) pt                 { return pt{p.x + q.x, p.y + q.y} }
func (p pt) sub(q pt) pt                 { return pt{p.x - q.x, p.y - q.y} }
func (p pt) scale(f float64) pt          { return pt{p.x * f, p.y * f} }
func (p pt) length() float64             { return math.Hypot(p.x, p.y) }
func (p pt) distance(q pt) float64       { return p.sub(q).length() }
func (p pt) rounded() (float64, float64) { return round1(p.x), round1(p.y) }

// box is a rectangle on the page: x0 ≤ x1, y0 ≤ y1.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) width() float64  { return b.x1 - b.x0 }
func (b box) height() float64 { return b.y1 - b.y0 }
func (b box) center() pt      { return pt{(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2} }

// overlap is the area b and c share.
func (b box) overlap(c box) float64 {
	w := math.Min(b.x1, c.x1) - math.Max(b.x0, c.x0)
	h := math.Min(b.y1, c.y1) - math.Max(b.y0, c.y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// outside is the area of b that lies outside c.
func (b box) outside(c box) float64 { return b.width()*b.height() - b.overlap(c) }

// nearest is the point of b closest to p, where a leader line ends.
func (b box) nearest(p pt) pt {
	return pt{math.Min(math.Max(p.x, b.x0), b.x1), math.Min(math.Max(p.y, b.y0), b.y1)}
}

// around is the square of half-size r around p.
func around(p pt, r float64) box { return box{p.x - r, p.y - r, p.x + r, p.y + r} }

// projection maps coordinates onto the page: an equirectangular projection
// around the middle of the drawn area, exact enough for one day's area, with
// kilometres as the unit so that the scale bar can be measured.
type projection struct {
	lat0, lon0 float64 // the middle of the drawn area
	pxPerKm    float64
	center     pt // where (lat0, lon0) lands
}

// Kilometres per degree of latitude, and of longitude at the equator.
const kmPerDegLat, kmPerDegLon = 110.574, 111.320

// fit returns the projection that shows every point inside the map area with
// its padding, centred, keeping the aspect ratio.
func fit(points []connect.RoutePoint) projection {
	minLat, maxLat, minLon, maxLon := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range points {
		minLat, maxLat = math.Min(minLat, p.Latitude), math.Max(maxLat, p.Latitude)
		minLon, maxLon = math.Min(minLon, p.Longitude), math.Max(maxLon, p.Longitude)
	}
	pr := projection{lat0: (minLat + maxLat) / 2, lon0: (minLon + maxLon) / 2, center: mapArea.center()}
	spanX := math.Max((maxLon-minLon)*kmPerDegLon*math.Cos(pr.lat0*math.Pi/180), minSpanKm)
	spanY := math.Max((maxLat-minLat)*kmPerDegLat, minSpanKm)
	pr.pxPerKm = math.Min((mapArea.width()-2*mapPadding)/spanX, (mapArea.height()-2*mapPadding)/spanY)
	return pr
}

// at is where p lands on the page.
func (pr projection) at(p connect.RoutePoint) pt {
	dx := (p.Longitude - pr.lon0) * kmPerDegLon * math.Cos(pr.lat0*math.Pi/180)
	dy := (p.Latitude - pr.lat0) * kmPerDegLat
	return pt{pr.center.x + dx*pr.pxPerKm, pr.center.y - dy*pr.pxPerKm}
}

// markerGap is the space kept between two markers.
const markerGap = 3.0

// spreadRounds and spreadPairs bound the work of spread: at most
// spreadRounds rounds, and fewer for many markers, so that a job of
// thousands of excluded targets is still drawn quickly.
const (
	spreadRounds = 200
	spreadPairs  = 20_000_000
)

// spread pushes apart markers that would overlap, in rounds of pairwise
// repulsion, and keeps them inside the map area. Markers at the same place
// leave in directions spread by the golden angle, so the result does not
// depend on floating-point accidents and is the same every time.
func spread(markers []*marker) {
	ms := withAnchors(markers)
	pairs := max(len(ms)*(len(ms)-1)/2, 1)
	for range min(max(spreadPairs/pairs, 1), spreadRounds) {
		moved := false
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				moved = separate(ms[i], ms[j], j) || moved
			}
		}
		for _, m := range markers {
			m.pos = clampInto(m.pos, m.radius)
		}
		if !moved {
			return
		}
	}
}

// anchorRadius is the room kept free around a marker's true place.
const anchorRadius = 4.0

// withAnchors returns the markers followed by an anchor at each one's true
// place.
func withAnchors(ms []*marker) []*marker {
	out := append([]*marker{}, ms...)
	for _, m := range ms {
		out = append(out, &marker{kind: anchorMarker, at: m.at, pos: m.at, radius: anchorRadius, owner: m})
	}
	return out
}

// share is how much of a push apart falls on a (b takes the rest): anchors
// never move, and an excluded item makes way for the route.
func share(a, b *marker) float64 {
	switch {
	case a.kind == anchorMarker:
		return 0
	case b.kind == anchorMarker:
		return 1
	case a.kind == excludedMarker && b.kind != excludedMarker:
		return 1
	case b.kind == excludedMarker && a.kind != excludedMarker:
		return 0
	}
	return 0.5
}

// separate pushes a and b apart when they overlap; j picks the direction
// when they sit on the same spot. A marker may cover its own anchor.
func separate(a, b *marker, j int) bool {
	if a.kind == anchorMarker && b.kind == anchorMarker || a.owner == b || b.owner == a {
		return false
	}
	need := a.radius + b.radius + markerGap
	d := b.pos.sub(a.pos)
	dist := d.length()
	if dist >= need-0.01 {
		return false
	}
	if dist < 1e-6 {
		angle := float64(j) * 2.399963 // the golden angle, in radians
		d, dist = pt{math.Cos(angle), math.Sin(angle)}, 1
	}
	push := d.scale((need - dist) / dist)
	shareA := share(a, b)
	a.pos, b.pos = a.pos.sub(push.scale(shareA)), b.pos.add(push.scale(1-shareA))
	return true
}

// clampInto keeps a marker of radius r inside the map area.
func clampInto(p pt, r float64) pt {
	return pt{math.Min(math.Max(p.x, mapArea.x0+r), mapArea.x1-r), math.Min(math.Max(p.y, mapArea.y0+r), mapArea.y1-r)}
}

// Label placement: a label goes beside its marker where it covers no other
// label or marker and stays on the map. The candidates are the eight sides and
// corners of the marker, first right next to it, then further out with a
// leader line; when every candidate collides, the least covering one wins.
var (
	labelRings = []float64{3, 16, 34, 56}
	labelSides = []pt{{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {-1, -1}, {1, 1}, {-1, 1}}
)

// leaderFrom is the ring from which a label gets a leader line.
const leaderFrom = 10.0

// placeLabel chooses the box of a label of size w×h for marker m among the
// obstacles, and whether it needs a leader line.
func placeLabel(m *marker, w, h float64, obstacles []box) (box, bool) {
	best, bestScore, bestRing := box{}, math.Inf(1), 0.0
	for _, ring := range labelRings {
		for _, side := range labelSides {
			b := labelBox(m.pos, side, m.radius+ring, w, h)
			score := 10 * b.outside(mapArea)
			for _, o := range obstacles {
				score += b.overlap(o)
			}
			if score < bestScore {
				best, bestScore, bestRing = b, score, ring
			}
			if score == 0 {
				return b, ring >= leaderFrom
			}
		}
	}
	return best, bestRing >= leaderFrom
}

// labelBox puts a w×h box on side of p, at distance d from it.
func labelBox(p, side pt, d, w, h float64) box {
	if side.x != 0 && side.y != 0 {
		d *= 0.75 // a corner: the box's corner comes close diagonally
	}
	x := p.x + side.x*d - w/2 + side.x*w/2
	y := p.y + side.y*d - h/2 + side.y*h/2
	return box{x, y, x + w, y + h}
}

// textWidth estimates the width of s in the sans-serif font at size, enough
// to keep labels apart (an SVG has no font metrics before it is rendered).
func textWidth(s string, size float64, bold bool) float64 {
	em := 0.6
	if bold {
		em = 0.66
	}
	return float64(utf8.RuneCountInString(s)) * size * em
}
