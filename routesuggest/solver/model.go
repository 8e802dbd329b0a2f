package solver

import (
	"cmp"
	"fmt"
	"slices"
)

// never is the earliest start of a stop that cannot be served, and minus the
// latest arrival at a stop whose successors cannot be served. It is far above
// any real time but small enough that adding a few MaxTime values to it does
// not overflow.
const never int64 = 1 << 62

// neighbourCount is how many nearest stops each node keeps for the granular
// neighbourhoods of the local search and for related removal. Moves that
// create an edge to a farther stop are rarely improving; restricting to near
// stops makes each descent linear in the route length.
const neighbourCount = 16

// model is the compiled problem of one vehicle, the one its route and search
// work on. Ids 0..n-1 are the stops; every vehicle driving the same travel
// times has two ids of its own after them, start and end, for its start and
// end depots (virtual, with zero travel, when it has none). Those vehicles
// share one dense matrix of travel times between all these ids, so that many
// vehicles cost little more memory than one and looking a time up stays one
// index; only their shifts and windows (clipped to the shift) are their own.
type model struct {
	n, dim     int
	start, end int
	t          []int64 // dim*dim travel times, Buffer included between two stops
	svc        []int64
	val        []int64
	win        [][]Window // sorted, clipped to the shift; empty = never servable
	shiftStart int64
	shiftEnd   int64
	buffer     int64
	maxStops   int
	hasStart   bool
	hasEnd     bool
	brk        *Break    // the vehicle's break, nil without one
	nb         [][]int32 // nearest stops of every id, nearest first
}

// compile validates a single-vehicle problem and builds its model.
func compile(p Problem) (*model, error) {
	models, err := compileTeam(p.team())
	if err != nil {
		return nil, err
	}
	return models[0], nil
}

// compileTeam validates p and builds one model per vehicle.
func compileTeam(p TeamProblem) ([]*model, error) {
	if err := validateTeam(p); err != nil {
		return nil, err
	}
	n := len(p.Stops)
	groups := make([][]int, len(p.Travels)) // the vehicles driving each travel
	for k, v := range p.Vehicles {
		groups[v.Travel] = append(groups[v.Travel], k)
	}
	dim := n + 2*len(p.Vehicles) // at least every group's ids
	svc, val := make([]int64, dim), make([]int64, dim)
	for i, s := range p.Stops {
		svc[i], val[i] = s.Service, s.Value
	}
	models := make([]*model, len(p.Vehicles))
	for t, vehicles := range groups {
		if len(vehicles) == 0 {
			continue
		}
		tt, err := readTravel(p, t, vehicles)
		if err != nil {
			return nil, err
		}
		for j, k := range vehicles {
			v := p.Vehicles[k]
			m := &model{
				n: n, dim: n + 2*len(vehicles), start: n + 2*j, end: n + 2*j + 1, t: tt, svc: svc, val: val,
				shiftStart: v.ShiftStart, shiftEnd: v.ShiftEnd, buffer: p.Buffer, maxStops: v.MaxStops,
				hasStart: v.Start >= 0, hasEnd: v.End >= 0, brk: v.Break,
			}
			if m.maxStops == 0 || m.maxStops > n {
				m.maxStops = n
			}
			m.readWindows(p)
			if m.at(m.start, m.end)+m.shiftStart > m.shiftEnd {
				return nil, invalid(vehicleField(p, k)+"ShiftEnd", "%d is too early to travel from Start to End (%d + %d)",
					v.ShiftEnd, v.ShiftStart, m.at(m.start, m.end))
			}
			m.buildNeighbours()
			models[k] = m
		}
	}
	return models, nil
}

// vehicleField is the prefix naming vehicle k's fields in errors: none for
// the one vehicle of a Problem.
func vehicleField(p TeamProblem, k int) string {
	if p.single {
		return ""
	}
	return fmt.Sprintf("Vehicles[%d].", k)
}

// at returns the travel time between two ids.
func (m *model) at(a, b int) int64 { return m.t[a*m.dim+b] }

// readTravel reads the matrix of p.Travels[t] for its vehicles: between
// stops, Buffer included, and between each vehicle's depots and the stops,
// checking every time's range. Edges into a start depot, out of an end depot,
// between two vehicles' depots and to or from a missing depot stay zero.
func readTravel(p TeamProblem, t int, vehicles []int) ([]int64, error) {
	n := len(p.Stops)
	dim := n + 2*len(vehicles)
	tt := make([]int64, dim*dim)
	set := func(a, b, from, to int, extra int64) error {
		d := p.Travels[t].Travel(from, to)
		if d < 0 || d > MaxTime {
			return invalid(travelField(p, t), "Travel(%d, %d) = %d is outside [0, MaxTime]", from, to, d)
		}
		tt[a*dim+b] = d + extra
		return nil
	}
	for a, sa := range p.Stops {
		for b, sb := range p.Stops {
			if a != b {
				if err := set(a, b, sa.Node, sb.Node, p.Buffer); err != nil {
					return nil, err
				}
			}
		}
	}
	for j, k := range vehicles {
		v, start, end := p.Vehicles[k], n+2*j, n+2*j+1
		for i, s := range p.Stops {
			if v.Start >= 0 {
				if err := set(start, i, v.Start, s.Node, 0); err != nil {
					return nil, err
				}
			}
			if v.End >= 0 {
				if err := set(i, end, s.Node, v.End, 0); err != nil {
					return nil, err
				}
			}
		}
		if v.Start >= 0 && v.End >= 0 {
			if err := set(start, end, v.Start, v.End, 0); err != nil {
				return nil, err
			}
		}
	}
	return tt, nil
}

// readWindows clips the stops' windows to the shift: windows are sorted and
// clipped, fixed stops get one-point windows, and empty windows become the
// whole shift.
func (m *model) readWindows(p TeamProblem) {
	m.win = make([][]Window, m.dim)
	shift := Window{m.shiftStart, m.shiftEnd}
	for i, s := range p.Stops {
		m.win[i] = clipWindows(s, shift)
	}
	m.win[m.start] = []Window{{m.shiftStart, m.shiftStart}}
	m.win[m.end] = []Window{shift}
}

// clipWindows returns the stop's sorted windows intersected with the shift.
func clipWindows(s Stop, shift Window) []Window {
	if len(s.Windows) == 0 {
		return []Window{shift}
	}
	var out []Window
	for _, w := range s.Windows {
		if s.Fixed {
			w.Close = w.Open
		}
		w.Open, w.Close = max(w.Open, shift.Open), min(w.Close, shift.Close)
		if w.Open <= w.Close {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b Window) int { return cmp.Compare(a.Open, b.Open) })
	return out
}

// earliest returns the earliest service start of id when arriving at arr, or
// never.
func (m *model) earliest(id int, arr int64) int64 {
	for _, w := range m.win[id] {
		if arr <= w.Close {
			return max(arr, w.Open)
		}
	}
	return never
}

// latest returns the latest service start of id not after bound, or -never.
func (m *model) latest(id int, bound int64) int64 {
	ws := m.win[id]
	for i := len(ws) - 1; i >= 0; i-- {
		if bound >= ws[i].Open {
			return min(bound, ws[i].Close)
		}
	}
	return -never
}

// buildNeighbours keeps, for every id, the nearest stops. Two stops whose
// windows make a visit in either order impossible are never neighbours, so
// the lists of time-window problems hold useful stops only.
func (m *model) buildNeighbours() {
	m.nb = make([][]int32, m.dim)
	type cand struct {
		id int32
		d  int64
	}
	cands := make([]cand, 0, m.n)
	for a := 0; a < m.dim; a++ {
		cands = cands[:0]
		for b := 0; b < m.n; b++ {
			if d, ok := m.closeness(a, b); ok {
				cands = append(cands, cand{int32(b), d})
			}
		}
		slices.SortFunc(cands, func(x, y cand) int {
			return cmp.Or(cmp.Compare(x.d, y.d), cmp.Compare(x.id, y.id))
		})
		for _, c := range cands[:min(neighbourCount, len(cands))] {
			m.nb[a] = append(m.nb[a], c.id)
		}
	}
}

// closeness is the shorter travel time between a and stop b over the
// directions in which b can follow a or a can follow b in time.
func (m *model) closeness(a, b int) (int64, bool) {
	if a == b {
		return 0, false
	}
	best, ok := int64(0), false
	try := func(x, y int) {
		if len(m.win[x]) == 0 || len(m.win[y]) == 0 {
			return
		}
		arr := m.win[x][0].Open + m.svc[x] + m.at(x, y)
		if arr <= m.win[y][len(m.win[y])-1].Close && (!ok || m.at(x, y) < best) {
			best, ok = m.at(x, y), true
		}
	}
	if a != m.end {
		try(a, b)
	}
	if a != m.start {
		try(b, a)
	}
	return best, ok
}
