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

const keysSynopsis = "keys create|list|revoke [flags]"

var runKeys = subcommands("keys", keysSynopsis, map[string]func(context.Context, []string, io.Writer, io.Writer) error{
	"create": runKeysCreate, "list": runKeysList, "revoke": runKeysRevoke,
})

// runKeysCreate creates a client and prints its key alone on the last line of
// stdout, so scripts can take it with tail -n 1.
func runKeysCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("keys create", "keys create --tenant T --client C --source-system S --scopes a,b,c [--data DIR]", stderr)
	tenant := fs.String("tenant", "", "tenant id (required)")
	client := fs.String("client", "", "client id, unique within the tenant (required)")
	source := fs.String("source-system", "", "source system of the client's data (required)")
	scopes := fs.String("scopes", "", "comma-separated scopes (required): "+scopeList())
	data := dataFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, map[string]string{"tenant": *tenant, "client": *client, "source-system": *source, "scopes": *scopes}); err != nil {
		return err
	}
	parsed, err := connect.ParseScopes(*scopes)
	if err != nil {
		return err
	}
	return withClients(*data, func(clients *store.Clients) error {
		c, key, err := clients.CreateClient(ctx, connect.NewClient{TenantID: *tenant, ClientID: *client, SourceSystem: *source, Scopes: parsed})
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
	fs := newFlags("keys list", "keys list [--tenant T] [--data DIR]", stderr)
	tenant := fs.String("tenant", "", "only this tenant's clients")
	data := dataFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	return withClients(*data, func(clients *store.Clients) error {
		list, err := clients.ListClients(ctx, *tenant)
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

func runKeysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("keys revoke", "keys revoke --tenant T --client C [--data DIR]", stderr)
	tenant := fs.String("tenant", "", "tenant id (required)")
	client := fs.String("client", "", "client id (required)")
	data := dataFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, map[string]string{"tenant": *tenant, "client": *client}); err != nil {
		return err
	}
	return withClients(*data, func(clients *store.Clients) error {
		if err := clients.RevokeClient(ctx, *tenant, *client); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Revoked the key of client %q of tenant %q.\n", *client, *tenant)
		return nil
	})
}

// withClients runs fn with the client registry of the store in dir.
func withClients(dir string, fn func(*store.Clients) error) error {
	return withStore(dir, func(s store.Store) error { return fn(&store.Clients{Store: s}) })
}

// withStore opens the store in dir for one admin command.
func withStore(dir string, fn func(store.Store) error) error {
	s, err := openStore(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

func scopeList() string { return joinScopes(connect.AllScopes) }

func joinScopes(scopes []connect.Scope) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}
