package solver_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/integration-connect/connect/routesuggest/bench"
	"github.com/integration-connect/connect/routesuggest/solver"
)

// The product targets: mean gap to the reference per family, with the
// default budget and seed. Single instances may be worse by up to the
// per-instance tolerances.
const (
	tspMeanGap   = 1.5
	tspMaxGap    = 3.0
	toptwMeanGap = 2.0
	toptwMaxGap  = 5.0
)

// references are the proven optimal tour lengths (TSPLIB) and the optimal or
// best-known one-vehicle scores (TOPTW), see ../testdata and the benchmark
// README.
var references = []struct {
	file string
	ref  float64
}{
	{"eil51.tsp", 426}, {"berlin52.tsp", 7542}, {"st70.tsp", 675}, {"kroA100.tsp", 21282},
	{"c101.txt", 320}, {"r101.txt", 198}, {"rc101.txt", 219}, {"c201.txt", 870}, {"r201.txt", 797},
}

// TestQualityOnBenchmarks solves every benchmark instance with the default
// budget, verifies the route with the benchmark's own arithmetic and checks
// the gaps. It asserts nothing about time.
func TestQualityOnBenchmarks(t *testing.T) {
	var mu sync.Mutex
	gaps := map[bench.Format][]float64{}
	t.Run("instances", func(t *testing.T) {
		for _, r := range references {
			t.Run(r.file, func(t *testing.T) {
				t.Parallel()
				in, gap := solveInstance(t, r.file, r.ref)
				limit := map[bench.Format]float64{bench.TSPLIB: tspMaxGap, bench.TOPTW: toptwMaxGap}[in.Format]
				if gap > limit {
					t.Errorf("gap %.2f%% exceeds %.1f%%", gap, limit)
				}
				mu.Lock()
				gaps[in.Format] = append(gaps[in.Format], gap)
				mu.Unlock()
			})
		}
	})
	for format, limit := range map[bench.Format]float64{bench.TSPLIB: tspMeanGap, bench.TOPTW: toptwMeanGap} {
		if m := mean(gaps[format]); m > limit {
			t.Errorf("%s mean gap %.2f%% exceeds %.1f%%", format, m, limit)
		} else {
			t.Logf("%s mean gap %.2f%% over %d instances", format, m, len(gaps[format]))
		}
	}
}

// solveInstance solves one test-data file and returns its gap in percent.
func solveInstance(t *testing.T, file string, ref float64) (*bench.Instance, float64) {
	path := filepath.Join("..", "testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := bench.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem()
	sol, err := solver.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	verifySolution(t, p, sol)
	obj := in.Objective(sol)
	if got, err := in.Verify(in.Route(sol)); err != nil || got != obj {
		t.Fatalf("route %v: verified objective %d (%v), solver says %d", in.Route(sol), got, err, obj)
	}
	gap := in.Gap(float64(obj), ref)
	t.Logf("objective %d, reference %g, gap %.2f%%", obj, ref, gap)
	return in, gap
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// teamMeanGap is the product target for teams: the mean gap to the
// references per number of vehicles, seed 1, default budget.
const teamMeanGap = 1.0

// TestTeamQualityOnBenchmarks solves the TOPTW instances for two, three and
// four vehicles, verifies every plan with the benchmark's own arithmetic (no
// customer on two routes) and checks the mean gap per number of vehicles
// against bench.TOPTWReferences. It asserts nothing about time; under the
// race detector it runs one instance per number of vehicles, the slowest
// being many times slower there.
func TestTeamQualityOnBenchmarks(t *testing.T) {
	files := []string{"c101", "r101", "rc101", "c201", "r201"}
	if raceDetector {
		files = files[:1]
	}
	for m := 2; m <= 4; m++ {
		var gaps []float64
		for _, name := range files {
			data, err := os.ReadFile(filepath.Join("..", "testdata", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			in, err := bench.Parse(name+".txt", data)
			if err != nil {
				t.Fatal(err)
			}
			p := in.TeamProblem(m)
			p.Seed = 1
			sol, err := solver.SolveTeam(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := in.VerifyTeam(in.TeamRoutes(sol)); err != nil || got != sol.Value {
				t.Fatalf("%s m=%d: verified %d (%v), solver says %d", name, m, got, err, sol.Value)
			}
			ref := bench.TOPTWReferences[name][m].Value
			gaps = append(gaps, in.Gap(float64(sol.Value), ref))
			t.Logf("%s m=%d: %d, reference %g", name, m, sol.Value, ref)
		}
		if g := mean(gaps); g > teamMeanGap {
			t.Errorf("m=%d: mean gap %.2f%% exceeds %.1f%%", m, g, teamMeanGap)
		}
	}
}
