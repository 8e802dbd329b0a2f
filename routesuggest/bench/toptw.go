package bench

import (
	"math"
	"strings"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// minVertexFields is the length of the shortest TOPTW vertex line:
// `i x y d S f a O C` with a = 0 and an empty list.
const minVertexFields = 9

// parseTOPTW reads a KU Leuven TOPTW file: header lines of a few numbers,
// then one line per vertex `i x y d S f a list O C`, vertex 0 (the depot)
// first. Vertex lines are told from header lines by their length, so N is
// the number of vertex lines and a header split or joined by a stray
// carriage return still parses. O and C are the last two numbers.
func parseTOPTW(name string, data []byte) (*Instance, error) {
	in := &Instance{Name: name, Format: TOPTW, integral: true}
	seen := map[int]bool{}
	for i, line := range lines(data) {
		f := strings.Fields(line)
		if len(f) == 0 || (len(f) < minVertexFields && len(in.Nodes) == 0) {
			if _, err := parseNumbers(f); err != nil {
				return nil, errors.Newf("%w: line %d: %v", ErrFormat, i+1, err)
			}
			continue // blank or header line
		}
		node, err := parseVertex(f)
		if err != nil {
			return nil, errors.Newf("%w: line %d: %v", ErrFormat, i+1, err)
		}
		if seen[node.ID] {
			return nil, errors.Newf("%w: line %d: vertex %d appears twice", ErrFormat, i+1, node.ID)
		}
		seen[node.ID] = true
		in.integral = in.integral && isInt(node.X) && isInt(node.Y)
		in.Nodes = append(in.Nodes, node)
	}
	return in, checkTOPTW(in)
}

// parseVertex parses one vertex line.
func parseVertex(f []string) (Node, error) {
	if len(f) < minVertexFields {
		return Node{}, errors.Newf("vertex line has %d fields, want at least %d", len(f), minVertexFields)
	}
	id, err := parseID(f[0])
	if err != nil {
		return Node{}, err
	}
	v, err := parseNumbers(f)
	if err != nil {
		return Node{}, err
	}
	n := len(v)
	return Node{ID: id, X: v[1], Y: v[2], Service: v[3], Score: v[4], Open: v[n-2], Close: v[n-1]}, nil
}

// checkTOPTW checks the parsed vertices for what the mapping relies on.
func checkTOPTW(in *Instance) error {
	if len(in.Nodes) == 0 {
		return errors.Newf("%w: no vertex lines", ErrFormat)
	}
	if in.Nodes[0].ID != 0 {
		return errors.Newf("%w: the first vertex is %d, want the depot 0", ErrFormat, in.Nodes[0].ID)
	}
	for _, v := range in.Nodes {
		switch {
		case v.Score != math.Trunc(v.Score):
			return errors.Newf("%w: vertex %d: score %v is not an integer", ErrFormat, v.ID, v.Score)
		case v.Close < v.Open:
			return errors.Newf("%w: vertex %d: window [%v, %v] closes before it opens", ErrFormat, v.ID, v.Open, v.Close)
		case v.Service < 0:
			return errors.Newf("%w: vertex %d: negative service %v", ErrFormat, v.ID, v.Service)
		}
	}
	return nil
}

func isInt(x float64) bool { return x == math.Trunc(x) && math.Abs(x) < 1<<30 }

// tenths returns the TOPTW distance between a and b in integer tenths:
// floor(10 * euclid). With integer coordinates it is computed exactly as
// isqrt(100 * (dx² + dy²)).
func (in *Instance) tenths(a, b Node) int64 {
	if !in.integral {
		return int64(math.Floor(10 * math.Hypot(a.X-b.X, a.Y-b.Y)))
	}
	dx, dy := int64(a.X-b.X), int64(a.Y-b.Y)
	return isqrt(100 * (dx*dx + dy*dy))
}

// isqrt returns floor(sqrt(v)) exactly.
func isqrt(v int64) int64 {
	r := int64(math.Sqrt(float64(v)))
	for r*r > v {
		r--
	}
	for (r+1)*(r+1) <= v {
		r++
	}
	return r
}

// ceilTenths and floorTenths convert a time to tenths, rounding so that a
// window never grows and a service never shrinks (exact for the files'
// two-decimal integers).
func ceilTenths(x float64) int64  { return int64(math.Ceil(x*10 - 1e-6)) }
func floorTenths(x float64) int64 { return int64(math.Floor(x*10 + 1e-6)) }

// toptwProblem maps a TOPTW instance to the solver, in tenths of the file's
// time unit: vertex 0 is Start and End, the shift is the depot's window
// [O0, C0] (C0 is the time budget), every customer with a positive score is
// a stop with its service, its window on the start of service and its score
// as value. There is no stop limit.
func (in *Instance) toptwProblem() solver.Problem {
	n := len(in.Nodes)
	mat := make(solver.Matrix, n)
	for i := range mat {
		mat[i] = make([]int64, n)
		for j := range mat[i] {
			mat[i][j] = in.tenths(in.Nodes[i], in.Nodes[j])
		}
	}
	depot := in.Nodes[0]
	p := solver.Problem{
		Travel: mat, Start: 0, End: 0,
		ShiftStart: ceilTenths(depot.Open), ShiftEnd: floorTenths(depot.Close),
	}
	for _, i := range in.stopNodes() {
		v := in.Nodes[i]
		p.Stops = append(p.Stops, solver.Stop{
			Node: i, Service: ceilTenths(v.Service), Value: int64(v.Score),
			Windows: []solver.Window{{Open: ceilTenths(v.Open), Close: floorTenths(v.Close)}},
		})
	}
	return p
}
