package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/teststore"
)

// TestMain runs every test of the package with the bbolt store and then with
// PostgreSQL (see dataDir).
func TestMain(m *testing.M) { os.Exit(teststore.Main(m)) }

// dataDir returns the data directory of a new store for a test's commands,
// created as an operator creates one, with connectd migrate. In the
// PostgreSQL pass it also points CONNECT_DATABASE_URL, which wins over --data
// in every command and in the binaries the test starts, at a new schema.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := emptyDataDir(t)
	if status, _, errOut := runCLI(t, "migrate", "--data", dir); status != 0 {
		t.Fatalf("connectd migrate: %d %s", status, errOut)
	}
	return dir
}

// emptyDataDir is dataDir without a store in it: the directory (and in the
// PostgreSQL pass the database) an operator has not set up yet.
func emptyDataDir(t *testing.T) string {
	t.Helper()
	if teststore.Engine() == "postgres" {
		t.Setenv("CONNECT_DATABASE_URL", pgtest.URL(t))
	}
	return filepath.Join(t.TempDir(), "data")
}

// TestAdminCommandsNeverCreateAStore: every admin command against a data
// directory (or database) without a store fails with exit status 1, naming
// where it looked and the flags and variables that choose a store, and
// leaves nothing behind; migrate creates the store, and then each command
// names the store it used.
func TestAdminCommandsNeverCreateAStore(t *testing.T) {
	data := emptyDataDir(t)
	where := location{dataDir: data, databaseURL: os.Getenv("CONNECT_DATABASE_URL")}
	commands := [][]string{
		{"keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "erp", "--scopes", "import_jobs.read"},
		{"keys", "list"},
		{"keys", "revoke", "--tenant", "acme", "--client", "erp"},
		{"mapping", "show", "--tenant", "acme"},
		{"customers", "list", "--tenant", "acme"},
		{"profiles", "list", "--tenant", "acme"},
		{"employees", "list", "--tenant", "acme"},
		{"webhooks", "list"},
	}
	if !where.shared() {
		commands = append(commands, []string{"backup", "--out", filepath.Join(t.TempDir(), "copy.db")})
	}
	for _, args := range commands {
		status, out, errOut := runCLI(t, append(args, "--data", data)...)
		want := "no store at " + where.describe()
		if where.shared() {
			want = "no store in " + where.describe()
		}
		if status != 1 || out != "" || !strings.Contains(errOut, want) ||
			!strings.Contains(errOut, "--data DIR (or CONNECT_DATA)") || !strings.Contains(errOut, "--database-url URL (or CONNECT_DATABASE_URL)") {
			t.Errorf("connectd %s without a store: %d %q %q; want 1 and %q", strings.Join(args, " "), status, out, errOut, want)
		}
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused commands left %s behind: %v", data, err)
	}

	status, out, _ := runCLI(t, "migrate", "--data", data)
	if status != 0 || out != "The store "+where.describe()+" has the schema of connectd dev.\n" {
		t.Fatalf("migrate: %d %q", status, out)
	}
	status, out, errOut := runCLI(t, "keys", "list", "--data", data)
	if status != 0 || !strings.HasPrefix(out, "TENANT") || errOut != "Store: "+where.describe()+"\n" {
		t.Errorf("keys list after migrate: %d %q %q", status, out, errOut)
	}
}

// TestStoreDescription: output names the bbolt file by its absolute path and
// a database by name, host and user, never its password.
func TestStoreDescription(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	tests := []struct {
		where location
		want  string
	}{
		{location{dataDir: "./connect-data"}, filepath.Join(dir, "connect-data", "connect.db")},
		{location{databaseURL: "postgres://connect:s3cret@db.internal:5433/connect?sslmode=require"}, `PostgreSQL database "connect" on db.internal:5433 as "connect"`},
		{location{databaseURL: "host=/var/run/postgresql dbname=connect user=connect password=s3cret"}, `PostgreSQL database "connect" on /var/run/postgresql:5432 as "connect"`},
	}
	for _, tc := range tests {
		if got := tc.where.describe(); got != tc.want || strings.Contains(got, "s3cret") {
			t.Errorf("describe(%+v) = %q, want %q", tc.where, got, tc.want)
		}
	}
}
