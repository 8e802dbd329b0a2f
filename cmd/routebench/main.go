// Command routebench runs the route optimizer core on benchmark instances
// and reports, per instance, the objective reached, the gap to a reference
// value, the solve time and a feasibility check of the route (by
// solver.Check and by the benchmark's own, independent arithmetic).
//
// Usage:
//
//	routebench [-json] [-ref NAME=VALUE ...] [-known] [-vehicles 1,2,3,4] [-seed N] [-iterations N] FILE...
//
// The format of each file is recognised from its content: TSPLIB (EUC_2D
// symmetric TSP, objective = tour length, minimized) or KU Leuven TOPTW
// (objective = collected score, maximized), which is solved for every number
// of vehicles -vehicles lists (the team orienteering problem with time
// windows; a line per number, named NAME/mK for K > 1). -known takes the
// references of the instances in routesuggest/testdata from
// bench.TOPTWReferences; -ref sets one (NAME or NAME/mK). A bad file is
// reported on stderr and the other files are still processed; the exit status
// is 1 when any file was bad or any route failed the check, 2 on a usage
// error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/routesuggest/bench"
	"github.com/integration-connect/connect/routesuggest/solver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the parsed command-line flags.
type options struct {
	json       bool
	refs       refFlag
	known      bool
	vehicles   []int
	seed       uint64
	iterations int
}

// refFlag collects repeated -ref NAME=VALUE flags.
type refFlag map[string]float64

// String lists the references (flag.Value).
func (r refFlag) String() string { return fmt.Sprint(map[string]float64(r)) }

// Set parses one NAME=VALUE (flag.Value).
func (r refFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return errors.Newf("want NAME=VALUE, got %q", s)
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || v == 0 {
		return errors.Newf("reference %q is not a non-zero number", value)
	}
	r[name] = v
	return nil
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	opts, files, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	status := 0
	var results []result
	for _, path := range files {
		res, err := runFile(path, opts)
		if err != nil {
			fmt.Fprintf(stderr, "routebench: %s: %v\n", path, err)
			status = 1
			continue
		}
		for _, r := range res {
			if !r.Feasible {
				fmt.Fprintf(stderr, "routebench: %s: %s\n", r.Instance, r.check)
				status = 1
			}
		}
		results = append(results, res...)
	}
	if err := write(stdout, results, opts.json); err != nil {
		fmt.Fprintf(stderr, "routebench: %v\n", err)
		return 1
	}
	return status
}

// parseFlags parses the command line.
func parseFlags(args []string, stderr io.Writer) (options, []string, error) {
	opts := options{refs: refFlag{}}
	fs := flag.NewFlagSet("routebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: routebench [-json] [-ref NAME=VALUE ...] [-seed N] [-iterations N] FILE...")
		fs.PrintDefaults()
	}
	fs.BoolVar(&opts.json, "json", false, "print one JSON object per instance per line")
	fs.Var(opts.refs, "ref", "reference objective of instance NAME (repeatable)")
	fs.BoolVar(&opts.known, "known", false, "take the references of the test-data instances (bench.TOPTWReferences)")
	vehicles := fs.String("vehicles", "1", "numbers of vehicles to solve TOPTW instances for, such as 1,2,3,4")
	fs.Uint64Var(&opts.seed, "seed", 1, "solver seed")
	fs.IntVar(&opts.iterations, "iterations", 0, "solver iterations (0 = solver default)")
	if err := fs.Parse(args); err != nil {
		return opts, nil, err
	}
	for _, f := range strings.Split(*vehicles, ",") {
		m, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || m < 1 || m > 50 {
			fmt.Fprintf(stderr, "routebench: -vehicles: %q is not a number of vehicles from 1 to 50\n", f)
			return opts, nil, errors.New("bad -vehicles")
		}
		opts.vehicles = append(opts.vehicles, m)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return opts, nil, errors.New("no files")
	}
	return opts, fs.Args(), nil
}

// result is one instance's line of output.
type result struct {
	Instance   string   `json:"instance"`
	Format     string   `json:"format"`
	Reference  *float64 `json:"reference"`
	Objective  int64    `json:"objective"`
	GapPercent *float64 `json:"gapPercent"`
	MS         float64  `json:"ms"`
	Feasible   bool     `json:"feasible"`
	// Route is the route of one vehicle; Vehicles and Routes those of a team.
	Route    []int   `json:"route,omitempty"`
	Vehicles int     `json:"vehicles,omitempty"`
	Routes   [][]int `json:"routes,omitempty"`
	check    string  // "feasible" or "INFEASIBLE: why"
}

// runFile parses one file, and solves and verifies it for every number of
// vehicles (TSPLIB instances for one).
func runFile(path string, opts options) ([]result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	in, err := bench.Parse(path, data)
	if err != nil {
		return nil, err
	}
	var results []result
	for _, m := range opts.vehicles {
		if m > 1 && in.Format != bench.TOPTW {
			continue
		}
		res, err := solve(in, m, opts)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// solve solves and verifies an instance with m vehicles.
func solve(in *bench.Instance, m int, opts options) (result, error) {
	if m == 1 {
		return solveOne(in, opts)
	}
	began := time.Now()
	p := in.TeamProblem(m)
	p.Seed, p.Iterations = opts.seed, opts.iterations
	sol, err := solver.SolveTeam(context.Background(), p)
	if err != nil {
		return result{}, err
	}
	res := result{
		Instance: fmt.Sprintf("%s/m%d", in.Name, m), Format: string(in.Format), Objective: sol.Value,
		MS:       math.Round(float64(time.Since(began).Microseconds())/100) / 10,
		Vehicles: m, Routes: in.TeamRoutes(sol),
	}
	res.setReference(in, m, opts)
	res.verifyTeam(in, p, sol)
	return res, nil
}

// solveOne solves and verifies an instance with one vehicle.
func solveOne(in *bench.Instance, opts options) (result, error) {
	began := time.Now()
	p := in.Problem()
	p.Seed, p.Iterations = opts.seed, opts.iterations
	sol, err := solver.Solve(context.Background(), p)
	if err != nil {
		return result{}, err
	}
	res := result{
		Instance: in.Name, Format: string(in.Format),
		Objective: in.Objective(sol),
		MS:        math.Round(float64(time.Since(began).Microseconds())/100) / 10,
		Route:     in.Route(sol),
	}
	res.setReference(in, 1, opts)
	res.verify(in, p, sol)
	return res, nil
}

// setReference fills the reference and gap when one was given for the
// result's name, or is known for the instance with m vehicles (-known).
func (res *result) setReference(in *bench.Instance, m int, opts options) {
	ref, ok := opts.refs[res.Instance]
	if known, found := bench.TOPTWReferences[in.Name]; !ok && opts.known && found && in.Format == bench.TOPTW && m < len(known) {
		ref, ok = known[m].Value, known[m].Value > 0
	}
	if !ok {
		return
	}
	gap := math.Round(in.Gap(float64(res.Objective), ref)*1e4) / 1e4
	res.Reference, res.GapPercent = &ref, &gap
}

// verify re-checks the printed route twice: with solver.Check, which must
// reproduce the solution, and with the instance's own arithmetic, which is
// independent of the solver.
func (res *result) verify(in *bench.Instance, p solver.Problem, sol solver.Solution) {
	order := make([]int, len(sol.Visits))
	for i, v := range sol.Visits {
		order[i] = v.Stop
	}
	checked, err := solver.Check(p, order)
	if err != nil || in.Objective(checked) != res.Objective {
		res.check = fmt.Sprintf("INFEASIBLE: solver.Check gives %d (%v), Solve said %d", in.Objective(checked), err, res.Objective)
		return
	}
	obj, err := in.Verify(res.Route)
	switch {
	case err != nil:
		res.check = "INFEASIBLE: " + err.Error()
	case obj != res.Objective:
		res.check = fmt.Sprintf("INFEASIBLE: objective recomputed as %d, solver says %d", obj, res.Objective)
	default:
		res.Feasible, res.check = true, "feasible"
	}
}

// verifyTeam re-checks a team's routes twice, like verify: with
// solver.CheckTeam and with the instance's own arithmetic, which also checks
// that no customer is on two routes.
func (res *result) verifyTeam(in *bench.Instance, p solver.TeamProblem, sol solver.TeamSolution) {
	orders := make([][]int, len(sol.Routes))
	for k, r := range sol.Routes {
		for _, v := range r.Visits {
			orders[k] = append(orders[k], v.Stop)
		}
	}
	checked, err := solver.CheckTeam(p, orders)
	if err != nil || checked.Value != res.Objective {
		res.check = fmt.Sprintf("INFEASIBLE: solver.CheckTeam gives %d (%v), SolveTeam said %d", checked.Value, err, res.Objective)
		return
	}
	obj, err := in.VerifyTeam(res.Routes)
	switch {
	case err != nil:
		res.check = "INFEASIBLE: " + err.Error()
	case obj != res.Objective:
		res.check = fmt.Sprintf("INFEASIBLE: objective recomputed as %d, solver says %d", obj, res.Objective)
	default:
		res.Feasible, res.check = true, "feasible"
	}
}

// write prints the results as JSON lines or as a table with mean gaps.
func write(w io.Writer, results []result, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	return writeTable(w, results)
}

// writeTable prints one aligned line per instance, then the mean gap of
// each format over the instances with a reference.
func writeTable(w io.Writer, results []result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "instance\tformat\treference\tobjective\tgap%\tms\tcheck")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%.1f\t%s\n", r.Instance, r.Format,
			optional(r.Reference, "%g"), r.Objective, optional(r.GapPercent, "%.2f"), r.MS, r.check)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range []bench.Format{bench.TSPLIB, bench.TOPTW} {
		for m := 1; m <= 50; m++ {
			if mean, n := meanGap(results, string(f), m); n > 0 {
				fmt.Fprintf(w, "mean gap %s%s: %.2f%% over %d instances\n", f, teamLabel(m), mean, n)
			}
		}
	}
	return nil
}

// teamLabel names a number of vehicles in the mean-gap lines ("" for one).
func teamLabel(m int) string {
	if m == 1 {
		return ""
	}
	return fmt.Sprintf(" m=%d", m)
}

// optional formats v, or "-" when it is absent.
func optional(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

// meanGap averages the gaps of the results of one format and number of
// vehicles that have one.
func meanGap(results []result, format string, m int) (float64, int) {
	sum, n := 0.0, 0
	for _, r := range results {
		if r.Format == format && max(r.Vehicles, 1) == m && r.GapPercent != nil {
			sum += *r.GapPercent
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}
