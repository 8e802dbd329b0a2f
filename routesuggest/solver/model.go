package solver

import (
	"cmp"
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

// model is the compiled problem the search works on. Ids 0..n-1 are the
// stops, n is the start depot and n+1 the end depot (virtual, with zero
// travel, when the Problem has none).
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
	nb         [][]int32 // nearest stops of every id, nearest first
}

// compile validates p and builds the model.
func compile(p Problem) (*model, error) {
	if err := validate(p); err != nil {
		return nil, err
	}
	n := len(p.Stops)
	m := &model{
		n: n, dim: n + 2, start: n, end: n + 1,
		shiftStart: p.ShiftStart, shiftEnd: p.ShiftEnd,
		buffer: p.Buffer, maxStops: p.MaxStops,
		hasStart: p.Start >= 0, hasEnd: p.End >= 0,
	}
	if m.maxStops == 0 || m.maxStops > n {
		m.maxStops = n
	}
	if err := m.readTravel(p); err != nil {
		return nil, err
	}
	m.readStops(p)
	if m.at(m.start, m.end)+m.shiftStart > m.shiftEnd {
		return nil, invalid("ShiftEnd", "%d is too early to travel from Start to End (%d + %d)",
			p.ShiftEnd, p.ShiftStart, m.at(m.start, m.end))
	}
	m.buildNeighbours()
	return m, nil
}

// at returns the travel time between two ids.
func (m *model) at(a, b int) int64 { return m.t[a*m.dim+b] }

// nodeOf maps an id to its matrix node, -1 for a missing depot.
func nodeOf(p Problem, id int) int {
	switch n := len(p.Stops); {
	case id < n:
		return p.Stops[id].Node
	case id == n:
		return p.Start
	}
	return p.End
}

// readTravel copies the travel times the route can use into m.t, checking
// their range. Edges into the start depot and out of the end depot are never
// used and stay zero.
func (m *model) readTravel(p Problem) error {
	m.t = make([]int64, m.dim*m.dim)
	for a := 0; a <= m.start; a++ {
		for b := 0; b < m.dim; b++ {
			if a == b || b == m.start {
				continue
			}
			from, to := nodeOf(p, a), nodeOf(p, b)
			if from < 0 || to < 0 {
				continue // a missing depot: zero travel
			}
			d := p.Travel.Travel(from, to)
			if d < 0 || d > MaxTime {
				return invalid("Travel", "Travel(%d, %d) = %d is outside [0, MaxTime]", from, to, d)
			}
			if a < m.n && b < m.n {
				d += m.buffer
			}
			m.t[a*m.dim+b] = d
		}
	}
	return nil
}

// readStops copies service, value and windows. Windows are sorted and clipped
// to the shift, fixed stops get one-point windows, and empty windows become
// the whole shift.
func (m *model) readStops(p Problem) {
	m.svc = make([]int64, m.dim)
	m.val = make([]int64, m.dim)
	m.win = make([][]Window, m.dim)
	shift := Window{m.shiftStart, m.shiftEnd}
	for i, s := range p.Stops {
		m.svc[i], m.val[i] = s.Service, s.Value
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
