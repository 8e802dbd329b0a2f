package solver

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
		if r.canRemove(p) {
			s.removeAt(r, p)
		} else {
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
	if !r.canRemove(p) {
		return false
	}
	s.removeAt(r, p)
	return true
}

// removeAt removes the stop at position p and activates its neighbours.
func (s *search) removeAt(r *route, p int) {
	s.touch(r.seq[p-1], r.seq[p+1])
	r.remove(p)
}
