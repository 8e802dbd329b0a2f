package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLI runs a connectd command line in process.
func runCLI(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = run(context.Background(), args, &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestCommandLine(t *testing.T) {
	data := t.TempDir()
	tests := []struct {
		args       []string
		wantStatus int
		wantOut    string // in stdout or stderr
	}{
		{nil, 2, "Usage: connectd <command>"},
		{[]string{"--help"}, 0, "Commands:"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"version"}, 0, "connectd dev"},
		{[]string{"version", "--help"}, 0, "Usage: connectd version"},
		{[]string{"serve", "--help"}, 0, "--metrics-addr"},
		{[]string{"keys"}, 2, "keys create|list|revoke"},
		{[]string{"keys", "--help"}, 0, "create  create a client"},
		{[]string{"keys", "create", "--help"}, 0, "--source-system"},
		{[]string{"keys", "list", "--help"}, 0, "--tenant"},
		{[]string{"keys", "revoke", "--help"}, 0, "--client"},
		{[]string{"keys", "create", "--tenant", "t", "--data", data}, 2, "--client is required"},
		{[]string{"keys", "create", "--tenant", "t", "--client", "c", "--source-system", "s", "--scopes", "import_jobs.raed", "--data", data}, 1, `unknown scope "import_jobs.raed"`},
		{[]string{"keys", "revoke", "--tenant", "t", "--client", "nobody", "--data", data}, 1, `tenant "t" has no client "nobody"`},
		{[]string{"keys", "list", "extra", "--data", data}, 2, `unexpected argument "extra"`},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined: -bogus"},
	}
	for _, tc := range tests {
		status, out, errOut := runCLI(t, tc.args...)
		if status != tc.wantStatus || !strings.Contains(out+errOut, tc.wantOut) {
			t.Errorf("connectd %s: status %d, output %q%q; want %d and %q", strings.Join(tc.args, " "), status, out, errOut, tc.wantStatus, tc.wantOut)
		}
	}
}

func TestKeysLifecycle(t *testing.T) {
	data := t.TempDir()
	status, out, errOut := runCLI(t, "keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "sap", "--scopes", "import_jobs.read,customers.map", "--data", data)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	if status != 0 || !strings.HasPrefix(key, "ick_") || len(key) != 47 {
		t.Fatalf("keys create: %d %q %q", status, out, errOut)
	}
	status, out, _ = runCLI(t, "keys", "list", "--data", data)
	if status != 0 || !strings.Contains(out, "acme") || !strings.Contains(out, key[:8]+"…") || strings.Contains(out, key) || !strings.Contains(out, "import_jobs.read,customers.map") {
		t.Errorf("keys list: %d\n%s", status, out)
	}
	if status, _, errOut := runCLI(t, "keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "sap", "--scopes", "import_jobs.read", "--data", data); status != 1 || !strings.Contains(errOut, "already has a client") {
		t.Errorf("duplicate client: %d %s", status, errOut)
	}
	if status, out, _ := runCLI(t, "keys", "revoke", "--tenant", "acme", "--client", "erp", "--data", data); status != 0 || !strings.Contains(out, "Revoked") {
		t.Errorf("keys revoke: %d %s", status, out)
	}
	_, out, _ = runCLI(t, "keys", "list", "--tenant", "acme", "--data", data)
	rows := strings.Split(strings.TrimSpace(out), "\n")
	fields := strings.Fields(rows[len(rows)-1])
	if len(rows) != 2 || fields[len(fields)-1] == "-" {
		t.Errorf("revocation time not listed:\n%s", out)
	}
}
