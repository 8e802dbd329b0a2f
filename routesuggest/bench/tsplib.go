package bench

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// tspHeader holds the TSPLIB keys the parser uses.
type tspHeader struct {
	name, typ, weightType string
	dimension             int
}

// parseTSPLIB reads a TSPLIB95 file: `KEY : value` header lines (split on the
// first colon), NODE_COORD_SECTION, DIMENSION lines `id x y`, optional EOF.
// Only TYPE TSP with EDGE_WEIGHT_TYPE EUC_2D is supported.
func parseTSPLIB(name string, data []byte) (*Instance, error) {
	ls := lines(data)
	h, body, err := parseTSPHeader(ls)
	if err != nil {
		return nil, err
	}
	if h.name != "" {
		name = h.name
	}
	nodes, err := parseCoords(ls[body:], h.dimension)
	if err != nil {
		return nil, err
	}
	return &Instance{Name: name, Format: TSPLIB, Nodes: nodes}, nil
}

// parseTSPHeader reads the header up to NODE_COORD_SECTION and returns the
// index of the first line after it.
func parseTSPHeader(ls []string) (tspHeader, int, error) {
	var h tspHeader
	for i, raw := range ls {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if strings.HasPrefix(strings.ToUpper(line), "NODE_COORD_SECTION") {
			return h, i + 1, h.check()
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return h, 0, errors.Newf("%w: line %d: %q is neither `KEY : value` nor NODE_COORD_SECTION", ErrFormat, i+1, line)
		}
		if err := h.set(strings.ToUpper(strings.TrimSpace(key)), strings.TrimSpace(value)); err != nil {
			return h, 0, errors.Newf("%w: line %d: %v", ErrFormat, i+1, err)
		}
	}
	return h, 0, errors.Newf("%w: no NODE_COORD_SECTION", ErrFormat)
}

// set records one header key.
func (h *tspHeader) set(key, value string) error {
	switch key {
	case "NAME":
		h.name = value
	case "TYPE":
		h.typ = value
	case "EDGE_WEIGHT_TYPE":
		h.weightType = value
	case "DIMENSION":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return errors.Newf("DIMENSION %q is not a positive integer", value)
		}
		h.dimension = n
	}
	return nil
}

// check rejects headers the runner cannot handle.
func (h *tspHeader) check() error {
	switch {
	case h.typ != "" && h.typ != "TSP":
		return errors.Newf("%w: TYPE %s is not supported (only TSP)", ErrFormat, h.typ)
	case h.weightType != "EUC_2D":
		return errors.Newf("%w: EDGE_WEIGHT_TYPE %q is not supported (only EUC_2D)", ErrFormat, h.weightType)
	case h.dimension == 0:
		return errors.Newf("%w: no DIMENSION", ErrFormat)
	}
	return nil
}

// parseCoords reads n coordinate lines `id x y`, skipping blank lines.
func parseCoords(ls []string, n int) ([]Node, error) {
	nodes := make([]Node, 0, n)
	seen := make(map[int]bool, n)
	for i := 0; len(nodes) < n; i++ {
		if i == len(ls) || strings.TrimSpace(ls[i]) == "EOF" {
			return nil, errors.Newf("%w: NODE_COORD_SECTION has %d nodes, DIMENSION says %d", ErrFormat, len(nodes), n)
		}
		f := strings.Fields(ls[i])
		if len(f) == 0 {
			continue
		}
		node, err := parseCoordLine(f)
		if err != nil {
			return nil, errors.Newf("%w: coordinate line %d: %v", ErrFormat, len(nodes)+1, err)
		}
		if seen[node.ID] {
			return nil, errors.Newf("%w: node %d appears twice", ErrFormat, node.ID)
		}
		seen[node.ID] = true
		nodes = append(nodes, node)
	}
	return nodes, nil
}

// parseCoordLine parses `id x y`; coordinates may be decimals or in
// scientific notation.
func parseCoordLine(f []string) (Node, error) {
	if len(f) != 3 {
		return Node{}, errors.Newf("want `id x y`, got %d fields", len(f))
	}
	id, err := parseID(f[0])
	if err != nil {
		return Node{}, err
	}
	xy, err := parseNumbers(f[1:])
	if err != nil {
		return Node{}, err
	}
	return Node{ID: id, X: xy[0], Y: xy[1]}, nil
}

// euc2D is the TSPLIB EUC_2D distance: the Euclidean distance rounded to the
// nearest integer, computed as in the TSPLIB reference code.
func euc2D(a, b Node) int64 {
	dx, dy := a.X-b.X, a.Y-b.Y
	return int64(math.Sqrt(dx*dx+dy*dy) + 0.5)
}

// tspProblem maps a TSP to the solver: the first node is both depot ends,
// every other node is a stop of value 1 without windows, and the shift is
// unbounded, so every stop fits and the solver visits them all, minimizing
// the tour length.
func (in *Instance) tspProblem() solver.Problem {
	n := len(in.Nodes)
	mat := make(solver.Matrix, n)
	for i := range mat {
		mat[i] = make([]int64, n)
		for j := range mat[i] {
			mat[i][j] = euc2D(in.Nodes[i], in.Nodes[j])
		}
	}
	p := solver.Problem{Travel: mat, Start: 0, End: 0, ShiftEnd: solver.MaxTime}
	for _, i := range in.stopNodes() {
		p.Stops = append(p.Stops, solver.Stop{Node: i, Value: 1})
	}
	return p
}
