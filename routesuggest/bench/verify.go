package bench

import (
	"math"

	"github.com/cockroachdb/errors"
)

// ErrRoute is wrapped by every Verify error.
var ErrRoute = errors.New("bench: route rejected")

// timeEps absorbs floating-point error in Verify's TOPTW schedule; the real
// quantities are multiples of 0.1.
const timeEps = 1e-6

// Verify checks route (node numbers as written in the file, depot first, no
// return to the depot) against the instance with its own floating-point
// arithmetic, independent of the solver, and returns the objective it
// recomputes: the closed tour length for TSPLIB, the score for TOPTW.
func (in *Instance) Verify(route []int) (int64, error) {
	idx, err := in.routeIndices(route)
	if err != nil {
		return 0, err
	}
	if in.Format == TSPLIB {
		return in.verifyTour(idx)
	}
	return in.verifySchedule(idx)
}

// routeIndices maps node numbers to node indices, checking that the route
// starts at the depot and repeats no node.
func (in *Instance) routeIndices(route []int) ([]int, error) {
	byID := make(map[int]int, len(in.Nodes))
	for i, v := range in.Nodes {
		byID[v.ID] = i
	}
	if len(route) == 0 || route[0] != in.Nodes[0].ID {
		return nil, errors.Newf("%w: does not start at the depot %d", ErrRoute, in.Nodes[0].ID)
	}
	seen := make([]bool, len(in.Nodes))
	idx := make([]int, len(route))
	for k, id := range route {
		i, ok := byID[id]
		switch {
		case !ok:
			return nil, errors.Newf("%w: node %d does not exist", ErrRoute, id)
		case seen[i]:
			return nil, errors.Newf("%w: node %d is visited twice", ErrRoute, id)
		}
		seen[i], idx[k] = true, i
	}
	return idx, nil
}

// verifyTour checks that a TSP tour visits every node and returns its closed
// length with EUC_2D distances.
func (in *Instance) verifyTour(idx []int) (int64, error) {
	if len(idx) != len(in.Nodes) {
		return 0, errors.Newf("%w: visits %d of %d nodes", ErrRoute, len(idx), len(in.Nodes))
	}
	var length int64
	for k, i := range idx {
		a, b := in.Nodes[i], in.Nodes[idx[(k+1)%len(idx)]]
		length += int64(math.Floor(math.Sqrt(sq(a.X-b.X)+sq(a.Y-b.Y)) + 0.5))
	}
	return length, nil
}

// verifySchedule drives a TOPTW route from the depot at its opening time,
// waiting for windows, and checks every window and the return by the
// depot's closing time; it returns the collected score.
func (in *Instance) verifySchedule(idx []int) (int64, error) {
	depot := in.Nodes[0]
	t, score := depot.Open, 0.0
	for k := 1; k <= len(idx); k++ {
		prev, v := in.Nodes[idx[k-1]], in.Nodes[idx[k%len(idx)]]
		t += truncDist(prev, v)
		if k == len(idx) {
			break
		}
		t = math.Max(t, v.Open)
		if t > v.Close+timeEps {
			return 0, errors.Newf("%w: vertex %d: service starts at %.1f, after its window closes at %.1f", ErrRoute, v.ID, t, v.Close)
		}
		t += v.Service
		score += v.Score
	}
	if t > depot.Close+timeEps {
		return 0, errors.Newf("%w: back at the depot at %.1f, after the budget %.1f", ErrRoute, t, depot.Close)
	}
	return int64(score), nil
}

// truncDist is the Euclidean distance rounded down to one decimal.
// floor(sqrt(100 d²)) is exact in float64 for integer coordinates.
func truncDist(a, b Node) float64 {
	return math.Floor(math.Sqrt(100*(sq(a.X-b.X)+sq(a.Y-b.Y)))) / 10
}

func sq(x float64) float64 { return x * x }
