package main

import (
	"os"
	"path/filepath"
	"testing"

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
