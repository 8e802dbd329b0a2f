package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store/bolt"
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

// required reports the first flag of names that was left empty.
func required(fs *flag.FlagSet, values map[string]string) error {
	for _, name := range sortedKeys(values) {
		if values[name] == "" {
			fmt.Fprintf(fs.Output(), "--%s is required\n", name)
			fs.Usage()
			return errUsage
		}
	}
	return nil
}

// dataFlag adds --data, defaulting to $CONNECT_DATA or ./connect-data.
func dataFlag(fs *flag.FlagSet) *string {
	return fs.String("data", envOr("CONNECT_DATA", "./connect-data"), "data directory holding connect.db (env CONNECT_DATA)")
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// openStore opens the store in dir, with a clear message when a running server
// holds it.
func openStore(dir string) (*bolt.Store, error) {
	s, err := bolt.OpenDir(dir, nil)
	if errors.Is(err, bolt.ErrLocked) {
		return nil, errors.Newf("%s is in use by another process (is connectd serve running?); stop it or use another --data directory", dir)
	}
	return s, err
}

// exitStatus prints err and maps it to the process exit status.
func exitStatus(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	if e := connect.AsError(err); e != nil {
		fmt.Fprintf(stderr, "connectd: %s\n", e.Message)
	} else {
		fmt.Fprintf(stderr, "connectd: %v\n", err)
	}
	return 1
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
