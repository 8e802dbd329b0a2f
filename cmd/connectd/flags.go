package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
)

// errUsage marks an error in the command line (exit status 2); its message and
// the usage have been printed.
var errUsage = errors.New("usage error")

// errHelp means --help was asked for and answered (exit status 0).
var errHelp = flag.ErrHelp

// flagSet is the flag set of one command. It prints the command's help with
// the --flag spelling of the README: to stdout on --help, to stderr after a
// usage error. Admin commands also have the location flags (--data) and
// name their flags, never the library's field names, in messages.
type flagSet struct {
	*flag.FlagSet
	synopsis       string
	stdout, stderr io.Writer
	where          location
	required       []requiredFlag
	// fields maps library field names a flag's value lands in to that flag,
	// where the names are not the flag's name in camelCase.
	fields map[string]string
}

// requiredFlag is a flag that must be given.
type requiredFlag struct {
	name  string
	given func() bool
}

// newFlags returns the flag set of a command; synopsis is its usage line
// after "connectd ".
func newFlags(synopsis string, stdout, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet(synopsis, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse words the errors itself
	return &flagSet{FlagSet: fs, synopsis: synopsis, stdout: stdout, stderr: stderr, fields: map[string]string{}}
}

// newAdmin returns the flag set of an admin command, with --data.
func newAdmin(synopsis string, stdout, stderr io.Writer) *flagSet {
	f := newFlags(synopsis, stdout, stderr)
	f.where.register(f.FlagSet, "data directory holding connect.db")
	return f
}

// requiredString declares a string flag that must not be empty.
func (f *flagSet) requiredString(name, usage string) *string {
	v := f.String(name, "", usage+" (required)")
	f.required = append(f.required, requiredFlag{name, func() bool { return *v != "" }})
	return v
}

// requiredID declares a positive id flag that must be given.
func (f *flagSet) requiredID(name, usage string) *int64 {
	v := f.Int64(name, 0, usage+" (required)")
	f.required = append(f.required, requiredFlag{name, func() bool { return *v > 0 }})
	return v
}

// tenant declares the required --tenant.
func (f *flagSet) tenant() *string {
	f.feeds("tenant", "tenantId")
	return f.requiredString("tenant", "tenant id")
}

// feeds records that the library calls the value of flag field, for messages.
func (f *flagSet) feeds(flag, field string) { f.fields[field] = flag }

// parse parses args, refusing leftover arguments and naming every missing
// required flag at once.
func (f *flagSet) parse(args []string) error {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage(f.stdout)
			return errHelp
		}
		return f.usageError("%s", dashes(err.Error()))
	}
	if f.NArg() > 0 {
		return f.usageError("unexpected argument %q", f.Arg(0))
	}
	var missing []string
	for _, r := range f.required {
		if !r.given() {
			missing = append(missing, "--"+r.name)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return f.usageError("%s is required", missing[0])
	}
	return f.usageError("%s and %s are required", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])
}

// usageError prints a problem of the command line and the usage to stderr and
// returns errUsage.
func (f *flagSet) usageError(format string, args ...any) error {
	fmt.Fprintf(f.stderr, "connectd %s: %s\n\n", f.Name(), fmt.Sprintf(format, args...))
	f.printUsage(f.stderr)
	return errUsage
}

// Name is the command's name: the words of the synopsis before its flags.
func (f *flagSet) Name() string {
	var words []string
	for _, w := range strings.Fields(f.synopsis) {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// printUsage prints the usage line and every flag, spelled --flag.
func (f *flagSet) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: connectd %s\n", f.synopsis)
	first := true
	f.VisitAll(func(fl *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nFlags:")
			first = false
		}
		value, usage := flag.UnquoteUsage(fl)
		if value != "" {
			value = " " + f.valueName(fl.Name, value)
		}
		fmt.Fprintf(w, "  --%s%s\n    \t%s", fl.Name, value, usage)
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", fl.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// valueName is what the usage line calls a flag's value ("DIR" for
// "--data DIR"), else the flag package's name for its type, in upper case.
func (f *flagSet) valueName(flagName, typeName string) string {
	words := strings.Fields(f.synopsis)
	for i, w := range words {
		if strings.TrimPrefix(w, "[") == "--"+flagName && i+1 < len(words) {
			return strings.TrimRight(words[i+1], "]")
		}
	}
	return strings.ToUpper(typeName)
}

// dashDash finds the flag names the flag package spells with one dash.
var dashDash = regexp.MustCompile(`(^|[\s:])-([A-Za-z][\w-]*)`)

// dashes respells the flag package's "-name" as "--name".
func dashes(msg string) string { return dashDash.ReplaceAllString(msg, "$1--$2") }

// explain turns an InvalidRequest of the library that names one of the
// command's flags through its field ("timeZone must be …", "kinds[0] is …")
// into a usage error naming the flag instead; field names of other flags in
// the message are respelled too. Any other error passes unchanged.
func (f *flagSet) explain(err error) error {
	e := connect.AsError(err)
	if e == nil || e.Code != connect.CodeInvalidRequest {
		return err
	}
	fields := f.fieldNames()
	path, rest, _ := strings.Cut(e.Message, " ")
	name, ok := fields[path]
	if root := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' }); !ok && len(root) > 0 {
		name, ok = fields[root[0]]
	}
	if !ok || !(strings.HasPrefix(rest, "must ") || strings.HasPrefix(rest, "is ")) {
		return err
	}
	msg := "--" + name + " " + rest
	for field, flagName := range fields {
		if strings.IndexFunc(field, unicode.IsUpper) > 0 {
			msg = regexp.MustCompile(`\b`+regexp.QuoteMeta(field)+`\b`).ReplaceAllString(msg, "--"+flagName)
		}
	}
	return f.usageError("%s", msg)
}

// fieldNames maps library field names to flags: each flag's name in
// camelCase (time-zone: timeZone), and the names given with feeds.
func (f *flagSet) fieldNames() map[string]string {
	names := map[string]string{}
	f.VisitAll(func(fl *flag.Flag) { names[camelCase(fl.Name)] = fl.Name })
	for field, name := range f.fields {
		names[field] = name
	}
	return names
}

func camelCase(name string) string {
	parts := strings.Split(name, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// choice is a flag whose value is one of a few names.
type choice struct {
	value   string
	allowed []string
}

func (c *choice) String() string { return c.value }

func (c *choice) Set(v string) error {
	if !slices.Contains(c.allowed, v) {
		return fmt.Errorf("want %s", strings.Join(c.allowed, ", "))
	}
	c.value = v
	return nil
}

// days is a duration flag that also takes whole days ("90d"), the unit
// retention periods are thought in; negative values are refused.
type days struct{ value time.Duration }

func (d *days) String() string {
	if d.value > 0 && d.value%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d.value/(24*time.Hour)), 10) + "d"
	}
	return d.value.String()
}

func (d *days) Set(v string) error {
	var err error
	var n int
	if before, ok := strings.CutSuffix(v, "d"); ok {
		n, err = strconv.Atoi(before)
		d.value = time.Duration(n) * 24 * time.Hour
	} else {
		d.value, err = time.ParseDuration(v)
	}
	if err != nil || d.value < 0 {
		return errors.New("want a duration such as 90d, 36h or 0")
	}
	return nil
}

// subcommand is one command of a group, such as "keys create".
type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// group is a command with subcommands, "connectd <name> <command>".
type group struct {
	name, synopsis string
	subs           []subcommand
}

// run dispatches to a subcommand. --help lists the subcommands on stdout; no
// subcommand, or an unknown one, is a usage error listing them on stderr.
func (g group) run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && isHelp(args[0]):
		g.usage(stdout)
		return nil
	case len(args) == 0:
		fmt.Fprintf(stderr, "connectd %s: a command is required\n\n", g.name)
		g.usage(stderr)
		return errUsage
	}
	for _, s := range g.subs {
		if s.name == args[0] {
			return s.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "connectd %s: unknown command %q; the commands are %s\n\n", g.name, args[0], strings.Join(g.names(), ", "))
	g.usage(stderr)
	return errUsage
}

func (g group) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: connectd %s\n\n", g.synopsis)
	for _, s := range g.subs {
		fmt.Fprintf(w, "  %-14s %s\n", s.name, s.summary)
	}
	fmt.Fprintf(w, "\nRun 'connectd %s <command> --help' for its flags.\n", g.name)
}

func (g group) names() []string {
	names := make([]string, len(g.subs))
	for i, s := range g.subs {
		names[i] = s.name
	}
	return names
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// exitStatus prints err and maps it to the process exit status.
func exitStatus(err error, stderr io.Writer) int {
	var remote exitStatusError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.As(err, &remote):
		return int(remote)
	}
	if e := connect.AsError(err); e != nil {
		fmt.Fprintf(stderr, "connectd: %s\n", e.Message)
	} else {
		fmt.Fprintf(stderr, "connectd: %v\n", err)
	}
	return 1
}
