package solver

// The travel moves below work on a fixed set of stops. Each one prices the
// move in constant time from the route's arrays and checks time feasibility
// (linear in the changed stretch) only for moves that shorten the route.
// Moves are rooted at an active stop and must create an edge between it and
// one of its nearest neighbours (a granular neighbourhood). Stops become
// active when an edge next to them changes and inactive when no move rooted
// at them improves (don't-look bits), so a descent after a small ruin only
// looks at the region that changed. An improving move is applied at once.

// descend applies improving moves until none is left. Travel moves come
// first, because a shorter route may make room; then unvisited stops are
// inserted or swapped in, and if that changed the route the travel moves run
// again.
func (s *search) descend(r *route) {
	for {
		s.reduceTravel(r)
		changed := r.filled != r.gen && s.recreate(r, insertion{}) > 0
		changed = r.replaced != r.gen && s.replace(r) || changed
		if !changed {
			return
		}
	}
}

// touch marks ids active: an edge next to them changed.
func (s *search) touch(ids ...int) {
	for _, id := range ids {
		if !s.active[id] {
			s.active[id] = true
			s.queue = append(s.queue, id)
		}
	}
}

// reduceTravel runs the travel moves rooted at active stops until none is
// active.
func (s *search) reduceTravel(r *route) {
	for len(s.queue) > 0 {
		id := s.queue[0]
		s.queue = s.queue[1:]
		s.active[id] = false
		if id >= s.m.n || r.pos[id] != 0 {
			s.improveAt(r, id)
		}
	}
	s.queue = s.queue[:0]
}

// improveAt tries the moves rooted at id until one applies. Depots cannot
// move, so only 2-opt is rooted at them.
func (s *search) improveAt(r *route, id int) bool {
	if id >= s.m.n {
		return s.twoOpt(r, id)
	}
	return s.twoOpt(r, id) || s.orOpt(r, id) || s.exchange(r, id)
}

// position returns the position of id in r (depots included).
func (s *search) position(r *route, id int) int {
	switch id {
	case s.m.start:
		return 0
	case s.m.end:
		return len(r.seq) - 1
	}
	return r.pos[id]
}

// twoOpt reverses a segment so that id gets neighbour w as its successor or
// predecessor; each of the two can move.
func (s *search) twoOpt(r *route, id int) bool {
	for _, w := range s.m.nb[id] {
		x, y := s.position(r, id), r.pos[w]
		switch {
		case y == 0:
		case y > x+1:
			if s.tryReverse(r, x+1, y) || (x > 0 && s.tryReverse(r, x, y-1)) {
				return true
			}
		case y < x-1:
			if s.tryReverse(r, y, x-1) || (x <= r.stops() && s.tryReverse(r, y+1, x)) {
				return true
			}
		}
	}
	return false
}

// tryReverse reverses positions i..j if that shortens the route and keeps it
// feasible.
func (s *search) tryReverse(r *route, i, j int) bool {
	m := r.m
	a, u, v, b := r.seq[i-1], r.seq[i], r.seq[j], r.seq[j+1]
	delta := m.at(a, v) + m.at(u, b) + (r.bwd[j] - r.bwd[i]) -
		m.at(a, u) - m.at(v, b) - (r.fwd[j] - r.fwd[i])
	if delta >= 0 {
		return false
	}
	ids := s.scratch[:0]
	for p := j; p >= i; p-- {
		ids = append(ids, r.seq[p])
	}
	s.scratch = ids
	return s.applyIfFeasible(r, i-1, ids, j+1, a, u, v, b)
}

// applyIfFeasible replaces the positions strictly between p and q by ids if
// the route stays feasible, and activates the given stops.
func (s *search) applyIfFeasible(r *route, p int, ids []int, q int, touched ...int) bool {
	if !r.chain(p, ids, q) {
		return false
	}
	r.save()
	copy(r.seq[p+1:q], ids)
	if !r.settle() {
		return false
	}
	s.touch(touched...)
	return true
}

// orOpt moves a segment of one to three stops that starts or ends at id
// next to a neighbour of id, in the orientation that makes them adjacent.
// With one stop this is relocate.
func (s *search) orOpt(r *route, id int) bool {
	x := r.pos[id]
	if x == 0 {
		return false
	}
	k := r.stops()
	for l := 1; l <= 3; l++ {
		if x+l-1 <= k && s.moveSegmentTo(r, x, x+l-1, true) {
			return true
		}
		if l > 1 && x-l+1 >= 1 && s.moveSegmentTo(r, x-l+1, x, false) {
			return true
		}
	}
	return false
}

// moveSegmentTo tries to put segment i..j next to a neighbour w of its end
// (the first stop if atFirst, else the last): after w or before w, oriented
// so that the end touches w.
func (s *search) moveSegmentTo(r *route, i, j int, atFirst bool) bool {
	end := r.seq[j]
	if atFirst {
		end = r.seq[i]
	}
	for _, w := range s.m.nb[end] {
		y := r.pos[w]
		if y == 0 {
			continue
		}
		// After w the end leads the segment: forward if it is the first stop.
		// Before w the end closes the segment: forward if it is the last.
		if s.tryMove(r, i, j, y, !atFirst) || s.tryMove(r, i, j, y-1, atFirst) {
			return true
		}
	}
	return false
}

// tryMove moves segment i..j (reversed if rev) between positions x and x+1
// if that shortens the route and keeps it feasible.
func (s *search) tryMove(r *route, i, j, x int, rev bool) bool {
	if x >= i-1 && x <= j {
		return false
	}
	rev = rev && i < j
	if r.segmentMoveDelta(i, j, x, rev) >= 0 {
		return false
	}
	touched := [6]int{r.seq[i-1], r.seq[j+1], r.seq[x], r.seq[x+1], r.seq[i], r.seq[j]}
	ids := s.scratch[:0]
	if x < i {
		ids = appendSegment(ids, r.seq[i:j+1], rev)
		ids = append(ids, r.seq[x+1:i]...)
		s.scratch = ids
		return s.applyIfFeasible(r, x, ids, j+1, touched[:]...)
	}
	ids = append(ids, r.seq[j+1:x+1]...)
	ids = appendSegment(ids, r.seq[i:j+1], rev)
	s.scratch = ids
	return s.applyIfFeasible(r, i-1, ids, x+1, touched[:]...)
}

// segmentMoveDelta prices moving segment i..j between positions x and x+1.
func (r *route) segmentMoveDelta(i, j, x int, rev bool) int64 {
	m := r.m
	s1, sl := r.seq[i], r.seq[j]
	a, b := r.seq[i-1], r.seq[j+1]
	c, d := r.seq[x], r.seq[x+1]
	inner := r.fwd[j] - r.fwd[i]
	removal := m.at(a, s1) + inner + m.at(sl, b) - m.at(a, b)
	head, tail := s1, sl
	if rev {
		inner = r.bwd[j] - r.bwd[i]
		head, tail = sl, s1
	}
	return m.at(c, head) + inner + m.at(tail, d) - m.at(c, d) - removal
}

// appendSegment appends seg to ids, reversed if rev.
func appendSegment(ids, seg []int, rev bool) []int {
	if !rev {
		return append(ids, seg...)
	}
	for k := len(seg) - 1; k >= 0; k-- {
		ids = append(ids, seg[k])
	}
	return ids
}

// exchange swaps id with another stop so that id lands next to one of its
// neighbours, or a neighbour of id's current predecessor or successor lands
// in id's place.
func (s *search) exchange(r *route, id int) bool {
	x := r.pos[id]
	if x == 0 {
		return false
	}
	for _, w := range s.m.nb[id] {
		if y := r.pos[w]; y != 0 && (s.swapPositions(r, x, y-1) || s.swapPositions(r, x, y+1)) {
			return true
		}
	}
	for _, near := range [2]int{r.seq[x-1], r.seq[x+1]} {
		for _, w := range s.m.nb[near] {
			if y := r.pos[w]; y != 0 && s.swapPositions(r, x, y) {
				return true
			}
		}
	}
	return false
}

// swapPositions exchanges the stops at positions x and y if both are stops
// and that shortens the route and keeps it feasible.
func (s *search) swapPositions(r *route, x, y int) bool {
	i, j := min(x, y), max(x, y)
	if i == j || i < 1 || j > r.stops() {
		return false
	}
	return s.trySwap(r, i, j)
}

// trySwap exchanges positions i < j if that shortens the route and keeps it
// feasible.
func (s *search) trySwap(r *route, i, j int) bool {
	m := r.m
	u, v := r.seq[i], r.seq[j]
	a, b := r.seq[i-1], r.seq[j+1]
	u2, v1 := r.seq[i+1], r.seq[j-1]
	var delta int64
	if j == i+1 {
		delta = m.at(a, v) + m.at(v, u) + m.at(u, b) - m.at(a, u) - m.at(u, v) - m.at(v, b)
	} else {
		delta = m.at(a, v) + m.at(v, u2) + m.at(v1, u) + m.at(u, b) -
			m.at(a, u) - m.at(u, u2) - m.at(v1, v) - m.at(v, b)
	}
	if delta >= 0 {
		return false
	}
	ids := append(s.scratch[:0], v)
	ids = append(ids, r.seq[i+1:j]...)
	ids = append(ids, u)
	s.scratch = ids
	return s.applyIfFeasible(r, i-1, ids, j+1, a, u, v, b, u2, v1)
}

// replace swaps a visited stop for an unvisited one at the same position
// when that gains value (or, for equal value, travel). It is how the search
// trades a cheap stop for a valuable one that does not fit in addition.
func (s *search) replace(r *route) bool {
	changed := false
	for _, u := range s.servable {
		if s.unvisited(r, u) && s.tryReplace(r, u) {
			changed = true
		}
	}
	if !changed {
		r.replaced = r.gen
	}
	return changed
}

// tryReplace puts unvisited stop u in place of the visited stop whose
// replacement gains most, looking only where u's windows allow.
func (s *search) tryReplace(r *route, u int) bool {
	m := r.m
	bestP, bestGain, bestDelta := 0, int64(0), int64(0)
	one := []int{u}
	from, to := r.windowStretch(u, 1)
	for p := from + 1; p <= to+1; p++ {
		a, v, b := r.seq[p-1], r.seq[p], r.seq[p+1]
		gain := m.val[u] - m.val[v]
		delta := m.at(a, u) + m.at(u, b) - m.at(a, v) - m.at(v, b)
		if gain < bestGain || (gain == bestGain && delta >= bestDelta) {
			continue
		}
		if r.chain(p-1, one, p+1) {
			bestP, bestGain, bestDelta = p, gain, delta
		}
	}
	if bestP == 0 {
		return false
	}
	r.save()
	out := r.seq[bestP]
	r.pos[out] = 0
	r.seq[bestP] = u
	if !r.settle() {
		return false
	}
	s.released(out)
	if s.owner != nil {
		s.owner[u] = s.route
	}
	s.touch(r.seq[bestP-1], u, r.seq[bestP+1])
	return true
}
