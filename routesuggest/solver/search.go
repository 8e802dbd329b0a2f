package solver

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
)

// DefaultIterations is the search budget used when Problem.Iterations is 0
// for problems of up to DefaultBudgetStops stops. It is sized so that a
// 200-stop problem with time windows solves well under a second on a slow
// two-core machine, while problems of up to a few hundred stops get close to
// their optimum.
const DefaultIterations = 3000

// DefaultBudgetStops is the problem size above which the default budget
// shrinks in proportion to the number of stops, because an iteration costs
// more on longer routes: the default solve time then stays about the same.
const DefaultBudgetStops = 250

// defaultIterations returns the default budget for n stops.
func defaultIterations(n int) int {
	if n <= DefaultBudgetStops {
		return DefaultIterations
	}
	return max(DefaultIterations*DefaultBudgetStops/n, 100)
}

// Acceptance thresholds, as fractions: at the start of the search a route
// with up to valueSlack less value than the best, or (for equal value) up to
// travelSlack more travel than the current route, is accepted as the new
// current route. Both shrink linearly to zero over the budget, so the search
// ends as a pure descent.
const (
	valueSlack  = 0.03
	travelSlack = 0.02
)

// doubleBridgeShare is the share of iterations that perturb the route by a
// double bridge instead of ruin and recreate. Ruin and recreate changes which
// stops are visited; the double bridge reorders them in a way the local
// search cannot undo, which is what escapes deep local optima when every
// stop is visited (TSP-like problems).
const doubleBridgeShare = 0.3

// search holds the state of one Solve run.
type search struct {
	m        *model
	rng      *rand.Rand
	byValue  []int // stops by decreasing value, then index
	servable []int // byValue without the stops that cannot be served alone
	scratch  []int
	cands    []candidate
	active   []bool // per id: queued for the local search
	queue    []int  // active ids in activation order
	// owner is, in a team, the route (by index) that visits each stop, -1
	// when none does: stops of other routes are not this route's to insert.
	// Nil for a single vehicle, whose route's pos says it.
	owner []int32
	// route is the index of this search's route in a team, and team the
	// team search it is part of.
	route int32
	team  *teamSearch
}

// newSearch prepares a search on m seeded with seed.
func newSearch(m *model, seed uint64) *search {
	s := &search{m: m, rng: rand.New(rand.NewPCG(seed, 0x5eed)), active: make([]bool, m.dim)}
	for i := range m.n {
		s.byValue = append(s.byValue, i)
	}
	slices.SortStableFunc(s.byValue, func(a, b int) int { return cmp.Compare(m.val[b], m.val[a]) })
	empty := newRoute(m)
	for _, u := range s.byValue {
		if ok, _, _ := empty.canInsert(u, 0); ok {
			s.servable = append(s.servable, u)
		}
	}
	return s
}

// Solve validates p and returns an optimized route. The error is non-nil only
// for an invalid Problem (wrapping ErrInvalid). When ctx is done before the
// budget is spent, Solve returns the best route found so far.
func Solve(ctx context.Context, p Problem) (Solution, error) {
	sol, err := SolveTeam(ctx, p.team())
	if err != nil {
		return Solution{}, err
	}
	return Solution{Route: sol.Routes[0], Unrouted: sol.Unrouted}, nil
}

// SolveTeam validates p and returns optimized routes, one per vehicle, no
// stop in two. The error is non-nil only for an invalid TeamProblem (wrapping
// ErrInvalid). When ctx is done before the budget is spent, SolveTeam
// returns the best routes found so far. A team of one vehicle is solved
// exactly as Solve solves its Problem.
func SolveTeam(ctx context.Context, p TeamProblem) (TeamSolution, error) {
	models, err := compileTeam(p)
	if err != nil {
		return TeamSolution{}, err
	}
	ts := newTeamSearch(models, p.Seed, p.Stops)
	if len(models) == 1 {
		iters := p.Iterations
		if iters == 0 {
			iters = defaultIterations(len(p.Stops))
		}
		best := ts.subs[0].run(ctx, iters)
		return teamSolution(ts.enforcePriority(&teamPlan{routes: []*route{best}, owner: ownersOf(best)})), nil
	}
	best := ts.run(ctx, teamIterations(p))
	return teamSolution(ts.enforcePriority(best)), nil
}

// unvisited reports whether stop u is on no route: not on r, nor, in a team,
// on any other.
func (s *search) unvisited(r *route, u int) bool {
	return r.pos[u] == 0 && (s.owner == nil || s.owner[u] < 0)
}

// insert puts stop u between positions p and p+1 of r and records who visits
// it; false when that broke r (with a break), which is then unchanged.
func (s *search) insert(r *route, u, p int) bool {
	if !r.insert(u, p) {
		return false
	}
	if s.owner != nil {
		s.owner[u] = s.route
	}
	return true
}

// released records that stop u left its route.
func (s *search) released(u int) {
	if s.owner != nil {
		s.owner[u] = -1
		if s.team != nil {
			s.team.freed = append(s.team.freed, u)
		}
	}
}

// run constructs a route and improves it for iters iterations.
func (s *search) run(ctx context.Context, iters int) *route {
	cur := newRoute(s.m)
	s.recreate(cur, insertion{byShift: true, squared: true})
	s.descend(cur)
	best, cand := newRoute(s.m), newRoute(s.m)
	best.copyFrom(cur)
	patience := max(100, iters/10)
	lastGain := 0
	for it := 0; it < iters && s.m.n > 0; it++ {
		if it%16 == 0 && ctx.Err() != nil {
			break
		}
		cand.copyFrom(cur)
		s.perturb(cand)
		if cand.better(best) {
			best.copyFrom(cand)
			lastGain = it
		}
		if s.accept(cand, cur, best, 1-float64(it)/float64(iters)) {
			cur, cand = cand, cur
		}
		if it-lastGain > patience {
			cur.copyFrom(best)
			lastGain = it
		}
	}
	return best
}

// perturb changes r by a double bridge or by ruin and recreate with a
// randomly chosen ranking, then descends to a local optimum. A double bridge
// that would break a time constraint falls back to ruin and recreate.
func (s *search) perturb(r *route) {
	if s.rng.Float64() < doubleBridgeShare && s.doubleBridge(r) {
		s.descend(r)
		return
	}
	s.ruin(r)
	s.recreate(r, insertion{
		byShift: s.rng.IntN(2) == 0,
		squared: s.rng.IntN(2) == 0,
		noise:   0.2 * s.rng.Float64(),
	})
	s.descend(r)
}

// accept decides whether cand replaces cur. temp falls from 1 to 0 over the
// budget and scales the thresholds. The float64 conversions keep platforms
// from fusing multiply-adds, which could change a decision.
func (s *search) accept(cand, cur, best *route, temp float64) bool {
	switch {
	case cand.value > cur.value:
		return true
	case cand.value < cur.value:
		return float64(cand.value) >= float64(best.value)*(1-float64(valueSlack*temp))
	}
	return float64(cand.travel()) <= float64(cur.travel())*(1+float64(travelSlack*temp))
}
