package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
)

// runCLI runs a connectd command line in process.
func runCLI(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = run(context.Background(), args, &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestCommandLine(t *testing.T) {
	data := dataDir(t)
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
		{[]string{"--version"}, 0, "connectd dev ("},
		{[]string{"serve", "--help"}, 0, "--metrics-addr"},
		{[]string{"keys"}, 2, "keys create|list|set-scopes|revoke"},
		{[]string{"keys", "--help"}, 0, "revoke         revoke a client's key"},
		{[]string{"keys", "create", "--help"}, 0, "--source-system"},
		{[]string{"keys", "list", "--help"}, 0, "--tenant"},
		{[]string{"keys", "revoke", "--help"}, 0, "--client"},
		{[]string{"keys", "create", "--tenant", "t", "--data", data}, 2, "--client, --source-system and --scopes are required"},
		{[]string{"keys", "create", "--tenant", "t", "--client", "c", "--source-system", "s", "--scopes", "import_jobs.raed", "--data", data}, 2, `--scopes: unknown scope "import_jobs.raed"`},
		{[]string{"keys", "revoke", "--tenant", "t", "--client", "nobody", "--data", data}, 1, `tenant "t" has no client "nobody"`},
		{[]string{"keys", "create", "--tenant", "t", "--client", "hooks", "--source-system", "s", "--scopes", "webhooks.manage", "--data", data}, 0, "with scopes webhooks.manage"},
		{[]string{"keys", "list", "extra", "--data", data}, 2, `unexpected argument "extra"`},
		{[]string{"keys", "create", "--tenant", strings.Repeat("t", 201), "--client", "c", "--source-system", "s", "--scopes", "customers.map", "--data", data}, 2, "--tenant must be at most 200 characters"},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined: --bogus"},
	}
	for _, tc := range tests {
		status, out, errOut := runCLI(t, tc.args...)
		if status != tc.wantStatus || !strings.Contains(out+errOut, tc.wantOut) {
			t.Errorf("connectd %s: status %d, output %q%q; want %d and %q", strings.Join(tc.args, " "), status, out, errOut, tc.wantStatus, tc.wantOut)
		}
	}
}

func TestKeysLifecycle(t *testing.T) {
	data := dataDir(t)
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
	status, out, errOut = runCLI(t, "keys", "set-scopes", "--tenant", "acme", "--client", "erp", "--scopes", "import_jobs.read,inbound.targets.write", "--data", data)
	if status != 0 || out != "Client \"erp\" of tenant \"acme\" now has the scopes import_jobs.read,inbound.targets.write, from its key's next request on.\n" ||
		!strings.Contains(errOut, `msg="client scopes changed" tenantId=acme clientId=erp from="[import_jobs.read customers.map]" to="[import_jobs.read inbound.targets.write]"`) {
		t.Errorf("keys set-scopes: %d %q %q", status, out, errOut)
	}
	for _, tc := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"--client", "erp", "--scopes", "imports.all"}, 2, `--scopes: unknown scope "imports.all"`},
		{[]string{"--client", "crm", "--scopes", "import_jobs.read"}, 1, `tenant "acme" has no client "crm"`},
	} {
		if status, _, errOut := runCLI(t, append(append([]string{"keys", "set-scopes", "--tenant", "acme"}, tc.args...), "--data", data)...); status != tc.status || !strings.Contains(errOut, tc.want) {
			t.Errorf("keys set-scopes %v: %d %q; want %d %q", tc.args, status, errOut, tc.status, tc.want)
		}
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

func TestMappingAndCustomerCommands(t *testing.T) {
	data := dataDir(t)
	status, out, _ := runCLI(t, "mapping", "show", "--tenant", "acme", "--data", data)
	if status != 0 || !strings.Contains(out, "auto-create-customers=true") || !strings.Contains(out, "auto-create-contacts=true") {
		t.Errorf("mapping show: %d\n%s", status, out)
	}
	status, out, _ = runCLI(t, "mapping", "set", "--tenant", "acme", "--auto-create-locations=false", "--data", data)
	if status != 0 || !strings.Contains(out, "auto-create-locations=false") || !strings.Contains(out, "auto-create-customers=true") {
		t.Errorf("mapping set: %d\n%s", status, out)
	}
	if status, _, errOut := runCLI(t, "mapping", "set", "--tenant", "acme", "--auto-create-contacts=maybe", "--data", data); status != 2 {
		t.Errorf("mapping set with a bad boolean: %d %s", status, errOut)
	}

	importWithMapping(t, data)
	status, out, _ = runCLI(t, "customers", "list", "--tenant", "acme", "--data", data)
	if status != 0 || !strings.Contains(out, "CUST-1") || !strings.Contains(out, "Active") || !strings.Contains(out, "(1 of 1 customers)") {
		t.Fatalf("customers list: %d\n%s", status, out)
	}
	for _, step := range []struct{ verb, want string }{{"archive", "Archived"}, {"block", "Blocked"}, {"reactivate", "Active"}} {
		status, out, errOut := runCLI(t, "customers", step.verb, "--tenant", "acme", "--id", "1", "--data", data)
		if status != 0 || !strings.Contains(out, "is "+step.want) {
			t.Errorf("customers %s: %d %s %s", step.verb, status, out, errOut)
		}
	}
	if status, _, errOut := runCLI(t, "customers", "archive", "--tenant", "globex", "--id", "1", "--data", data); status != 1 || !strings.Contains(errOut, `tenant "globex" has no customer 1`) {
		t.Errorf("another tenant's customer: %d %s", status, errOut)
	}
	if status, _, errOut := runCLI(t, "customers", "block", "--tenant", "acme", "--data", data); status != 2 || !strings.Contains(errOut, "--id is required") {
		t.Errorf("customers block without --id: %d %s", status, errOut)
	}
}

// importWithMapping imports one target with a customer into the store in data,
// through the library, as a source system holding customers.map would.
func importWithMapping(t *testing.T, data string) {
	t.Helper()
	s, err := location{dataDir: data, databaseURL: os.Getenv("CONNECT_DATABASE_URL")}.open(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	caller := connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "erp", Scopes: []connect.Scope{connect.ScopeTargetsWrite, connect.ScopeCustomersMap}}
	out, err := importer.New(importer.Config{Store: s}).ImportTargetJSON(context.Background(), caller,
		[]byte(`{"externalId":"WO-1","title":"x","customer":{"externalId":"CUST-1","name":"Müller"}}`), connect.WriteOptions{})
	if err != nil || out.Result.Items[0].CustomerMapping.Status != connect.MappingCreated {
		t.Fatalf("import: %v %+v", err, out.Result)
	}
}

func TestProfileAndEmployeeCommands(t *testing.T) {
	data := dataDir(t)
	steps := []struct {
		args       []string
		wantStatus int
		want       string
	}{
		{[]string{"profiles", "add", "--tenant", "acme", "--name", "Berlin vans", "--speed", "32", "--time-zone", "Europe/Berlin", "--shift-start", "07:00", "--break", "30,11:30-13:30"}, 0, "Created optimization profile 1"},
		{[]string{"profiles", "add", "--tenant", "acme", "--name", "x", "--time-zone", "Berlin"}, 2, "--time-zone must be an IANA time zone"},
		{[]string{"profiles", "add", "--tenant", "acme", "--name", "Estimates", "--great-circle"}, 0, "Created optimization profile 2"},
		{[]string{"profiles", "list", "--tenant", "acme"}, 0, "Berlin vans  32"},
		{[]string{"profiles", "list", "--tenant", "acme"}, 0, "07:00-17:00  Europe/Berlin  30,11:30-13:30  -\n"},
		{[]string{"profiles", "list", "--tenant", "acme"}, 0, "UTC            -               greatCircle\n"},
		{[]string{"profiles", "add", "--tenant", "acme", "--name", "x", "--break", "lunch"}, 2, "want MINUTES,HH:MM-HH:MM"},
		{[]string{"profiles", "add", "--tenant", "acme", "--name", "x", "--break", "30,13:30-11:30"}, 2, "--break is 11:30, before break.earliest 13:30"},
		{[]string{"profiles", "add", "--tenant", "acme", "--name", "x", "--break", "0,11:30-13:30"}, 2, "--break must be between 5 and 240"},
		{[]string{"employees", "set", "--tenant", "acme", "--id", "tech-1", "--name", "Jo", "--start", "52.45,13.30", "--break", "45,12:00-14:00", "--profile", "Berlin vans"}, 0, `Saved employee "tech-1"`},
		{[]string{"employees", "set", "--tenant", "acme", "--id", "tech-3"}, 0, `Saved employee "tech-3"`},
		{[]string{"employees", "set", "--tenant", "acme", "--id", "tech-2", "--profile", "Night shift"}, 1, `tenant "acme" has no optimization profile named "Night shift"`},
		{[]string{"employees", "list", "--tenant", "acme"}, 0, "\ntech-3  -     -           -    -            -          -               -\n"},
		{[]string{"employees", "set", "--tenant", "acme", "--id", "tech-2", "--start", "north"}, 2, "want LAT,LON"},
		{[]string{"employees", "set", "--tenant", "acme", "--id", "tech-2", "--profile", "9"}, 1, "no optimization profile 9"},
		{[]string{"employees", "list", "--tenant", "acme"}, 0, "tech-1  Jo    52.45,13.3"},
		{[]string{"employees", "list", "--tenant", "acme"}, 0, "45,12:00-14:00  1\n"},
		{[]string{"employees", "remove", "--tenant", "acme", "--id", "tech-1"}, 0, "Removed employee"},
		{[]string{"employees", "remove", "--tenant", "acme", "--id", "tech-1"}, 1, `no employee "tech-1"`},
		{[]string{"profiles", "remove", "--tenant", "acme", "--id", "1"}, 0, "Removed optimization profile 1"},
	}
	for _, st := range steps {
		status, out, errOut := runCLI(t, append(st.args, "--data", data)...)
		if status != st.wantStatus || !strings.Contains(out+errOut, st.want) {
			t.Errorf("connectd %s: %d %q %q; want %d and %q", strings.Join(st.args, " "), status, out, errOut, st.wantStatus, st.want)
		}
	}
}

// TestVersionFlagAgrees: connectd --version prints what connectd version does.
func TestVersionFlagAgrees(t *testing.T) {
	_, command, _ := runCLI(t, "version")
	status, flag, errOut := runCLI(t, "--version")
	if status != 0 || flag != command || errOut != "" || !strings.HasPrefix(flag, "connectd dev (") {
		t.Errorf("--version: %d %q %q; version: %q", status, flag, errOut, command)
	}
}
