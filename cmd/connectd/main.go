// Command connectd is the Integration Connect server and its admin commands.
//
//	connectd serve [--data DIR | --database-url URL] [--database-max-conns N] [--addr HOST:PORT] [--base-path /api/v1] [--metrics-addr ADDR] [--dev] [--webhook-retry-min 5s] [--log-format text|json] [--log-level debug|info|warn|error] [--job-retention 90d] [--route-concurrency N] [--route-queue 64] [--webhook-allow-private-networks] [--webhook-retention 30d] [--webhook-secret-overlap 24h] [--osrm-url URL] [--osrm-table-limit 100] [--osrm-timeout 10s] [--osrm-max-snap 500] [--osrm-fallback]
//	connectd migrate [--data DIR | --database-url URL]
//	connectd keys create --tenant T --client C --source-system S --scopes a,b,c [--data DIR | --database-url URL]
//	connectd keys list [--tenant T] [--data DIR | --database-url URL]
//	connectd keys set-scopes --tenant T --client C --scopes a,b,c [--data DIR | --database-url URL]
//	connectd keys revoke --tenant T --client C [--data DIR | --database-url URL]
//	connectd mapping set --tenant T [--auto-create-customers=BOOL] [--auto-create-locations=BOOL] [--auto-create-contacts=BOOL] [--data DIR | --database-url URL]
//	connectd mapping show --tenant T [--data DIR | --database-url URL]
//	connectd customers list --tenant T [--skip N] [--take N] [--data DIR | --database-url URL]
//	connectd customers archive --tenant T --id N [--data DIR | --database-url URL]
//	connectd customers block --tenant T --id N [--data DIR | --database-url URL]
//	connectd customers reactivate --tenant T --id N [--data DIR | --database-url URL]
//	connectd profiles add --tenant T --name N [--speed KMH] [--detour F] [--shift-start HH:MM] [--shift-end HH:MM] [--time-zone TZ] [--break MIN,HH:MM-HH:MM] [--great-circle] [--data DIR | --database-url URL]
//	connectd profiles list --tenant T [--data DIR | --database-url URL]
//	connectd profiles remove --tenant T --id N [--data DIR | --database-url URL]
//	connectd employees set --tenant T --id E [--name N] [--start LAT,LON] [--end LAT,LON] [--shift-start HH:MM] [--shift-end HH:MM] [--break MIN,HH:MM-HH:MM] [--profile NAME|ID] [--data DIR | --database-url URL]
//	connectd employees list --tenant T [--data DIR | --database-url URL]
//	connectd employees remove --tenant T --id E [--data DIR | --database-url URL]
//	connectd webhooks add --tenant T --url URL --events a,b [--allow-insecure-loopback] [--webhook-allow-private-networks] [--data DIR | --database-url URL]
//	connectd webhooks list [--tenant T] [--data DIR | --database-url URL]
//	connectd webhooks remove --tenant T --id N [--data DIR | --database-url URL]
//	connectd webhooks rotate-secret --tenant T --id N [--data DIR | --database-url URL]
//	connectd webhooks enable --tenant T --id N [--data DIR | --database-url URL]
//	connectd webhooks disable --tenant T --id N [--data DIR | --database-url URL]
//	connectd backup --out FILE [--data DIR | --database-url URL]
//	connectd compact --out FILE [--data DIR | --database-url URL]
//	connectd version
//
// Every command takes --help. The data directory defaults to ./connect-data (or
// $CONNECT_DATA) and holds the bbolt file connect.db and, while serve runs, its
// admin socket admin.sock: admin commands run in the server through it when it
// answers, and open connect.db themselves otherwise (see withStore).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// command is one sub-command: its name, a one-line summary, and its code.
// An admin command works on the store and runs in the server holding it when
// there is one (see withStore).
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	admin         bool
}

func commands() []command {
	return []command{
		{"serve", "run the HTTP server", runServe, false},
		{"migrate", "create the store, or bring its schema up to this version (serve does too)", runMigrate, false},
		{"keys", "create, list, re-scope and revoke API keys (keys create|list|set-scopes|revoke)", keysGroup.run, true},
		{"mapping", "show and change a tenant's customer mapping settings (mapping set|show)", mappingGroup.run, true},
		{"customers", "list, archive, block and reactivate customer records (customers list|archive|block|reactivate)", customersGroup.run, true},
		{"profiles", "manage the optimization profiles of route suggestions (profiles add|list|remove)", profilesGroup.run, true},
		{"employees", "manage the employees routes are planned for (employees set|list|remove)", employeesGroup.run, true},
		{"webhooks", "manage webhook subscriptions (webhooks add|list|remove|rotate-secret|enable|disable)", webhooksGroup.run, true},
		{"backup", "write a consistent copy of the bbolt store, also while the server runs", runBackup, true},
		{"compact", "write a compacted copy of the bbolt store while no server runs", runCompact, false},
		{"version", "print the version", runVersion, false},
	}
}

// run executes the command line and returns the exit status: 0 on success, 2 on
// a usage error, 1 on any other failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "connectd: a command is required\n\n")
		usage(stderr)
		return 2
	}
	if isHelp(args[0]) {
		usage(stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	if c, ok := commandNamed(args[0]); ok {
		ctx = withInvocation(ctx, &invocation{args: args, stdout: stdout, stderr: stderr})
		return exitStatus(c.run(ctx, args[1:], stdout, stderr), stderr)
	}
	fmt.Fprintf(stderr, "connectd: unknown command %q; the commands are %s\n\n", args[0], strings.Join(commandNames(), ", "))
	usage(stderr)
	return 2
}

// commandNamed returns the command called name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: connectd <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'connectd <command> --help' for the flags of a command.")
}

func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "help" }
