package solver

import (
	"math"
	"slices"
)

// insertion says how recreate ranks the feasible insertions of unvisited
// stops. Varying it between iterations diversifies the search.
type insertion struct {
	// byShift prices an insertion by how much it delays the next stop
	// (travel, service and waiting) instead of by the added travel alone:
	// better when waiting for windows eats the shift.
	byShift bool
	// squared ranks stops by value² per cost instead of value per cost,
	// favouring valuable stops over cheap ones.
	squared bool
	// noise randomizes the ranking by up to this fraction.
	noise float64
}

// candidate is an unvisited stop with its cheapest known insertion.
type candidate struct {
	u, p int
	cost int64
}

// recreate inserts unvisited stops one at a time, each time the stop with the
// best value per cost at its cheapest position, until none fits or the route
// is full. It returns how many stops it inserted.
//
// Each candidate's cheapest position is cached. After an insertion only the
// two new edges can offer a cheaper position, so a candidate is rescanned in
// full only when its cached position was taken or became infeasible. With
// byShift the cached costs of other positions may be slightly stale; that
// affects only the ranking, never feasibility, which is checked at insertion.
func (s *search) recreate(r *route, how insertion) int {
	return s.recreateFrom(r, s.servable, how, true)
}

// recreateFrom is recreate with the unvisited stops among stops as the
// candidates. whole says stops are every stop the route could serve, so that
// a complete run marks the route filled.
func (s *search) recreateFrom(r *route, stops []int, how insertion, whole bool) int {
	cands, skipped := s.initialCandidates(r, stops, how)
	inserted, dropped, complete := 0, skipped > 0, whole
	for len(cands) > 0 && r.stops() < s.m.maxStops {
		best := s.pick(cands, how)
		c := cands[best]
		cands = append(cands[:best], cands[best+1:]...)
		a, b := r.seq[c.p], r.seq[c.p+1]
		if !s.insert(r, c.u, c.p) {
			dropped = true // it moved the break where it does not fit
			continue
		}
		s.touch(a, c.u, b)
		inserted++
		complete = complete && !dropped
		var n int
		cands, n = s.updateCandidates(r, cands, c.p, how)
		dropped = dropped || n > 0
	}
	if complete {
		r.filled = r.gen // every unvisited stop was tried on the final route
	}
	s.cands = cands
	return inserted
}

// initialCandidates returns the unvisited stops among stops that fit
// somewhere, with their cheapest positions, and how many did not fit.
func (s *search) initialCandidates(r *route, stops []int, how insertion) ([]candidate, int) {
	cands, skipped := s.cands[:0], 0
	for _, u := range stops {
		if !s.unvisited(r, u) {
			continue
		}
		if p, cost, ok := s.cheapestPosition(r, u, how); ok {
			cands = append(cands, candidate{u, p, cost})
		} else {
			skipped++
		}
	}
	return cands, skipped
}

// pick returns the index of the best-ranked candidate.
func (s *search) pick(cands []candidate, how insertion) int {
	best, bestScore := 0, math.Inf(-1)
	for i, c := range cands {
		if score := s.score(c.u, c.cost, how); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// updateCandidates refreshes the cached insertions after a stop was inserted
// between positions p and p+1, dropping candidates that no longer fit. It
// returns the kept candidates and how many were dropped.
func (s *search) updateCandidates(r *route, cands []candidate, p int, how insertion) ([]candidate, int) {
	keep := cands[:0]
	for _, c := range cands {
		if c.p > p {
			c.p++
		}
		ok, delta, shift := false, int64(0), int64(0)
		if c.p != p {
			ok, delta, shift = r.canInsert(c.u, c.p)
		}
		if ok {
			c.cost = pick(how, delta, shift)
			c = s.cheaperAt(r, c, p, how)
			c = s.cheaperAt(r, c, p+1, how)
		} else if c.p, c.cost, ok = s.cheapestPosition(r, c.u, how); !ok {
			continue
		}
		keep = append(keep, c)
	}
	return keep, len(cands) - len(keep)
}

// cheaperAt returns c moved to position p if that is feasible and cheaper.
func (s *search) cheaperAt(r *route, c candidate, p int, how insertion) candidate {
	if ok, delta, shift := r.canInsert(c.u, p); ok {
		if cost := pick(how, delta, shift); cost < c.cost {
			c.p, c.cost = p, cost
		}
	}
	return c
}

// pick returns the cost of an insertion as ranked by how.
func pick(how insertion, delta, shift int64) int64 {
	if how.byShift {
		return shift
	}
	return delta
}

// cheapestPosition returns the feasible position with the lowest cost for
// stop u.
func (s *search) cheapestPosition(r *route, u int, how insertion) (int, int64, bool) {
	bestP, bestCost, found := 0, int64(0), false
	from, to := r.windowStretch(u, 0)
	for p := from; p <= to; p++ {
		ok, delta, shift := r.canInsert(u, p)
		if !ok {
			continue
		}
		if cost := pick(how, delta, shift); !found || cost < bestCost {
			bestP, bestCost, found = p, cost, true
		}
	}
	return bestP, bestCost, found
}

// windowStretch returns the positions p from..to after which stop u may be
// placed, with skip stops left out after p, as far as u's windows allow.
// Along a feasible route both the departure times and the latest arrivals
// never decrease, so the stretch is contiguous: it starts where u's service
// could end before the latest arrival at the position following the gap,
// and ends before the route departs after u's last window has closed.
func (r *route) windowStretch(u, skip int) (from, to int) {
	m := r.m
	ws := m.win[u]
	if len(ws) == 0 {
		return 0, -1 // the vehicle can never serve u
	}
	earliestEnd := ws[0].Open + m.svc[u]
	lastClose := ws[len(ws)-1].Close
	last := r.stops() - skip // the last position p with p+skip+1 on the route
	from, _ = slices.BinarySearch(r.la[skip+1:last+skip+2], earliestEnd)
	to, _ = slices.BinarySearch(r.dep[:last+1], lastClose+1)
	return from, to - 1
}

// score ranks the insertion of u at the given cost; higher is better.
// Explicit float64 conversions round every product, so that no platform
// fuses a multiply-add and the ranking (hence the route) is the same on
// every architecture.
func (s *search) score(u int, cost int64, how insertion) float64 {
	v := float64(s.m.val[u])
	if how.squared {
		v = float64(v * v)
	}
	score := v / (float64(max(cost, 0)) + 1)
	if how.noise > 0 {
		score *= 1 + float64(how.noise*(2*s.rng.Float64()-1))
	}
	return score
}
