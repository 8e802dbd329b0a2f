package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// usageLines is every command's usage line, in the order of the README's
// connectd section and of the package documentation; the tests below keep
// the three and each command's help equal.
var usageLines = []string{
	"serve [--data DIR | --database-url URL] [--database-max-conns N] [--addr HOST:PORT] [--base-path /api/v1] [--metrics-addr ADDR] [--dev] [--webhook-retry-min 5s] [--log-format text|json] [--log-level debug|info|warn|error] [--job-retention 90d] [--route-concurrency N] [--route-queue 64] [--webhook-allow-private-networks] [--webhook-retention 30d] [--webhook-secret-overlap 24h] [--osrm-url URL] [--osrm-table-limit 100] [--osrm-timeout 10s] [--osrm-max-snap 500] [--osrm-fallback]",
	"migrate [--data DIR | --database-url URL]",
	"keys create --tenant T --client C --source-system S --scopes a,b,c [--data DIR | --database-url URL]",
	"keys list [--tenant T] [--data DIR | --database-url URL]",
	"keys set-scopes --tenant T --client C --scopes a,b,c [--data DIR | --database-url URL]",
	"keys revoke --tenant T --client C [--data DIR | --database-url URL]",
	"mapping set --tenant T [--auto-create-customers=BOOL] [--auto-create-locations=BOOL] [--auto-create-contacts=BOOL] [--data DIR | --database-url URL]",
	"mapping show --tenant T [--data DIR | --database-url URL]",
	"customers list --tenant T [--skip N] [--take N] [--data DIR | --database-url URL]",
	"customers archive --tenant T --id N [--data DIR | --database-url URL]",
	"customers block --tenant T --id N [--data DIR | --database-url URL]",
	"customers reactivate --tenant T --id N [--data DIR | --database-url URL]",
	"profiles add --tenant T --name N [--speed KMH] [--detour F] [--shift-start HH:MM] [--shift-end HH:MM] [--time-zone TZ] [--break MIN,HH:MM-HH:MM] [--great-circle] [--data DIR | --database-url URL]",
	"profiles list --tenant T [--data DIR | --database-url URL]",
	"profiles remove --tenant T --id N [--data DIR | --database-url URL]",
	"employees set --tenant T --id E [--name N] [--start LAT,LON] [--end LAT,LON] [--shift-start HH:MM] [--shift-end HH:MM] [--break MIN,HH:MM-HH:MM] [--profile NAME|ID] [--data DIR | --database-url URL]",
	"employees list --tenant T [--data DIR | --database-url URL]",
	"employees remove --tenant T --id E [--data DIR | --database-url URL]",
	"webhooks add --tenant T --url URL --events a,b [--allow-insecure-loopback] [--webhook-allow-private-networks] [--data DIR | --database-url URL]",
	"webhooks list [--tenant T] [--data DIR | --database-url URL]",
	"webhooks remove --tenant T --id N [--data DIR | --database-url URL]",
	"webhooks rotate-secret --tenant T --id N [--data DIR | --database-url URL]",
	"webhooks enable --tenant T --id N [--data DIR | --database-url URL]",
	"webhooks disable --tenant T --id N [--data DIR | --database-url URL]",
	"backup --out FILE [--data DIR | --database-url URL]",
	"compact --out FILE [--data DIR | --database-url URL]",
	"version",
}

// commandOf is the command words of a usage line ("keys create").
func commandOf(line string) []string {
	var words []string
	for _, w := range strings.Fields(line) {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") {
			break
		}
		words = append(words, w)
	}
	return words
}

var flagName = regexp.MustCompile(`(?m)^  (--[a-z-]+)`)

// TestUsageLines: --help prints the usage line of the table on stdout, and
// lists exactly the flags the line names; a usage error prints the same help
// on stderr and nothing on stdout, exit status 2.
func TestUsageLines(t *testing.T) {
	for _, line := range usageLines {
		cmd := commandOf(line)
		status, out, errOut := runCLI(t, append(cmd, "--help")...)
		if status != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: connectd "+line+"\n") {
			t.Errorf("connectd %s --help: %d, stdout %q, stderr %q; want the usage line %q on stdout", strings.Join(cmd, " "), status, out, errOut, line)
			continue
		}
		for _, m := range flagName.FindAllStringSubmatch(out, -1) {
			if !strings.Contains(line, m[1]+" ") && !strings.Contains(line, m[1]+"=") && !strings.Contains(line, m[1]+"]") {
				t.Errorf("connectd %s: the usage line does not name %s", strings.Join(cmd, " "), m[1])
			}
		}
		status, out, errOut = runCLI(t, append(cmd, "--no-such-flag")...)
		if status != 2 || out != "" || !strings.Contains(errOut, "flag provided but not defined: --no-such-flag") || !strings.Contains(errOut, "Usage: connectd "+line+"\n") {
			t.Errorf("connectd %s --no-such-flag: %d, stdout %q, stderr %q", strings.Join(cmd, " "), status, out, errOut)
		}
	}
}

// TestEveryCommandHasAUsageLine: the table holds every command and every
// subcommand of a group, as their help lists them.
func TestEveryCommandHasAUsageLine(t *testing.T) {
	var listed []string
	for _, line := range usageLines {
		listed = append(listed, strings.Join(commandOf(line), " "))
	}
	for _, c := range commands() {
		// A command with a usage line of its own has no subcommands, admin
		// command (backup) or not.
		if !c.admin || slices.Contains(listed, c.name) {
			if !slices.Contains(listed, c.name) {
				t.Errorf("no usage line for connectd %s", c.name)
			}
			continue
		}
		_, out, _ := runCLI(t, c.name, "--help")
		subs := regexp.MustCompile(`(?m)^  ([a-z-]+) `).FindAllStringSubmatch(out, -1)
		if len(subs) == 0 {
			t.Errorf("connectd %s --help lists no commands:\n%s", c.name, out)
		}
		for _, m := range subs {
			if !slices.Contains(listed, c.name+" "+m[1]) {
				t.Errorf("no usage line for connectd %s %s", c.name, m[1])
			}
		}
		// A group without its command, or with an unknown one, is a usage error on stderr.
		if status, out, errOut := runCLI(t, c.name); status != 2 || out != "" || !strings.Contains(errOut, "Usage: connectd "+c.name) {
			t.Errorf("connectd %s: %d %q %q", c.name, status, out, errOut)
		}
	}
}

// TestREADMEUsageLines: the README's connectd block and the package
// documentation hold the table's lines, in order, and nothing else.
func TestREADMEUsageLines(t *testing.T) {
	var want []string
	for _, line := range usageLines {
		want = append(want, "connectd "+line)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## connectd\n\n```\n")
	block, _, _ := strings.Cut(section, "```")
	if got := strings.Split(strings.TrimSpace(block), "\n"); !slices.Equal(got, want) {
		t.Errorf("README's connectd block:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	source, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var doc []string
	for _, l := range strings.Split(string(source), "\n") {
		if after, ok := strings.CutPrefix(l, "//\tconnectd "); ok {
			doc = append(doc, "connectd "+after)
		}
	}
	if !slices.Equal(doc, want) {
		t.Errorf("main.go's documentation:\n%s\nwant:\n%s", strings.Join(doc, "\n"), strings.Join(want, "\n"))
	}
}
