package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/teststore"
)

// TestMain runs every test of the package with the bbolt store and then with
// PostgreSQL (see dataDir).
func TestMain(m *testing.M) { os.Exit(teststore.Main(m)) }

// dataDir returns a new data directory for a test's commands. In the
// PostgreSQL pass it also points CONNECT_DATABASE_URL, which wins over --data
// in every command and in the binaries the test starts, at a new empty schema.
func dataDir(t *testing.T) string {
	t.Helper()
	if teststore.Engine() == "postgres" {
		t.Setenv("CONNECT_DATABASE_URL", pgtest.URL(t))
	}
	return filepath.Join(t.TempDir(), "data")
}

// receive waits for a value from ch and fails the test after 30 s: a test
// never waits on another goroutine without a deadline of its own.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("waited 30 s for %s", what)
		panic("unreachable")
	}
}
