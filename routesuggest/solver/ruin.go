package solver

import "slices"

// ruin removes a few visited stops so that recreate and descend can rebuild
// that part of the route differently. Three shapes complement each other: a
// string of consecutive stops frees a stretch of the schedule, a cluster of
// nearby stops lets a region be re-sequenced, random stops break up
// structure anywhere.
func (s *search) ruin(r *route) {
	k := r.stops()
	if k == 0 {
		return
	}
	c := 1 + s.rng.IntN(min(k, ruinLimit(k)))
	switch s.rng.IntN(3) {
	case 0:
		s.ruinString(r, c)
	case 1:
		s.ruinCluster(r, c)
	default:
		s.ruinRandom(r, c)
	}
}

// ruinLimit is the largest number of stops one ruin removes from a route of
// k stops: enough to escape a local optimum (a short route may be rebuilt
// from scratch), small enough that recreate mostly rebuilds a long route
// rather than restarts it.
func ruinLimit(k int) int { return max(10, min(k/5, 30)) }

// ruinString removes up to c consecutive stops starting at a random position.
func (s *search) ruinString(r *route, c int) {
	p := 1 + s.rng.IntN(r.stops()-c+1)
	for range c {
		if p > r.stops() {
			return
		}
		if !r.canRemove(p) || !s.removeAt(r, p) {
			p++
		}
	}
}

// ruinCluster removes a random stop and up to c-1 of its nearest visited
// neighbours.
func (s *search) ruinCluster(r *route, c int) {
	seed := r.seq[1+s.rng.IntN(r.stops())]
	s.tryRemove(r, seed)
	removed := 1
	for _, w := range s.m.nb[seed] {
		if removed == c {
			return
		}
		if r.pos[w] != 0 && s.tryRemove(r, int(w)) {
			removed++
		}
	}
}

// ruinRandom removes up to c random stops.
func (s *search) ruinRandom(r *route, c int) {
	for range c {
		if r.stops() == 0 {
			return
		}
		s.tryRemove(r, r.seq[1+s.rng.IntN(r.stops())])
	}
}

// tryRemove removes visited stop id if the route stays feasible without it.
func (s *search) tryRemove(r *route, id int) bool {
	p := r.pos[id]
	return r.canRemove(p) && s.removeAt(r, p)
}

// removeAt removes the stop at position p and activates its neighbours, and
// reports whether it did (with a break, leaving a stop out may move the break
// where it no longer fits).
func (s *search) removeAt(r *route, p int) bool {
	a, id, b := r.seq[p-1], r.seq[p], r.seq[p+1]
	if !r.remove(p) {
		return false
	}
	s.released(id)
	s.touch(a, b)
	return true
}

// doubleBridge cuts the route into A B C D at three random positions and
// reconnects it as A C B D, a change that 2-opt and or-opt cannot undo in
// one move. It keeps the route unchanged and returns false when the result
// would break a time constraint.
func (s *search) doubleBridge(r *route) bool {
	k := r.stops()
	if k < 8 {
		return false
	}
	var cut [3]int
	for i := range cut {
		cut[i] = 2 + s.rng.IntN(k-1) // positions 2..k
	}
	slices.Sort(cut[:])
	p1, p2, p3 := cut[0], cut[1], cut[2]
	if p1 == p2 || p2 == p3 {
		return false
	}
	ids := append(s.scratch[:0], r.seq[p2:p3]...)
	ids = append(ids, r.seq[p1:p2]...)
	s.scratch = ids
	if !r.chain(p1-1, ids, p3) {
		return false
	}
	touched := [6]int{r.seq[p1-1], r.seq[p1], r.seq[p2-1], r.seq[p2], r.seq[p3-1], r.seq[p3]}
	r.save()
	copy(r.seq[p1:p3], ids)
	if !r.settle() {
		return false
	}
	s.touch(touched[:]...)
	return true
}
