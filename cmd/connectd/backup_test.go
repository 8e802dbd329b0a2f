package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/teststore"
)

func TestBackupAndCompactCommandLine(t *testing.T) {
	data, out := t.TempDir(), filepath.Join(t.TempDir(), "copy.db")
	pg := "postgres://connect@db.example:5432/connect"
	tests := []struct {
		args       []string
		wantStatus int
		wantOut    string // in stdout or stderr
	}{
		{[]string{"backup", "--data", data}, 2, "--out is required"},
		{[]string{"compact", "--data", data}, 2, "--out is required"},
		{[]string{"backup", "--out", out, "--database-url", pg}, 1, "backups are the database's own: pg_dump"},
		{[]string{"compact", "--out", out, "--database-url", pg}, 1, "backups are the database's own: pg_dump"},
		{[]string{"compact", "--out", filepath.Join(data, "connect.db"), "--data", data}, 2, "--out must name a new file"},
		{[]string{"compact", "--out", out, "--data", filepath.Join(data, "missing")}, 1, "no store at " + filepath.Join(data, "missing", "connect.db")},
		{[]string{"backup", "--out", out, "--data", filepath.Join(data, "missing")}, 1, "no store at " + filepath.Join(data, "missing", "connect.db")},
		{[]string{"serve", "--job-retention", "-1d"}, 2, "want a duration such as 90d, 36h or 0"},
		{[]string{"serve", "--job-retention", "90 days"}, 2, "want a duration such as 90d, 36h or 0"},
		{[]string{"serve", "--help"}, 0, "--job-retention 90d\n    \thow long import jobs are kept"},
	}
	for _, tc := range tests {
		status, stdout, stderr := runCLI(t, tc.args...)
		if status != tc.wantStatus || !strings.Contains(stdout+stderr, tc.wantOut) {
			t.Errorf("connectd %s: status %d, output %q%q; want %d and %q", strings.Join(tc.args, " "), status, stdout, stderr, tc.wantStatus, tc.wantOut)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused command left %s: %v", out, err)
	}
}

// TestBackupAndCompactWithoutServer: both commands open the file themselves
// when no server runs; the copies serve the same data. compact refuses a
// file in use, backup replaces an older copy.
func TestBackupAndCompactWithoutServer(t *testing.T) {
	boltOnly(t)
	data, copies := dataDir(t), t.TempDir()
	if status, _, errOut := runCLI(t, "keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "sap", "--scopes", "import_jobs.read", "--data", data); status != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	backup, compacted := filepath.Join(copies, "backup.db"), filepath.Join(copies, "compacted.db")
	if err := os.WriteFile(backup, []byte("an older copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"backup", "--out", backup, "--data", data},
		{"compact", "--out", compacted, "--data", data},
	} {
		status, stdout, stderr := runCLI(t, args...)
		if status != 0 || !strings.Contains(stdout, "copy of") || (stderr != "" && stderr != "Store: "+filepath.Join(data, bolt.FileName)+"\n") {
			t.Errorf("connectd %s: %d %q %q", strings.Join(args, " "), status, stdout, stderr)
		}
	}
	for _, file := range []string{backup, compacted} {
		served := t.TempDir()
		if err := os.Rename(file, filepath.Join(served, bolt.FileName)); err != nil {
			t.Fatal(err)
		}
		if status, stdout, stderr := runCLI(t, "keys", "list", "--data", served); status != 0 || !strings.Contains(stdout, "erp") {
			t.Errorf("keys list on %s: %d %q %q", filepath.Base(file), status, stdout, stderr)
		}
	}
	if entries, _ := os.ReadDir(copies); len(entries) != 0 {
		t.Errorf("temporary files left beside the copies: %v", entries)
	}
	s, err := bolt.OpenDir(data, nil) // as a server would hold it
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	status, _, stderr := runCLI(t, "compact", "--out", compacted, "--data", data)
	if status != 1 || !strings.Contains(stderr, "is in use (is connectd serve running?)") {
		t.Errorf("compact of a file in use: %d %q", status, stderr)
	}
}

// boltOnly skips the PostgreSQL pass of a test of the bbolt file's commands:
// with PostgreSQL they only explain (TestBackupAndCompactCommandLine).
func boltOnly(t *testing.T) {
	if teststore.Engine() == "postgres" {
		t.Skip("backup and compact copy the bbolt file; PostgreSQL backups are the database's own")
	}
}
