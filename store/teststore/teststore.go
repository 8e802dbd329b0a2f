// Package teststore opens the stores that tests of the services run on, so
// one test suite covers both engines: bbolt, and PostgreSQL when a server is
// available (see store/postgres/pgtest).
//
// A package opts in with Main in its TestMain. Its tests run on bbolt; then
// Main runs the same test binary once more with CONNECT_TEST_STORE=postgres,
// where Open gives PostgreSQL stores. Without a PostgreSQL server that run
// says so in one line (and fails under CONNECT_REQUIRE_POSTGRES=1).
package teststore

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt/bolttest"
	"github.com/integration-connect/connect/store/postgres"
	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// EnvStore names the engine the tests of a process run on: "bolt" (the
// default) or "postgres".
const EnvStore = "CONNECT_TEST_STORE"

// Engine is the engine Open opens in this process.
func Engine() string {
	if os.Getenv(EnvStore) == "postgres" {
		return "postgres"
	}
	return "bolt"
}

// Open opens a new, empty store on Engine() for tb, closed (and for bbolt
// checked) when tb ends.
func Open(tb testing.TB) store.Store {
	tb.Helper()
	if Engine() == "bolt" {
		return bolttest.Open(tb)
	}
	return OpenPostgres(tb, pgtest.URL(tb))
}

// OpenPostgres opens a PostgreSQL store on url, closed when tb ends. Tests of
// replicas open two on one url.
func OpenPostgres(tb testing.TB, url string) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		tb.Fatalf("opening a PostgreSQL test store: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("closing the PostgreSQL test store: %v", err)
		}
	})
	return s
}

// Main runs m on bbolt and then, in a second run of the test binary, on
// PostgreSQL; it returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(teststore.Main(m)) }
func Main(m *testing.M) int {
	if Engine() == "postgres" {
		return onPostgres(m)
	}
	code := m.Run()
	if fuzzing() {
		return code // a fuzz run (or one of its workers) explores inputs, not stores
	}
	cmd := exec.Command(os.Args[0], secondPassArgs(os.Args[1:])...)
	cmd.Env = append(os.Environ(), EnvStore+"=postgres")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	dieWithParent(cmd) // go test kills only this process when it times out
	if err := cmd.Run(); err != nil {
		return max(code, 1)
	}
	return code
}

// secondPassArgs are the test flags for the PostgreSQL pass: the same, but
// its profiles go to files of their own instead of overwriting the first
// pass's.
func secondPassArgs(args []string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = arg
		for _, name := range []string{"coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace"} {
			if prefix := "-test." + name + "="; strings.HasPrefix(arg, prefix) {
				out[i] = arg + ".postgres"
			}
		}
	}
	return out
}

// onPostgres is the second run: m on PostgreSQL, or one line saying why not.
func onPostgres(m *testing.M) int {
	if !pgtest.Available() {
		if os.Getenv(pgtest.EnvRequire) == "1" {
			fmt.Fprintf(os.Stderr, "%s=1 but no PostgreSQL server is available\n", pgtest.EnvRequire)
			return 1
		}
		fmt.Println(pgtest.SkipMessage)
		return 0
	}
	fmt.Println("=== the same tests on PostgreSQL")
	return pgtest.Main(m)
}

// fuzzing reports whether this test binary runs with -fuzz, as the
// coordinator of a fuzz run or as one of its workers.
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}
