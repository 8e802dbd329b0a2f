package routesuggest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/integration-connect/connect"
)

// panelX0 is the left edge of the side panel's text: legend, then the
// excluded items.
const panelX0 = pageWidth - pageMargin - panelWidth + 8

// exclusionGroup is the excluded items of one reason, in job order.
type exclusionGroup struct {
	reason connect.ExclusionReason
	items  []exclusionEntry
}

// exclusionEntry is one excluded item; key is the letter of its marker, ""
// when it has no coordinates.
type exclusionEntry struct {
	item connect.RouteExcludedItem
	key  string
}

// reasonNames name the reasons in the side list, in its order: first what
// the dispatcher may still fit in, last what never was a candidate.
var reasonNames = []struct {
	reason connect.ExclusionReason
	name   string
}{
	{connect.ExcludedDoesNotFit, "Day full (more valuable or higher priority)"},
	{connect.ExcludedMaxStopsReached, "Max. stops reached"},
	{connect.ExcludedWindowUnreachable, "Window cannot be reached in time"},
	{connect.ExcludedLongerThanShift, "Work longer than the day"},
	{connect.ExcludedOutsideShift, "Window outside working hours"},
	{connect.ExcludedNoRoadAccess, "No road access"},
	{connect.ExcludedOtherRouteDate, "Other route date"},
	{connect.ExcludedMissingCoordinates, "No coordinates"},
	{connect.ExcludedCancelled, "Cancelled"},
	{connect.ExcludedRejected, "Rejected at import"},
}

// reasonName is how the side list names a reason.
func reasonName(reason connect.ExclusionReason) string {
	for _, n := range reasonNames {
		if n.reason == reason {
			return n.name
		}
	}
	return string(reason)
}

// reasonRank orders the reasons; unknown ones go last, by name.
func reasonRank(reason connect.ExclusionReason) int {
	for i, n := range reasonNames {
		if n.reason == reason {
			return i
		}
	}
	return len(reasonNames)
}

// groupExcluded groups the excluded items by reason and gives those with
// coordinates their marker letters in list order.
func groupExcluded(items []connect.RouteExcludedItem) []exclusionGroup {
	var groups []exclusionGroup
	for _, it := range items {
		i := slices.IndexFunc(groups, func(g exclusionGroup) bool { return g.reason == it.Reason })
		if i < 0 {
			groups, i = append(groups, exclusionGroup{reason: it.Reason}), len(groups)
		}
		groups[i].items = append(groups[i].items, exclusionEntry{item: it})
	}
	slices.SortStableFunc(groups, func(a, b exclusionGroup) int {
		if ra, rb := reasonRank(a.reason), reasonRank(b.reason); ra != rb {
			return ra - rb
		}
		return strings.Compare(string(a.reason), string(b.reason))
	})
	n := 0
	for _, g := range groups {
		for j := range g.items {
			if it := g.items[j].item; it.Latitude != nil && it.Longitude != nil {
				g.items[j].key = letterKey(n)
				n++
			}
		}
	}
	return groups
}

// letterKey is the n-th key: A … Z, AA, AB, ….
func letterKey(n int) string {
	key := ""
	for n++; n > 0; n = (n - 1) / 26 {
		key = string(rune('A'+(n-1)%26)) + key
	}
	return key
}

// writePanel draws the legend and the list of excluded items.
func (d *drawing) writePanel(b *bytes.Buffer) {
	y := d.writeLegend(b, titleHeight+8)
	d.writeExcluded(b, y+22)
}

// legendRow is the height of a legend line.
const legendRow = 24.0

// writeLegend explains every symbol; it returns where it ends.
func (d *drawing) writeLegend(b *bytes.Buffer, top float64) float64 {
	x, sx := panelX0, panelX0+14
	b.WriteString(`<g class="legend">`)
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="14" font-weight="bold">Legend</text>`, x, top+14)
	y := top + 14 + legendRow
	entries := []struct {
		symbol func(y float64) string
		text   string
	}{
		{func(y float64) string {
			return fmt.Sprintf(`<circle cx="%g" cy="%g" r="9" fill="%s"/><text x="%g" y="%g" font-size="10" font-weight="bold" fill="#ffffff" text-anchor="middle">1</text>`, sx, y, colourStop, sx, y+3.6)
		}, "Stop, by visiting order"},
		{func(y float64) string {
			return fmt.Sprintf(`<rect x="%g" y="%g" width="22" height="13" rx="2" fill="#ffffff" stroke="#a0aec0"/>`, sx-11, y-6.5)
		}, "Label: stop, id or title, work from–to"},
		{func(y float64) string {
			return fmt.Sprintf(`<rect x="%g" y="%g" width="20" height="15" rx="3" fill="%s"/><text x="%g" y="%g" font-size="9" font-weight="bold" fill="#ffffff" text-anchor="middle">S</text>`, sx-10, y-7.5, colourDepot, sx, y+3.2)
		}, "Start (S) and end (E) of the day"},
		{func(y float64) string {
			return fmt.Sprintf(`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2.5"/><polygon points="%g,%g %g,%g %g,%g" fill="%s"/>`,
				sx-12, y, sx+12, y, colourRoute, sx+6, y, sx-4, y-5, sx-4, y+5, colourRoute)
		}, "Route, in the direction of travel"},
		{func(y float64) string {
			return fmt.Sprintf(`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2.5" stroke-dasharray="7 5"/>`, sx-12, y, sx+12, y, colourRoute)
		}, "From the start, to the end"},
		{func(y float64) string {
			return fmt.Sprintf(`<polygon points="%g,%g %g,%g %g,%g %g,%g" fill="#edf2f7" stroke="%s" stroke-width="1.5"/><text x="%g" y="%g" font-size="9" font-weight="bold" fill="%s" text-anchor="middle">A</text>`,
				sx, y-9, sx+9, y, sx, y+9, sx-9, y, colourExcluded, sx, y+3.2, colourMuted)
		}, "Not on the route (list below)"},
		{func(y float64) string {
			return fmt.Sprintf(`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s"/><circle cx="%g" cy="%g" r="2.5" fill="%s"/>`, sx-10, y+5, sx+8, y-5, colourLeader, sx-10, y+5, colourLeader)
		}, "True place of a moved marker"},
	}
	for _, e := range entries {
		fmt.Fprintf(b, `<g>%s<text x="%g" y="%g" font-size="12">%s</text></g>`, e.symbol(y), x+36, y+4, e.text)
		y += legendRow
	}
	b.WriteString("</g>\n")
	return y - legendRow/2
}

// Excluded list layout: two columns of keyed external ids under each reason.
const (
	listRow      = 15.0
	listColumns  = 2
	listColWidth = (panelWidth - 8) / listColumns
)

// writeExcluded lists every excluded item by reason, with its marker letter
// ("–" without coordinates), as far as the page allows.
func (d *drawing) writeExcluded(b *bytes.Buffer, top float64) {
	total, located := 0, 0
	for _, g := range d.groups {
		for _, e := range g.items {
			total++
			if e.key != "" {
				located++
			}
		}
	}
	b.WriteString(`<g class="excluded-list">`)
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="14" font-weight="bold">Not on the route: %d</text>`, panelX0, top, total)
	y := top + 18
	if total > 0 {
		fmt.Fprintf(b, `<text class="unlocated-count" x="%g" y="%g" font-size="12" fill="%s">%d on the map, %d without coordinates</text>`, panelX0, y, colourMuted, located, total-located)
		y += 8
	}
	bottom := pageHeight - pageMargin
	for gi, g := range d.groups {
		if y+listRow*2 > bottom {
			d.writeMore(b, y+listRow, gi, 0)
			break
		}
		y += listRow + 6
		fmt.Fprintf(b, `<text class="excluded-reason" data-reason="%s" x="%g" y="%g" font-size="12" font-weight="bold">%s · %d</text>`, esc(string(g.reason)), panelX0, y, esc(reasonName(g.reason)), len(g.items))
		var cut bool
		if y, cut = d.writeEntries(b, g, gi, y, bottom); cut {
			break
		}
	}
	b.WriteString("</g>\n")
}

// writeEntries writes the items of group gi below y; it reports where it
// ended and whether the page ran out.
func (d *drawing) writeEntries(b *bytes.Buffer, g exclusionGroup, gi int, y, bottom float64) (float64, bool) {
	for i := 0; i < len(g.items); i += listColumns {
		if y+2*listRow > bottom && i+listColumns < len(g.items) {
			d.writeMore(b, y+listRow, gi, i)
			return y, true
		}
		y += listRow
		for c := 0; c < listColumns && i+c < len(g.items); c++ {
			e := g.items[i+c]
			key, fill := e.key, colourText
			if key == "" {
				key, fill = "–", colourMuted
			}
			x := panelX0 + float64(c)*listColWidth
			fmt.Fprintf(b, `<text class="excluded-entry" x="%g" y="%g" font-size="11" fill="%s"><tspan font-weight="bold">%s</tspan> %s</text>`,
				x, y, fill, esc(key), esc(shorten(e.item.ExternalID, 18)))
		}
	}
	return y, false
}

// writeMore says how many items from item i of group gi on did not fit.
func (d *drawing) writeMore(b *bytes.Buffer, y float64, gi, i int) {
	n := len(d.groups[gi].items) - i
	for _, g := range d.groups[gi+1:] {
		n += len(g.items)
	}
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="11" fill="%s">… and %d more in the suggestion</text>`, panelX0, y, colourMuted, n)
}
