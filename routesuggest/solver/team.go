package solver

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
)

// The team search plans several routes at once. It works like the search of
// one route (see doc.go), on a plan of routes in which every stop has at most
// one owner: every iteration ruins part of the plan, either a stretch of one
// route or a cluster of nearby stops whatever routes they are on, recreates
// it by inserting unvisited stops into the routes in turn, and descends with
// the moves of each route, then with moves between routes: relocating a stop
// to the route where it costs least, and making room for an unvisited stop by
// moving a stop of its best route to another. The acceptance is the same
// threshold acceptance on the plan's value and travel.

// teamPlan is one plan of a team search.
type teamPlan struct {
	routes []*route
	owner  []int32 // per stop: the index of its route, -1 for none
}

// teamSearch holds the state of one SolveTeam run.
type teamSearch struct {
	subs []*search // one per vehicle, on its model
	rng  *rand.Rand
	n    int
	// servable are the stops some vehicle can serve alone, by decreasing
	// value.
	servable []int
	// freed are the stops the current perturbation took off a route; gens
	// the routes' generations before it; first is true while the first plan
	// is built, when every route and stop counts as changed.
	freed []int
	gens  []uint64
	first bool
	// priority is every stop's Priority; prioritized is true when they
	// differ, and enforcePriority has work to do.
	priority    []int
	prioritized bool
}

// teamRuinShare is the share of iterations that ruin a cluster of nearby
// stops across routes rather than a stretch of one route.
const teamRuinShare = 0.5

// teamIterations is the default budget of a team: the budget of one route of
// that many stops, for each vehicle up to three, so that the search time
// grows slower than the team.
func teamIterations(p TeamProblem) int {
	if p.Iterations > 0 {
		return p.Iterations
	}
	return defaultIterations(len(p.Stops)) * min(len(p.Vehicles)+1, 4)
}

func newTeamSearch(models []*model, seed uint64, stops []Stop) *teamSearch {
	ts := &teamSearch{rng: rand.New(rand.NewPCG(seed, 0x7ea3)), n: models[0].n, priority: make([]int, len(stops))}
	for i, st := range stops {
		ts.priority[i] = st.Priority
		ts.prioritized = ts.prioritized || st.Priority != stops[0].Priority
	}
	alone := make([]bool, ts.n)
	for k, m := range models {
		s := newSearch(m, seed+uint64(k))
		if len(models) > 1 {
			s.rng, s.route, s.team = ts.rng, int32(k), ts
		}
		ts.subs = append(ts.subs, s)
		for _, u := range s.servable {
			alone[u] = true
		}
	}
	for _, u := range ts.subs[0].byValue {
		if alone[u] {
			ts.servable = append(ts.servable, u)
		}
	}
	return ts
}

// newPlan returns a plan of empty routes.
func (ts *teamSearch) newPlan() *teamPlan {
	pl := &teamPlan{owner: make([]int32, ts.n)}
	for _, s := range ts.subs {
		pl.routes = append(pl.routes, newRoute(s.m))
	}
	for i := range pl.owner {
		pl.owner[i] = -1
	}
	return pl
}

func (pl *teamPlan) copyFrom(o *teamPlan) {
	for k, r := range pl.routes {
		r.copyFrom(o.routes[k])
	}
	copy(pl.owner, o.owner)
}

func (pl *teamPlan) value() (v int64) {
	for _, r := range pl.routes {
		v += r.value
	}
	return v
}

func (pl *teamPlan) travel() (t int64) {
	for _, r := range pl.routes {
		t += r.travel()
	}
	return t
}

// lastEnd is when the last route ends, the balance of the day.
func (pl *teamPlan) lastEnd() (end int64) {
	for _, r := range pl.routes {
		if r.stops() > 0 {
			end = max(end, r.es[len(r.seq)-1])
		}
	}
	return end
}

// better reports whether pl beats o: more value, else less travel, else an
// earlier end of the last route.
func (pl *teamPlan) better(o *teamPlan) bool {
	if v, w := pl.value(), o.value(); v != w {
		return v > w
	}
	if t, u := pl.travel(), o.travel(); t != u {
		return t < u
	}
	return pl.lastEnd() < o.lastEnd()
}

// bind makes the searches work on pl.
func (ts *teamSearch) bind(pl *teamPlan) {
	for _, s := range ts.subs {
		s.owner = pl.owner
	}
}

// run constructs a plan and improves it for iters iterations.
func (ts *teamSearch) run(ctx context.Context, iters int) *teamPlan {
	cur := ts.newPlan()
	ts.bind(cur)
	ts.first = true
	ts.snapshot(cur)
	for k, r := range cur.routes {
		r.gen = ^ts.gens[k] // every route counts as changed
	}
	ts.fill(cur, insertion{byShift: true, squared: true})
	ts.descend(cur)
	ts.first = false
	best, cand := ts.newPlan(), ts.newPlan()
	best.copyFrom(cur)
	patience := max(100, iters/10)
	lastGain := 0
	for it := 0; it < iters && ts.n > 0; it++ {
		if it%16 == 0 && ctx.Err() != nil {
			break
		}
		cand.copyFrom(cur)
		ts.perturb(cand)
		if cand.better(best) {
			best.copyFrom(cand)
			lastGain = it
		}
		if ts.accept(cand, cur, best, 1-float64(it)/float64(iters)) {
			cur, cand = cand, cur
		}
		if it-lastGain > patience {
			cur.copyFrom(best)
			lastGain = it
		}
	}
	return best
}

// accept is search.accept on the plan's totals.
func (ts *teamSearch) accept(cand, cur, best *teamPlan, temp float64) bool {
	cv, uv := cand.value(), cur.value()
	switch {
	case cv > uv:
		return true
	case cv < uv:
		return float64(cv) >= float64(best.value())*(1-float64(valueSlack*temp))
	}
	return float64(cand.travel()) <= float64(cur.travel())*(1+float64(travelSlack*temp))
}

// perturb ruins part of pl, recreates it and descends. Only what the ruin
// touched is worked on again: the routes it changed are refilled from every
// unvisited stop, the others are offered only the stops it freed (the rest
// did not fit them before, and they have not changed).
func (ts *teamSearch) perturb(pl *teamPlan) {
	ts.bind(pl)
	ts.freed = ts.freed[:0]
	ts.snapshot(pl)
	k := ts.rng.IntN(len(pl.routes))
	r, s := pl.routes[k], ts.subs[k]
	switch {
	case ts.rng.Float64() < doubleBridgeShare && s.doubleBridge(r):
	case ts.rng.Float64() < teamRuinShare:
		ts.ruinAcross(pl)
	default:
		s.ruin(r)
	}
	ts.fill(pl, insertion{
		byShift: ts.rng.IntN(2) == 0,
		squared: ts.rng.IntN(2) == 0,
		noise:   0.2 * ts.rng.Float64(),
	})
	ts.descend(pl)
}

// snapshot remembers the routes' generations, to tell which changed.
func (ts *teamSearch) snapshot(pl *teamPlan) {
	ts.gens = ts.gens[:0]
	for _, r := range pl.routes {
		ts.gens = append(ts.gens, r.gen)
	}
}

// changed reports whether route k changed since the last snapshot.
func (ts *teamSearch) changed(pl *teamPlan, k int) bool { return pl.routes[k].gen != ts.gens[k] }

// ruinAcross removes a random visited stop and up to c-1 of its nearest
// visited neighbours, whatever routes they are on.
func (ts *teamSearch) ruinAcross(pl *teamPlan) {
	var visited []int
	for u, o := range pl.owner {
		if o >= 0 {
			visited = append(visited, u)
		}
	}
	if len(visited) == 0 {
		return
	}
	seed := visited[ts.rng.IntN(len(visited))]
	c := 1 + ts.rng.IntN(ruinLimit(len(visited)))
	owner := int(pl.owner[seed])
	ts.subs[owner].tryRemove(pl.routes[owner], seed)
	removed := 1
	for _, w := range ts.subs[owner].m.nb[seed] {
		if removed == c {
			return
		}
		if o := pl.owner[w]; o >= 0 && ts.subs[o].tryRemove(pl.routes[o], int(w)) {
			removed++
		}
	}
}

// fill inserts unvisited stops into the routes, in a random order of
// routes, each as recreate fills one route: a route that changed tries every
// unvisited stop, the others the freed ones.
func (ts *teamSearch) fill(pl *teamPlan, how insertion) {
	for _, k := range ts.rng.Perm(len(pl.routes)) {
		if ts.changed(pl, k) {
			ts.subs[k].recreate(pl.routes[k], how)
		} else if len(ts.freed) > 0 {
			ts.subs[k].recreateFrom(pl.routes[k], ts.freed, how, false)
		}
	}
}

// descend improves every changed route on its own, then moves their stops
// to other routes and makes room for freed stops, until nothing changes.
func (ts *teamSearch) descend(pl *teamPlan) {
	for {
		for k, r := range pl.routes {
			if ts.changed(pl, k) {
				ts.subs[k].descend(r)
			}
		}
		moved := ts.relocate(pl)
		if ts.makeRoom(pl) {
			moved = true
		}
		if !moved {
			return
		}
	}
}

// relocate moves the stops of changed routes to another route where they
// cost less travel, next to one of their nearest neighbours there. It
// reports whether it moved any.
func (ts *teamSearch) relocate(pl *teamPlan) bool {
	moved := false
	for k, r := range pl.routes {
		if !ts.changed(pl, k) {
			continue
		}
		for p := 1; p <= r.stops(); {
			if ts.relocateStop(pl, r.seq[p]) {
				moved = true
			} else {
				p++
			}
		}
	}
	return moved
}

// relocateStop moves stop u from its route a to the cheapest place next to
// a neighbour on another route b, when that shortens the plan.
func (ts *teamSearch) relocateStop(pl *teamPlan, u int) bool {
	ka := int(pl.owner[u])
	a, sa := pl.routes[ka], ts.subs[ka]
	p := a.pos[u]
	if !a.canRemove(p) {
		return false
	}
	gain := a.m.at(a.seq[p-1], u) + a.m.at(u, a.seq[p+1]) - a.m.at(a.seq[p-1], a.seq[p+1])
	bestK, bestP, bestDelta := -1, 0, gain
	for _, w := range sa.m.nb[u] {
		kb := int(pl.owner[w])
		if kb < 0 || kb == ka {
			continue
		}
		b := pl.routes[kb]
		if b.stops() >= b.m.maxStops {
			continue
		}
		for _, q := range [2]int{b.pos[w] - 1, b.pos[w]} {
			if ok, delta, _ := b.canInsert(u, q); ok && delta < bestDelta {
				bestK, bestP, bestDelta = kb, q, delta
			}
		}
	}
	if bestK < 0 {
		return false
	}
	b := pl.routes[bestK]
	before, after := b.seq[bestP], b.seq[bestP+1]
	if !sa.removeAt(a, p) {
		return false
	}
	if !ts.subs[bestK].insert(b, u, bestP) {
		sa.insert(a, u, p-1) // put it back where it was
		return false
	}
	ts.subs[bestK].touch(before, u, after)
	return true
}

// makeRoom gives an unvisited stop u the place of a visited neighbour v
// when v fits into another route: the plan gains u's value. It tries the
// stops the ruin freed, and every stop in the first descent of a plan. It
// reports whether it did so for any stop.
func (ts *teamSearch) makeRoom(pl *teamPlan) bool {
	stops := ts.freed
	if ts.first {
		stops = ts.servable
	}
	changed := false
	for _, u := range stops {
		if pl.owner[u] < 0 && ts.makeRoomFor(pl, u) {
			changed = true
		}
	}
	return changed
}

// makeRoomFor tries, for each nearest visited neighbour v of stop u, to put u
// in v's place on v's route and v into another route.
func (ts *teamSearch) makeRoomFor(pl *teamPlan, u int) bool {
	for _, w := range ts.subs[0].m.nb[u] {
		v := int(w)
		kb := int(pl.owner[v])
		if kb < 0 {
			continue
		}
		b := pl.routes[kb]
		p := b.pos[v]
		if !b.chain(p-1, []int{u}, p+1) {
			continue
		}
		ka, q := ts.cheapestElsewhere(pl, v, kb)
		if ka < 0 {
			continue
		}
		if ts.swapIn(pl, u, v, kb, p, ka, q) {
			return true
		}
	}
	return false
}

// cheapestElsewhere returns the route (other than not) and position where
// stop v is cheapest to insert, or -1.
func (ts *teamSearch) cheapestElsewhere(pl *teamPlan, v, not int) (int, int) {
	bestK, bestP, bestCost := -1, 0, int64(0)
	for k, r := range pl.routes {
		if k == not || r.stops() >= r.m.maxStops {
			continue
		}
		if p, cost, ok := ts.subs[k].cheapestPosition(r, v, insertion{}); ok && (bestK < 0 || cost < bestCost) {
			bestK, bestP, bestCost = k, p, cost
		}
	}
	return bestK, bestP
}

// swapIn puts u in place of v (at position p of route kb) and v at position
// q of route ka; when either step fails, the plan is restored.
func (ts *teamSearch) swapIn(pl *teamPlan, u, v, kb, p, ka, q int) bool {
	b, a := pl.routes[kb], pl.routes[ka]
	sb, sa := ts.subs[kb], ts.subs[ka]
	if !sb.removeAt(b, p) {
		return false
	}
	if !sb.insert(b, u, p-1) {
		sb.insert(b, v, p-1)
		return false
	}
	if !sa.insert(a, v, q) {
		sb.removeAt(b, p)
		sb.insert(b, v, p-1)
		return false
	}
	sb.touch(u)
	sa.touch(v)
	return true
}

// ownersOf is the owner table of a single route.
func ownersOf(r *route) []int32 {
	owner := make([]int32, r.m.n)
	for u := range owner {
		owner[u] = -1
		if r.pos[u] != 0 {
			owner[u] = 0
		}
	}
	return owner
}

// enforcePriority makes the plan keep Priority above Value: every stop left
// out that some route could take without its stops of a lower priority gets
// a place there, at the cost of as few of them as it takes, lowest priority
// and value first; those then get a place elsewhere if they fit. Each such
// step trades only lower priorities for a higher one, so it ends. The routes'
// travel is then shortened, which keeps their stops. It returns the routes.
func (ts *teamSearch) enforcePriority(pl *teamPlan) []*route {
	if !ts.prioritized {
		return pl.routes
	}
	for k, s := range ts.subs {
		s.owner, s.route, s.team = pl.owner, int32(k), ts
	}
	order := slices.Clone(ts.servableAll())
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ts.priority[b], ts.priority[a]) })
	for changed := true; changed; {
		changed = false
		for _, u := range order {
			if pl.owner[u] >= 0 {
				continue
			}
			for k := range pl.routes {
				if ts.makeWay(pl, k, u) {
					changed = true
					break
				}
			}
		}
	}
	for k, r := range pl.routes {
		ts.subs[k].recreate(r, insertion{})
		ts.subs[k].reduceTravel(r)
	}
	return pl.routes
}

// servableAll are the stops some vehicle can serve alone, by decreasing
// value.
func (ts *teamSearch) servableAll() []int {
	if ts.servable != nil || len(ts.subs) > 1 {
		return ts.servable
	}
	return ts.subs[0].servable
}

// makeWay puts stop u on route k when the route, without its stops of a
// lower priority than u, could take it; it removes those stops, lowest
// priority and value first, only until u fits. It reports whether u is on
// the route.
func (ts *teamSearch) makeWay(pl *teamPlan, k, u int) bool {
	r, s := pl.routes[k], ts.subs[k]
	var kept, lower []int
	for _, id := range r.seq[1 : len(r.seq)-1] {
		if ts.priority[id] < ts.priority[u] {
			lower = append(lower, id)
		} else {
			kept = append(kept, id)
		}
	}
	if len(lower) == 0 || len(kept) >= r.m.maxStops || !ts.fitsWithout(r, kept, u) {
		return false
	}
	slices.SortStableFunc(lower, func(a, b int) int {
		return cmp.Or(cmp.Compare(ts.priority[a], ts.priority[b]), cmp.Compare(r.m.val[a], r.m.val[b]))
	})
	for _, v := range lower {
		if r.stops() < r.m.maxStops {
			if p, _, ok := s.cheapestPosition(r, u, insertion{}); ok && s.insert(r, u, p) {
				return true
			}
		}
		if p := r.pos[v]; r.canRemove(p) {
			s.removeAt(r, p)
		}
	}
	p, _, ok := s.cheapestPosition(r, u, insertion{})
	return ok && s.insert(r, u, p)
}

// fitsWithout reports whether route r, visiting only kept in its order,
// could take stop u.
func (ts *teamSearch) fitsWithout(r *route, kept []int, u int) bool {
	trial := newRoute(r.m)
	trial.seq = append(append(trial.seq[:1], kept...), r.m.end)
	trial.refresh()
	if !trial.feasible() {
		return false
	}
	from, to := trial.windowStretch(u, 0)
	for p := from; p <= to; p++ {
		if ok, _, _ := trial.canInsert(u, p); ok && trial.insert(u, p) {
			return true
		}
	}
	return false
}
