package main

import (
	"strings"
	"testing"
)

func TestWebhooksCommandLine(t *testing.T) {
	data := dataDir(t)
	tests := []struct {
		args       []string
		wantStatus int
		wantOut    string // in stdout or stderr
	}{
		{[]string{"--help"}, 0, "webhooks  manage webhook subscriptions"},
		{[]string{"serve", "--help"}, 0, "--webhook-retry-min"},
		{[]string{"webhooks"}, 2, "webhooks add|list|remove|rotate-secret|enable|disable"},
		{[]string{"webhooks", "--help"}, 0, "rotate-secret  give a subscription a new signing secret"},
		{[]string{"webhooks", "frob"}, 2, `unknown command "frob"; the commands are add, list, remove, rotate-secret, enable, disable`},
		{[]string{"webhooks", "add", "--help"}, 0, "--allow-insecure-loopback"},
		{[]string{"webhooks", "list", "--help"}, 0, "--tenant"},
		{[]string{"webhooks", "remove", "--help"}, 0, "webhooks remove --tenant T --id N"},
		{[]string{"webhooks", "rotate-secret", "--help"}, 0, "webhooks rotate-secret --tenant T --id N"},
		{[]string{"webhooks", "enable", "--help"}, 0, "--id"},
		{[]string{"webhooks", "disable", "--help"}, 0, "--id"},
		{[]string{"webhooks", "add", "--tenant", "t", "--url", "https://example.com", "--data", data}, 2, "--events is required"},
		{[]string{"webhooks", "add", "--tenant", "t", "--url", "https://example.com", "--events", "import_job.done", "--data", data}, 2, `--events: unknown event kind "import_job.done"`},
		{[]string{"webhooks", "add", "--tenant", "t", "--url", "http://example.com", "--events", "import_job.completed", "--data", data}, 2, "--url must use https (http only on a loopback host with --allow-insecure-loopback, for development)"},
		{[]string{"webhooks", "remove", "--tenant", "t", "--data", data}, 2, "--id is required"},
		{[]string{"webhooks", "remove", "--tenant", "t", "--id", "7", "--data", data}, 1, `tenant "t" has no webhook subscription 7`},
		{[]string{"serve", "--webhook-retry-min", "soon"}, 2, `invalid value "soon" for flag --webhook-retry-min`},
		{[]string{"serve", "--base-path", "api/v1"}, 2, "--base-path must start with /"},
		{[]string{"serve", "--osrm-url", "127.0.0.1:5000"}, 2, "--osrm-url must be an http or https URL, such as http://127.0.0.1:5000"},
		{[]string{"serve", "--osrm-table-limit", "many"}, 2, `invalid value "many" for flag --osrm-table-limit`},
	}
	for _, tc := range tests {
		status, out, errOut := runCLI(t, tc.args...)
		if status != tc.wantStatus || !strings.Contains(out+errOut, tc.wantOut) {
			t.Errorf("connectd %s: status %d, output %q%q; want %d and %q", strings.Join(tc.args, " "), status, out, errOut, tc.wantStatus, tc.wantOut)
		}
	}
}

func TestWebhooksLifecycle(t *testing.T) {
	data := dataDir(t)
	status, out, errOut := runCLI(t, "webhooks", "add", "--tenant", "acme", "--url", "http://127.0.0.1:9000/hooks",
		"--events", "import_job.completed,appointment_request.status_changed", "--allow-insecure-loopback", "--data", data)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	secret := lines[len(lines)-1]
	if status != 0 || !strings.HasPrefix(secret, "whsec_") || len(secret) != 50 || !strings.Contains(out, "Added webhook subscription 1 of tenant \"acme\"") {
		t.Fatalf("webhooks add: %d %q %q", status, out, errOut)
	}
	list := func(args ...string) string {
		t.Helper()
		status, out, errOut := runCLI(t, append([]string{"webhooks", "list", "--data", data}, args...)...)
		if status != 0 || strings.Contains(out, secret) {
			t.Fatalf("webhooks list: %d %q %q", status, out, errOut)
		}
		return out
	}
	if out := list(); !strings.Contains(out, "acme    1   http://127.0.0.1:9000/hooks  import_job.completed,appointment_request.status_changed  enabled") {
		t.Errorf("webhooks list:\n%s", out)
	}
	if out := list("--tenant", "globex"); strings.Count(out, "\n") != 1 {
		t.Errorf("another tenant's list is not empty:\n%s", out)
	}
	steps := []struct {
		args       []string
		wantOut    string
		wantListed string
	}{
		{[]string{"disable"}, "Disabled webhook subscription 1", "disabled since "},
		{[]string{"enable"}, "Enabled webhook subscription 1", "  enabled  "},
		{[]string{"rotate-secret"}, "has a new signing secret", "  enabled  "},
		{[]string{"remove"}, "Removed webhook subscription 1", ""},
	}
	for _, step := range steps {
		status, out, errOut := runCLI(t, append([]string{"webhooks"}, append(step.args, "--tenant", "acme", "--id", "1", "--data", data)...)...)
		if status != 0 || !strings.Contains(out, step.wantOut) {
			t.Errorf("webhooks %s: %d %q %q", step.args[0], status, out, errOut)
		}
		if step.args[0] == "rotate-secret" {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if rotated := lines[len(lines)-1]; !strings.HasPrefix(rotated, "whsec_") || rotated == secret {
				t.Errorf("rotate-secret printed %q last", rotated)
			}
		}
		if listed := list(); step.wantListed != "" && !strings.Contains(listed, step.wantListed) || step.wantListed == "" && strings.Contains(listed, "acme") {
			t.Errorf("after %s, webhooks list:\n%s", step.args[0], listed)
		}
	}
}
