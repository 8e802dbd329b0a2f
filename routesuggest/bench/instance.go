// Package bench reads public benchmark instances for the route optimizer
// (TSPLIB symmetric TSP and KU Leuven TOPTW orienteering files), maps them
// to solver problems, and verifies routes with its own arithmetic, so that a
// benchmark result never rests on the solver's evaluation of itself.
package bench

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/solver"
)

// Format names a benchmark family.
type Format string

// The supported families.
const (
	// TSPLIB is a TSPLIB95 symmetric TSP with EUC_2D distances: visit every
	// node on a closed tour, minimize its length.
	TSPLIB Format = "tsplib"
	// TOPTW is a KU Leuven orienteering problem with time windows, used with
	// one vehicle: maximize the collected score within the time budget.
	TOPTW Format = "toptw"
)

// ErrFormat is wrapped by every parse error.
var ErrFormat = errors.New("bench: bad instance file")

// Instance is a parsed benchmark instance. Nodes[0] is the depot: the first
// node of a TSPLIB file, vertex 0 of a TOPTW file.
type Instance struct {
	Name   string
	Format Format
	Nodes  []Node
	// integral is true when every coordinate is an integer, which lets
	// TOPTW distances be computed exactly in integer tenths.
	integral bool
}

// Node is one node of an instance. Service, Score, Open and Close are read
// from TOPTW files only, in the file's units.
type Node struct {
	// ID is the node number as written in the file; routes are reported
	// with it.
	ID                          int
	X, Y                        float64
	Service, Score, Open, Close float64
}

// Parse reads an instance, recognising the family from the content: TSPLIB
// files start with a `KEY : value` header, TOPTW files with numbers. path
// gives the default name (its base name without extension).
func Parse(path string, data []byte) (*Instance, error) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return nil, errors.Newf("%w: empty file", ErrFormat)
	}
	if _, err := strconv.ParseFloat(fields[0], 64); err == nil {
		return parseTOPTW(name, data)
	}
	return parseTSPLIB(name, data)
}

// lines splits data into lines, treating a carriage return as white space
// (files with Windows line ends or a stray \r parse the same).
func lines(data []byte) []string {
	data = bytes.ReplaceAll(data, []byte("\r"), []byte(" "))
	return strings.Split(string(data), "\n")
}

// parseNumbers parses every field as a float.
func parseNumbers(fields []string) ([]float64, error) {
	out := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, errors.Newf("%q is not a number", f)
		}
		out[i] = v
	}
	return out, nil
}

// parseID parses a node number, which must be an integer.
func parseID(s string) (int, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != float64(int(v)) {
		return 0, errors.Newf("node number %q is not an integer", s)
	}
	return int(v), nil
}

// Problem maps the instance to a solver problem; see the family's mapping
// function for the conventions.
func (in *Instance) Problem() solver.Problem {
	if in.Format == TSPLIB {
		return in.tspProblem()
	}
	return in.toptwProblem()
}

// stopNodes returns, for each stop of Problem(), the index of its node.
func (in *Instance) stopNodes() []int {
	var out []int
	for i := 1; i < len(in.Nodes); i++ {
		if in.Format == TSPLIB || in.Nodes[i].Score > 0 {
			out = append(out, i)
		}
	}
	return out
}

// Route returns the node numbers, as written in the file, of sol's route:
// the depot first, then the visited nodes, without returning to the depot.
func (in *Instance) Route(sol solver.Solution) []int {
	stops := in.stopNodes()
	route := []int{in.Nodes[0].ID}
	for _, v := range sol.Visits {
		route = append(route, in.Nodes[stops[v.Stop]].ID)
	}
	return route
}

// Objective returns the value of sol in the family's objective: tour length
// for TSPLIB, collected score for TOPTW.
func (in *Instance) Objective(sol solver.Solution) int64 {
	if in.Format == TSPLIB {
		return sol.TravelTime
	}
	return sol.Value
}

// Gap returns how far obj is from the reference ref, in percent of ref;
// positive means worse than the reference for both families.
func (in *Instance) Gap(obj, ref float64) float64 {
	if in.Format == TSPLIB {
		return (obj - ref) / ref * 100
	}
	return (ref - obj) / ref * 100
}
