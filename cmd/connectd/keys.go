package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

var keysGroup = group{"keys", "keys create|list|set-scopes|revoke [flags]", []subcommand{
	subcommand{"create", "create a client and print its API key (shown once)", runKeysCreate},
	subcommand{"list", "list clients and their key prefixes", runKeysList},
	subcommand{"set-scopes", "replace the scopes of a client's key, effective on its next request", runKeysSetScopes},
	subcommand{"revoke", "revoke a client's key", runKeysRevoke},
}}

// runKeysCreate creates a client and prints its key alone on the last line of
// stdout, so scripts can take it with tail -n 1.
func runKeysCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("keys create --tenant T --client C --source-system S --scopes a,b,c [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	client := a.requiredString("client", "client id, unique within the tenant")
	a.feeds("client", "clientId")
	source := a.requiredString("source-system", "source system of the client's data")
	scopes := a.requiredString("scopes", "comma-separated scopes: "+joinScopes(connect.AllScopes))
	if err := a.parse(args); err != nil {
		return err
	}
	parsed, err := parseScopes(a, *scopes)
	if err != nil {
		return err
	}
	return withStore(ctx, a, func(s store.Store) error {
		c, key, err := (&store.Clients{Store: s}).CreateClient(ctx, connect.NewClient{TenantID: *tenant, ClientID: *client, SourceSystem: *source, Scopes: parsed})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Created client %q of tenant %q (source system %q) with scopes %s.\n", c.ClientID, c.TenantID, c.SourceSystem, joinScopes(c.Scopes))
		fmt.Fprintln(stdout, "Store the API key now: it is not stored and cannot be shown again.")
		fmt.Fprintln(stdout, key)
		return nil
	})
}

func runKeysList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("keys list [--tenant T] [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.String("tenant", "", "only this tenant's clients")
	if err := a.parse(args); err != nil {
		return err
	}
	return withStore(ctx, a, func(s store.Store) error {
		list, err := (&store.Clients{Store: s}).ListClients(ctx, *tenant)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TENANT\tCLIENT\tSOURCE SYSTEM\tKEY\tSCOPES\tCREATED\tREVOKED")
		for _, c := range list {
			revoked := "-"
			if c.RevokedAt != nil {
				revoked = c.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s…\t%s\t%s\t%s\n", c.TenantID, c.ClientID, c.SourceSystem, c.KeyPrefix, joinScopes(c.Scopes), c.CreatedAt.Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	})
}

// runKeysSetScopes replaces a client's scopes; the key stays the same. The
// change is logged (client scopes changed) where the command runs: in the
// server's log when a server runs it, else on stderr.
func runKeysSetScopes(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("keys set-scopes --tenant T --client C --scopes a,b,c [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	client := a.requiredString("client", "client id")
	scopes := a.requiredString("scopes", "the key's new scopes, comma-separated, replacing the old: "+joinScopes(connect.AllScopes))
	if err := a.parse(args); err != nil {
		return err
	}
	parsed, err := parseScopes(a, *scopes)
	if err != nil {
		return err
	}
	return withStore(ctx, a, func(s store.Store) error {
		c, err := (&store.Clients{Store: s, Logger: auditLogger(ctx, stderr)}).SetClientScopes(ctx, *tenant, *client, parsed)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Client %q of tenant %q now has the scopes %s, from its key's next request on.\n", c.ClientID, c.TenantID, joinScopes(c.Scopes))
		return nil
	})
}

func runKeysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("keys revoke --tenant T --client C [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	client := a.requiredString("client", "client id")
	if err := a.parse(args); err != nil {
		return err
	}
	return withStore(ctx, a, func(s store.Store) error {
		if err := (&store.Clients{Store: s}).RevokeClient(ctx, *tenant, *client); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Revoked the key of client %q of tenant %q.\n", *client, *tenant)
		return nil
	})
}

// parseScopes reads the list of --scopes; an unknown scope is a usage error
// naming the flag.
func parseScopes(a *flagSet, list string) ([]connect.Scope, error) {
	scopes, err := connect.ParseScopes(list)
	if err != nil {
		return nil, a.usageError("--scopes: %s", connect.AsError(err).Message)
	}
	return scopes, nil
}

func joinScopes(scopes []connect.Scope) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}
