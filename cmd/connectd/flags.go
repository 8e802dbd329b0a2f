package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
)

// errUsage marks an error in the command line (exit status 2).
var errUsage = errors.New("usage error")

// errHelp means --help was asked for and answered (exit status 0).
var errHelp = flag.ErrHelp

// newFlags returns a flag set that writes its usage to stderr and reports errors
// instead of exiting.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: connectd %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, refusing leftover arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
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

// admin is the flag set of an admin command: --data, which every one has, and
// the flags the command declares. parse checks the required ones, in the order
// they were declared.
type admin struct {
	*flag.FlagSet
	where    location
	required []requiredFlag
}

// requiredFlag is a flag that must be given.
type requiredFlag struct {
	name  string
	given func() bool
}

// newAdmin returns the flag set of an admin command with --data.
func newAdmin(name, synopsis string, stderr io.Writer) *admin {
	a := &admin{FlagSet: newFlags(name, synopsis, stderr)}
	a.where.register(a.FlagSet, "data directory holding connect.db")
	return a
}

// requiredString declares a string flag that must not be empty.
func (a *admin) requiredString(name, usage string) *string {
	v := a.String(name, "", usage+" (required)")
	a.required = append(a.required, requiredFlag{name, func() bool { return *v != "" }})
	return v
}

// requiredID declares a positive id flag that must be given.
func (a *admin) requiredID(name, usage string) *int64 {
	v := a.Int64(name, 0, usage+" (required)")
	a.required = append(a.required, requiredFlag{name, func() bool { return *v > 0 }})
	return v
}

// tenant declares the required --tenant.
func (a *admin) tenant() *string { return a.requiredString("tenant", "tenant id") }

// parse parses args and checks that the required flags were given.
func (a *admin) parse(args []string) error {
	if err := parse(a.FlagSet, args); err != nil {
		return err
	}
	for _, r := range a.required {
		if !r.given() {
			fmt.Fprintf(a.Output(), "--%s is required\n", r.name)
			a.Usage()
			return errUsage
		}
	}
	return nil
}

// subcommand is one command of a group, such as "keys create".
type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// group dispatches "connectd <name> <command>"; without a command or with
// --help it lists the group's commands.
func group(name, synopsis string, subs ...subcommand) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) == 0 || isHelp(args[0]) {
			fmt.Fprintf(stderr, "Usage: connectd %s\n\n", synopsis)
			for _, s := range subs {
				fmt.Fprintf(stderr, "  %-14s %s\n", s.name, s.summary)
			}
			fmt.Fprintf(stderr, "\nRun 'connectd %s <command> --help' for its flags.\n", name)
			if len(args) == 0 {
				return errUsage
			}
			return nil
		}
		for _, s := range subs {
			if s.name == args[0] {
				return s.run(ctx, args[1:], stdout, stderr)
			}
		}
		fmt.Fprintf(stderr, "connectd %s: unknown command %q\n", name, args[0])
		return errUsage
	}
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
