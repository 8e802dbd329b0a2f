// Command routebench runs the route optimizer core on benchmark instances
// and reports, per instance, the objective reached, the gap to a reference
// value, the solve time and a feasibility check of the route (by
// solver.Check and by the benchmark's own, independent arithmetic).
//
// Usage:
//
//	routebench [-json] [-ref NAME=VALUE ...] [-seed N] [-iterations N] FILE...
//
// The format of each file is recognised from its content: TSPLIB (EUC_2D
// symmetric TSP, objective = tour length, minimized) or KU Leuven TOPTW (one
// vehicle, objective = collected score, maximized). A bad file is reported on
// stderr and the other files are still processed; the exit status is 1 when
// any file was bad or any route failed the check, 2 on a usage error.
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
		if !res.Feasible {
			fmt.Fprintf(stderr, "routebench: %s: %s\n", path, res.check)
			status = 1
		}
		results = append(results, res)
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
	fs.Uint64Var(&opts.seed, "seed", 1, "solver seed")
	fs.IntVar(&opts.iterations, "iterations", 0, "solver iterations (0 = solver default)")
	if err := fs.Parse(args); err != nil {
		return opts, nil, err
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
	Route      []int    `json:"route"`
	check      string   // "feasible" or "INFEASIBLE: why"
}

// runFile parses, solves and verifies one file.
func runFile(path string, opts options) (result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return result{}, err
	}
	in, err := bench.Parse(path, data)
	if err != nil {
		return result{}, err
	}
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
	res.setReference(in, opts.refs)
	res.verify(in, p, sol)
	return res, nil
}

// setReference fills the reference and gap when one was given for the
// instance name.
func (res *result) setReference(in *bench.Instance, refs refFlag) {
	ref, ok := refs[in.Name]
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
		if mean, n := meanGap(results, string(f)); n > 0 {
			fmt.Fprintf(w, "mean gap %s: %.2f%% over %d instances\n", f, mean, n)
		}
	}
	return nil
}

// optional formats v, or "-" when it is absent.
func optional(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

// meanGap averages the gaps of the results of one format that have one.
func meanGap(results []result, format string) (float64, int) {
	sum, n := 0.0, 0
	for _, r := range results {
		if r.Format == format && r.GapPercent != nil {
			sum += *r.GapPercent
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}
