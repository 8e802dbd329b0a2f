package bench_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/bench"
	"github.com/integration-connect/connect/routesuggest/solver"
)

// mustParse parses a file of ../testdata.
func mustParse(t *testing.T, file string) *bench.Instance {
	t.Helper()
	path := filepath.Join("..", "testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := bench.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestParseTestData(t *testing.T) {
	tests := []struct {
		file   string
		name   string
		format bench.Format
		nodes  int
	}{
		{"eil51.tsp", "eil51", bench.TSPLIB, 51},
		{"berlin52.tsp", "berlin52", bench.TSPLIB, 52},
		{"st70.tsp", "st70", bench.TSPLIB, 70},
		{"kroA100.tsp", "kroA100", bench.TSPLIB, 100},
		{"c101.txt", "c101", bench.TOPTW, 101},
		{"r101.txt", "r101", bench.TOPTW, 101},
		{"rc101.txt", "rc101", bench.TOPTW, 101},
		{"c201.txt", "c201", bench.TOPTW, 101},
		{"r201.txt", "r201", bench.TOPTW, 101},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in := mustParse(t, tt.file)
			if in.Name != tt.name || in.Format != tt.format || len(in.Nodes) != tt.nodes {
				t.Fatalf("got %s %s %d nodes, want %s %s %d", in.Name, in.Format, len(in.Nodes), tt.name, tt.format, tt.nodes)
			}
		})
	}
}

func TestParseTSPLIBVariants(t *testing.T) {
	const file = "NAME: tiny\r\nTYPE : TSP\nCOMMENT : a: colon\nDIMENSION:4\nEDGE_WEIGHT_TYPE : EUC_2D\n" +
		"NODE_COORD_SECTION\n 1 0 0\n2 3.0 4.0\n\n3 6e0 0.8e1\n4 5.51200e+02 -1.5\nEOF\n"
	in, err := bench.Parse("x/ignored.tsp", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []bench.Node{{ID: 1}, {ID: 2, X: 3, Y: 4}, {ID: 3, X: 6, Y: 8}, {ID: 4, X: 551.2, Y: -1.5}}
	if in.Name != "tiny" || in.Format != bench.TSPLIB || len(in.Nodes) != len(want) {
		t.Fatalf("got %+v", in)
	}
	for i, n := range want {
		if in.Nodes[i] != n {
			t.Errorf("node %d = %+v, want %+v", i, in.Nodes[i], n)
		}
	}
	// EUC_2D: nint(5) + nint(5) + nint(sqrt(545.2²+9.5²)) + nint(551.2...)
	length, err := in.Verify([]int{1, 2, 3, 4})
	if err != nil || length != 5+5+545+551 {
		t.Fatalf("tour length %d (%v), want %d", length, err, 5+5+545+551)
	}
}

func TestParseTOPTWVariants(t *testing.T) {
	const file = "4 4 100 1 \r\n0 700\r\n" +
		"  0 0.00 0.00 0.00 0.00 0 0 0 100.00\r\n" +
		"  1 3.00 4.00 10.00 7.00 1 1 1 0.00 50.00\n" +
		"  2 3.00 0.00 10.00 5.00 2 2 1 2 20.00 30.00\n"
	in, err := bench.Parse("dir/mini.txt", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if in.Name != "mini" || in.Format != bench.TOPTW || len(in.Nodes) != 3 {
		t.Fatalf("got %+v", in)
	}
	want := bench.Node{ID: 2, X: 3, Service: 10, Score: 5, Open: 20, Close: 30}
	if in.Nodes[2] != want {
		t.Fatalf("vertex 2 = %+v, want %+v", in.Nodes[2], want)
	}
	p := in.Problem()
	if p.ShiftEnd != 1000 || p.Stops[1].Windows[0] != (solver.Window{Open: 200, Close: 300}) || p.Stops[0].Service != 100 {
		t.Fatalf("problem not in tenths: %+v", p)
	}
	if d := p.Travel.Travel(0, 1); d != 50 {
		t.Fatalf("distance 0-1 = %d tenths, want 50", d)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, file, msg string }{
		{"empty", "", "bench: bad instance file: empty file"},
		{"unsupported weight type", "NAME: g\nTYPE: TSP\nDIMENSION: 1\nEDGE_WEIGHT_TYPE: GEO\nNODE_COORD_SECTION\n1 1 1\n", "bench: bad instance file: EDGE_WEIGHT_TYPE \"GEO\" is not supported (only EUC_2D)"},
		{"unsupported type", "NAME: a\nTYPE: ATSP\nDIMENSION: 1\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 1 1\n", "bench: bad instance file: TYPE ATSP is not supported (only TSP)"},
		{"missing coordinates", "NAME: m\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 1 1\nEOF\n", "bench: bad instance file: NODE_COORD_SECTION has 1 nodes, DIMENSION says 3"},
		{"no coordinate section", "NAME: m\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n", "bench: bad instance file: no NODE_COORD_SECTION"},
		{"bad coordinate", "NAME: m\nDIMENSION: 1\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 x 1\n", "bench: bad instance file: coordinate line 1: \"x\" is not a number"},
		{"header line without colon", "NAME m\nNODE_COORD_SECTION\n", "bench: bad instance file: line 1: \"NAME m\" is neither `KEY : value` nor NODE_COORD_SECTION"},
		{"no vertices", "4 10 100 1\n0 200\n", "bench: bad instance file: no vertex lines"},
		{"short vertex line", "1 1\n0 200\n0 0 0 0 0 0 0 0 100\n1 2 3\n", "bench: bad instance file: line 4: vertex line has 3 fields, want at least 9"},
		{"depot not first", "1 1\n0 200\n1 0 0 0 5 0 0 0 100\n", "bench: bad instance file: the first vertex is 1, want the depot 0"},
		{"fractional score", "1 1\n0 200\n0 0 0 0 0 0 0 0 100\n1 1 1 1 2.5 1 1 1 0 10\n", "bench: bad instance file: vertex 1: score 2.5 is not an integer"},
		{"text in numbers", "1 1\n0 200\n0 0 0 0 0 0 0 0 100\n1 1 1 1 x 1 1 1 0 10\n", "bench: bad instance file: line 4: \"x\" is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bench.Parse("f", []byte(tt.file))
			if !errors.Is(err, bench.ErrFormat) || err.Error() != tt.msg {
				t.Fatalf("err = %v, want ErrFormat: %q", err, tt.msg)
			}
		})
	}
}

// TestVerifyKnownOptima checks the published optimal TOPTW routes (Righini &
// Salani, see the benchmark README) with both Verify and solver.Check on the
// mapped problem, which must agree on feasibility and score.
func TestVerifyKnownOptima(t *testing.T) {
	tests := []struct {
		file  string
		route []int
		score int64
		back  int64 // return to the depot, in tenths
	}{
		{"c101.txt", []int{57, 63, 62, 74, 93, 97, 12, 2, 21, 75}, 320, 11644},
		{"r101.txt", []int{59, 5, 83, 16, 85, 26, 13, 89, 58}, 198, 2260},
		{"rc101.txt", []int{65, 11, 12, 78, 79, 4, 1, 70, 100}, 219, 2349},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in := mustParse(t, tt.file)
			got, err := in.Verify(append([]int{0}, tt.route...))
			if err != nil || got != tt.score {
				t.Fatalf("Verify = %d, %v; want %d", got, err, tt.score)
			}
			order := make([]int, len(tt.route))
			for i, id := range tt.route {
				order[i] = id - 1 // every customer has a positive score: stop i is vertex i+1
			}
			sol, err := solver.Check(in.Problem(), order)
			if err != nil || sol.Value != tt.score || sol.EndTime != tt.back {
				t.Fatalf("Check = value %d end %d (%v), want %d back at %d", sol.Value, sol.EndTime, err, tt.score, tt.back)
			}
		})
	}
}

func TestVerifyRejects(t *testing.T) {
	tsp := mustParse(t, "eil51.tsp")
	tour := make([]int, 51)
	for i := range tour {
		tour[i] = i + 1
	}
	optw := mustParse(t, "r101.txt")
	tests := []struct {
		name  string
		in    *bench.Instance
		route []int
		msg   string
	}{
		{"tour misses a node", tsp, tour[:50], "bench: route rejected: visits 50 of 51 nodes"},
		{"tour repeats a node", tsp, append(append([]int{}, tour[:50]...), 7), "bench: route rejected: node 7 is visited twice"},
		{"tour does not start at the depot", tsp, append(append([]int{}, tour[1:]...), 1), "bench: route rejected: does not start at the depot 1"},
		{"unknown node", tsp, append(append([]int{}, tour[:50]...), 99), "bench: route rejected: node 99 does not exist"},
		{"window missed", optw, []int{0, 58, 59}, "bench: route rejected: vertex 59: service starts at 225.1, after its window closes at 28.0"},
		{"budget exceeded", optw, []int{0, 59, 5, 83, 16, 85, 26, 13, 89, 58, 97}, "bench: route rejected: vertex 97: service starts at 229.0, after its window closes at 143.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.in.Verify(tt.route)
			if !errors.Is(err, bench.ErrRoute) || err.Error() != tt.msg {
				t.Fatalf("err = %v, want ErrRoute: %q", err, tt.msg)
			}
		})
	}
}

func TestGap(t *testing.T) {
	tsp, optw := mustParse(t, "eil51.tsp"), mustParse(t, "c101.txt")
	tests := []struct {
		in       *bench.Instance
		obj, ref float64
		want     float64
	}{
		{tsp, 430, 426, 400.0 / 426},
		{tsp, 426, 426, 0},
		{optw, 310, 320, 3.125},
		{optw, 330, 320, -3.125},
	}
	for _, tt := range tests {
		if got := tt.in.Gap(tt.obj, tt.ref); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s Gap(%v, %v) = %v, want %v", tt.in.Format, tt.obj, tt.ref, got, tt.want)
		}
	}
}
