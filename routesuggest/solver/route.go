package solver

// route is a sequence of ids from the start depot to the end depot with the
// arrays that make move evaluation cheap. Positions 1..k hold the k visited
// stops; position 0 is the start and k+1 the end. refresh recomputes every
// derived array; it must run after each change of seq.
type route struct {
	m   *model
	seq []int
	// es[p] is the earliest service start at position p (the arrival time
	// for the end depot), never when p cannot be reached in time; dep[p] is
	// the earliest departure, es[p] plus the service.
	es, dep []int64
	// la[p] is the latest arrival at position p from which the rest of the
	// route is still feasible, -never when there is none.
	la []int64
	// fwd[p] is the travel time along seq[0..p]; bwd[p] is the travel time
	// of the same stretch driven backwards (seq[p] to seq[0]), so reversing a
	// segment is priced in constant time on asymmetric matrices.
	fwd, bwd []int64
	// pos[id] is the position of stop id, 0 when it is not visited.
	pos   []int
	value int64
	// brkAfter is the position after which the vehicle takes its break (its
	// departure dep[brkAfter] is the end of the break), -1 when it takes
	// none; brkStart is when the break starts. See Break for the rule.
	brkAfter int
	brkStart int64
	// saved is the sequence before the last change of a route with a break,
	// restored by settle when the change broke the route.
	saved []int
	// gen counts the changes of seq. filled and replaced hold the gen at
	// which a complete insertion scan or replacement scan found nothing to
	// do, so an unchanged route is not scanned again.
	gen, filled, replaced uint64
}

// newRoute returns the empty route of m.
func newRoute(m *model) *route {
	r := &route{m: m, pos: make([]int, m.n), filled: ^uint64(0), replaced: ^uint64(0)}
	r.seq = append(r.seq, m.start, m.end)
	r.refresh()
	return r
}

// stops returns the number of visited stops.
func (r *route) stops() int { return len(r.seq) - 2 }

// cost returns the travel time of the route, Buffer included.
func (r *route) cost() int64 { return r.fwd[len(r.seq)-1] }

// travel returns the travel time without Buffer, the second objective.
func (r *route) travel() int64 {
	return r.cost() - r.m.buffer*int64(max(r.stops()-1, 0))
}

// feasible reports whether the route meets every time constraint.
func (r *route) feasible() bool { return r.es[len(r.seq)-1] <= r.m.shiftEnd }

// better reports whether r is better than o: more value, or the same value
// with less travel.
func (r *route) better(o *route) bool {
	if r.value != o.value {
		return r.value > o.value
	}
	return r.travel() < o.travel()
}

// refresh recomputes the derived arrays from seq.
func (r *route) refresh() {
	n := len(r.seq)
	r.es, r.dep, r.la = resize(r.es, n), resize(r.dep, n), resize(r.la, n)
	r.fwd, r.bwd = resize(r.fwd, n), resize(r.bwd, n)
	r.gen++
	r.forward()
	r.backward()
	r.value = 0
	for p, id := range r.seq[1 : n-1] {
		r.pos[id] = p + 1
		r.value += r.m.val[id]
	}
}

// forward fills es, fwd and bwd, and places the break.
func (r *route) forward() {
	m := r.m
	r.es[0], r.dep[0], r.fwd[0], r.bwd[0] = m.shiftStart, m.shiftStart, 0, 0
	r.brkAfter = -1
	for p := 1; p < len(r.seq); p++ {
		a, b := r.seq[p-1], r.seq[p]
		if m.brk != nil && r.brkAfter < 0 && r.breaksBefore(p-1, b) {
			r.brkAfter, r.brkStart = p-1, max(r.dep[p-1], m.brk.Open)
			r.dep[p-1] = r.brkStart + m.brk.Duration
			if r.brkStart > m.brk.Close {
				r.dep[p-1] = never // the break cannot start in time
			}
		}
		r.fwd[p] = r.fwd[p-1] + m.at(a, b)
		r.bwd[p] = r.bwd[p-1] + m.at(b, a)
		r.es[p] = m.earliest(b, r.dep[p-1]+m.at(a, b))
		r.dep[p] = r.es[p] + m.svc[b]
	}
}

// breaksBefore reports whether the vehicle takes its break on leaving
// position p for stop b (see Break): on a route with stops, when the break's
// window is open, or the break fits in the wait before b, or it could not
// start in time after b; before the end, when the day runs into the window.
func (r *route) breaksBefore(p, b int) bool {
	m, brk := r.m, r.m.brk
	if r.stops() == 0 {
		return false
	}
	t := r.dep[p]
	arrival := t + m.at(r.seq[p], b)
	if b == m.end {
		return arrival > brk.Open
	}
	service := m.earliest(b, arrival)
	return t >= brk.Open || max(t, brk.Open)+brk.Duration+m.at(r.seq[p], b) <= service ||
		service+m.svc[b] > brk.Close
}

// backward fills la, with the break where forward placed it.
func (r *route) backward() {
	m := r.m
	last := len(r.seq) - 1
	r.la[last] = m.shiftEnd
	for p := last - 1; p >= 0; p-- {
		a, b := r.seq[p], r.seq[p+1]
		r.la[p] = m.latest(a, r.latestDeparture(p, r.la[p+1]-m.at(a, b))-m.svc[a])
	}
}

// latestDeparture is the latest end of service at position p that still
// leaves p by bound: bound itself, or, when the break follows p, the latest
// break start that ends the break by bound (-never when none does).
func (r *route) latestDeparture(p int, bound int64) int64 {
	if p != r.brkAfter {
		return bound
	}
	brk := r.m.brk
	start := min(brk.Close, bound-brk.Duration)
	if start < brk.Open {
		return -never
	}
	return start
}

// departure returns the earliest departure from position p.
func (r *route) departure(p int) int64 { return r.dep[p] }

// chain reports whether the route stays feasible when the positions strictly
// between p and q are replaced by ids: it schedules ids from the earliest
// departure at p and compares the arrival at q with la[q]. With a break the
// answer assumes the break stays where it is; settle checks the route the
// change makes.
func (r *route) chain(p int, ids []int, q int) bool {
	m := r.m
	prev, t := r.seq[p], r.departure(p)
	for _, id := range ids {
		s := m.earliest(id, t+m.at(prev, id))
		if s >= never {
			return false
		}
		prev, t = id, s+m.svc[id]
	}
	return t+m.at(prev, r.seq[q]) <= r.la[q]
}

// canInsert reports whether stop u fits between positions p and p+1, with
// the added travel and the shift of the arrival at p+1 (added travel plus
// service plus waiting), in constant time.
func (r *route) canInsert(u, p int) (ok bool, delta, shift int64) {
	m := r.m
	a, b := r.seq[p], r.seq[p+1]
	toU, fromU := m.at(a, u), m.at(u, b)
	detour := toU + m.svc[u] + fromU
	if r.dep[p]+detour > r.la[p+1] {
		return false, 0, 0 // too late even without waiting
	}
	s := m.earliest(u, r.dep[p]+toU)
	if s >= never {
		return false, 0, 0
	}
	arrB := s + m.svc[u] + fromU
	if arrB > r.la[p+1] {
		return false, 0, 0
	}
	direct := m.at(a, b)
	return true, toU + fromU - direct, arrB - (r.dep[p] + direct)
}

// canRemove reports whether the stop at position p can be left out without
// breaking the route (it can fail only without the triangle inequality).
func (r *route) canRemove(p int) bool {
	return r.chain(p-1, nil, p+1)
}

// insert puts stop u between positions p and p+1, and reports whether the
// route stays feasible (else it is left as it was).
func (r *route) insert(u, p int) bool {
	r.save()
	r.seq = append(r.seq, 0)
	copy(r.seq[p+2:], r.seq[p+1:])
	r.seq[p+1] = u
	return r.settle()
}

// remove leaves out the stop at position p, and reports whether the route
// stays feasible (else it is left as it was).
func (r *route) remove(p int) bool {
	r.save()
	id := r.seq[p]
	r.seq = append(r.seq[:p], r.seq[p+1:]...)
	r.pos[id] = 0
	return r.settle()
}

// save keeps the sequence of a route with a break before a change, for settle.
func (r *route) save() {
	if r.m.brk != nil {
		r.saved = append(r.saved[:0], r.seq...)
	}
}

// settle refreshes the route after a change of seq. The constant-time checks
// that allowed the change are exact without a break; with one, the change may
// move the break, so settle checks the new route and, when it broke a time
// constraint, restores the saved one and reports false.
func (r *route) settle() bool {
	r.refresh()
	if r.m.brk == nil || r.feasible() {
		return true
	}
	for _, id := range r.seq[1 : len(r.seq)-1] {
		r.pos[id] = 0
	}
	r.seq = append(r.seq[:0], r.saved...)
	r.refresh()
	return false
}

// copyFrom makes r an independent copy of o.
func (r *route) copyFrom(o *route) {
	r.m = o.m
	r.seq = append(r.seq[:0], o.seq...)
	r.es = append(r.es[:0], o.es...)
	r.dep = append(r.dep[:0], o.dep...)
	r.la = append(r.la[:0], o.la...)
	r.fwd = append(r.fwd[:0], o.fwd...)
	r.bwd = append(r.bwd[:0], o.bwd...)
	r.pos = append(r.pos[:0], o.pos...)
	r.value = o.value
	r.brkAfter, r.brkStart = o.brkAfter, o.brkStart
	r.gen, r.filled, r.replaced = o.gen, o.filled, o.replaced
}

// resize returns s with length n, reusing its storage.
func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}
