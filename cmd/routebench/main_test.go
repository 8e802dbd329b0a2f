package main

// The command is tested through run, in package main: a main package cannot
// be imported by an external test package.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const testdata = "../../routesuggest/testdata/"

// runBench runs the command and returns its exit status, stdout and stderr.
func runBench(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := run(args, &stdout, &stderr)
	return status, stdout.String(), stderr.String()
}

func TestJSONOutput(t *testing.T) {
	status, out, errOut := runBench(t, "-json", "-iterations", "200", "-ref", "eil51=426",
		testdata+"eil51.tsp", testdata+"r101.txt")
	if status != 0 {
		t.Fatalf("status %d, stderr %s", status, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines, got %q", out)
	}
	wantKeys := []string{"feasible", "format", "gapPercent", "instance", "ms", "objective", "reference", "route"}
	var objs []map[string]any
	for _, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range obj {
				if !yield(k) {
					return
				}
			}
		})
		if !reflect.DeepEqual(keys, wantKeys) {
			t.Fatalf("keys %v, want %v", keys, wantKeys)
		}
		objs = append(objs, obj)
	}
	checkTSPLine(t, objs[0])
	checkTOPTWLine(t, objs[1])
}

// checkTSPLine checks the eil51 line: a tour through all 51 nodes from node
// 1 with the gap computed against the reference.
func checkTSPLine(t *testing.T, obj map[string]any) {
	t.Helper()
	if obj["instance"] != "eil51" || obj["format"] != "tsplib" || obj["feasible"] != true || obj["reference"] != 426.0 {
		t.Fatalf("eil51 line %v", obj)
	}
	route := obj["route"].([]any)
	if len(route) != 51 || route[0] != 1.0 {
		t.Fatalf("route %v: want 51 nodes starting at node 1", route)
	}
	want := (obj["objective"].(float64) - 426) / 426 * 100
	if gap := obj["gapPercent"].(float64); gap < want-1e-3 || gap > want+1e-3 {
		t.Fatalf("gapPercent %v, want %v", gap, want)
	}
}

// checkTOPTWLine checks the r101 line: no reference, a route from vertex 0.
func checkTOPTWLine(t *testing.T, obj map[string]any) {
	t.Helper()
	if obj["instance"] != "r101" || obj["format"] != "toptw" || obj["feasible"] != true {
		t.Fatalf("r101 line %v", obj)
	}
	if obj["reference"] != nil || obj["gapPercent"] != nil {
		t.Fatalf("reference and gap must be null without -ref: %v", obj)
	}
	if route := obj["route"].([]any); len(route) < 2 || route[0] != 0.0 || route[len(route)-1] == 0.0 {
		t.Fatalf("route %v: want vertex 0 first and not repeated at the end", route)
	}
}

func TestTable(t *testing.T) {
	status, out, errOut := runBench(t, "-iterations", "100", "-ref", "c101=320", "-ref", "berlin52=7542",
		testdata+"c101.txt", testdata+"berlin52.tsp", testdata+"st70.tsp")
	if status != 0 {
		t.Fatalf("status %d, stderr %s", status, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "instance") {
		t.Fatalf("want a header, 3 rows and 2 mean lines, got:\n%s", out)
	}
	for _, want := range []string{"c101 ", "berlin52 ", "st70 "} {
		if !strings.Contains(out, want) {
			t.Errorf("no row for %s in:\n%s", want, out)
		}
	}
	st70 := strings.Fields(lines[3])
	if st70[0] != "st70" || st70[2] != "-" || st70[4] != "-" || st70[6] != "feasible" {
		t.Fatalf("st70 row %q: want no reference, no gap, feasible", lines[3])
	}
	if !strings.Contains(out, "mean gap tsplib") || !strings.Contains(out, "mean gap toptw") {
		t.Fatalf("no mean gap lines in:\n%s", out)
	}
}

func TestBadFileIsReportedAndOthersRun(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.tsp")
	if err := os.WriteFile(bad, []byte("NAME: bad\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: GEO\nNODE_COORD_SECTION\n1 0 0\n2 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, out, errOut := runBench(t, "-json", "-iterations", "50", bad, testdata+"eil51.tsp", filepath.Join(t.TempDir(), "missing"))
	if status != 1 {
		t.Fatalf("status %d, want 1", status)
	}
	if !strings.Contains(errOut, "bad.tsp") || !strings.Contains(errOut, "GEO") || !strings.Contains(errOut, "missing") {
		t.Fatalf("stderr %q should name both bad files and the reason", errOut)
	}
	if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, `"eil51"`) {
		t.Fatalf("the good file must still be reported, got %q", out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"-ref", "nonsense", "x"}, {"-ref", "a=b", "x"}, {"-bogus"}} {
		if status, _, _ := runBench(t, args...); status != 2 {
			t.Errorf("args %q: status %d, want 2", args, status)
		}
	}
}

// TestFormatVariants runs files written in the variants the parsers must
// accept: both TSPLIB header spellings with decimal and scientific
// coordinates, and a TOPTW file with carriage returns.
func TestFormatVariants(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"square.tsp": "NAME: square\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n" +
			"1 0.0 0.0\n2 1.0e1 0\n3 10 1.0E+01\n 4 0.0 10.0\nEOF\n",
		"tiny.dat": "4 4 3 1\r\n0 50\r\n" +
			"0 0.00 0.00 0.00 0.00 0 0 0 100.00\r\n" +
			"1 3.00 4.00 5.00 10.00 1 1 1 0.00 50.00\r\n" +
			"2 6.00 8.00 5.00 20.00 1 1 1 0.00 50.00\r\n" +
			"3 90.00 0.00 5.00 30.00 1 1 1 0.00 100.00\r\n",
	}
	var args []string
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	slices.Sort(args)
	status, out, errOut := runBench(t, append([]string{"-json", "-ref", "square=40", "-ref", "tiny=30"}, args...)...)
	if status != 0 {
		t.Fatalf("status %d, stderr %s", status, errOut)
	}
	want := []string{
		`{"instance":"square","format":"tsplib","reference":40,"objective":40,"gapPercent":0,`,
		`{"instance":"tiny","format":"toptw","reference":30,"objective":30,"gapPercent":0,`,
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Fatalf("line %d: want prefix %s, got:\n%s", i, w, out)
		}
	}
	if !strings.HasSuffix(lines[1], `"feasible":true,"route":[0,1,2]}`) &&
		!strings.HasSuffix(lines[1], `"feasible":true,"route":[0,2,1]}`) {
		t.Fatalf("tiny: want vertices 1 and 2 visited from 0, got %s", lines[1])
	}
}

// TestTeams: -vehicles solves a TOPTW instance for every number of vehicles
// listed, one line each (NAME/mK), with every route verified, no customer on
// two routes, and -known's published references; TSPLIB instances are
// solved for one vehicle only.
func TestTeams(t *testing.T) {
	status, out, errOut := runBench(t, "-json", "-known", "-iterations", "300", "-vehicles", "1,3",
		testdata+"c101.txt", testdata+"eil51.tsp")
	if status != 0 {
		t.Fatalf("status %d, stderr %s", status, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want c101, c101/m3 and eil51, got:\n%s", out)
	}
	var team struct {
		Instance  string   `json:"instance"`
		Reference *float64 `json:"reference"`
		Objective int64    `json:"objective"`
		Feasible  bool     `json:"feasible"`
		Vehicles  int      `json:"vehicles"`
		Routes    [][]int  `json:"routes"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &team); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, r := range team.Routes {
		for _, v := range r[1:] {
			if seen[v] {
				t.Fatalf("customer %d on two routes: %v", v, team.Routes)
			}
			seen[v] = true
		}
	}
	if team.Instance != "c101/m3" || team.Vehicles != 3 || len(team.Routes) != 3 || !team.Feasible ||
		team.Reference == nil || *team.Reference != 810 || team.Objective < 700 {
		t.Fatalf("team line %s", lines[1])
	}
	var single map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &single); err != nil || single["reference"] != 320.0 || single["vehicles"] != nil {
		t.Fatalf("one-vehicle line %s (%v)", lines[0], err)
	}
	if status, _, errOut := runBench(t, "-vehicles", "0", testdata+"c101.txt"); status != 2 || !strings.Contains(errOut, "-vehicles") {
		t.Errorf("-vehicles 0: status %d, stderr %s", status, errOut)
	}
}
