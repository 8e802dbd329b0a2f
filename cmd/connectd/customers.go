package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store"
)

// subcommands dispatches "connectd <group> <sub>" to one of subs.
func subcommands(group, synopsis string, subs map[string]func(context.Context, []string, io.Writer, io.Writer) error) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) == 0 || isHelp(args[0]) {
			fmt.Fprintf(stderr, "Usage: connectd %s\n\nCommands: %s\nRun 'connectd %s <command> --help' for its flags.\n", synopsis, strings.Join(slices.Sorted(maps.Keys(subs)), ", "), group)
			if len(args) == 0 {
				return errUsage
			}
			return nil
		}
		sub, ok := subs[args[0]]
		if !ok {
			fmt.Fprintf(stderr, "connectd %s: unknown command %q\n", group, args[0])
			return errUsage
		}
		return sub(ctx, args[1:], stdout, stderr)
	}
}

var runMapping = subcommands("mapping", "mapping set|show [flags]", map[string]func(context.Context, []string, io.Writer, io.Writer) error{
	"set": runMappingSet, "show": runMappingShow,
})

var runCustomers = subcommands("customers", "customers list|archive|block|reactivate [flags]", map[string]func(context.Context, []string, io.Writer, io.Writer) error{
	"list":       runCustomersList,
	"archive":    customerState("archive", (*mapping.Service).ArchiveCustomer),
	"block":      customerState("block", (*mapping.Service).BlockCustomer),
	"reactivate": customerState("reactivate", (*mapping.Service).ReactivateCustomer),
})

// optionalBool is a boolean flag that remembers whether it was given.
type optionalBool struct{ value *bool }

func (o *optionalBool) String() string {
	if o == nil || o.value == nil {
		return "unchanged"
	}
	return strconv.FormatBool(*o.value)
}

func (o *optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	o.value = &v
	return err
}

func (o *optionalBool) IsBoolFlag() bool { return true }

func runMappingSet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mapping set", "mapping set --tenant T [--auto-create-customers=BOOL] [--auto-create-locations=BOOL] [--auto-create-contacts=BOOL] [--data DIR]", stderr)
	tenant := fs.String("tenant", "", "tenant id (required)")
	var customers, locations, contacts optionalBool
	fs.Var(&customers, "auto-create-customers", "create customers that imports do not find")
	fs.Var(&locations, "auto-create-locations", "create locations that imports do not find")
	fs.Var(&contacts, "auto-create-contacts", "create contacts that imports do not find")
	data := dataFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, map[string]string{"tenant": *tenant}); err != nil {
		return err
	}
	return withStore(*data, func(s store.Store) error {
		settings, err := mapping.New(mapping.Config{Store: s}).UpdateSettings(ctx, *tenant, mapping.SettingsChange{
			AutoCreateCustomers: customers.value, AutoCreateLocations: locations.value, AutoCreateContacts: contacts.value,
		})
		if err != nil {
			return err
		}
		return printSettings(stdout, *tenant, settings)
	})
}

func runMappingShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mapping show", "mapping show --tenant T [--data DIR]", stderr)
	tenant := fs.String("tenant", "", "tenant id (required)")
	data := dataFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, map[string]string{"tenant": *tenant}); err != nil {
		return err
	}
	return withStore(*data, func(s store.Store) error {
		settings, err := mapping.New(mapping.Config{Store: s}).Settings(ctx, *tenant)
		if err != nil {
			return err
		}
		return printSettings(stdout, *tenant, settings)
	})
}

func printSettings(w io.Writer, tenant string, s store.MappingSettings) error {
	_, err := fmt.Fprintf(w, "Mapping settings of tenant %q:\n  auto-create-customers=%t\n  auto-create-locations=%t\n  auto-create-contacts=%t\n",
		tenant, s.AutoCreateCustomers, s.AutoCreateLocations, s.AutoCreateContacts)
	return err
}

func runCustomersList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("customers list", "customers list --tenant T [--skip N] [--take N] [--data DIR]", stderr)
	tenant := fs.String("tenant", "", "tenant id (required)")
	skip := fs.Int("skip", 0, "customers to skip")
	take := fs.Int("take", 50, "customers to list (1-200)")
	data := dataFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, map[string]string{"tenant": *tenant}); err != nil {
		return err
	}
	return withStore(*data, func(s store.Store) error {
		list, err := mapping.New(mapping.Config{Store: s}).ListCustomers(ctx, *tenant, mapping.CustomerQuery{Skip: skip, Take: take})
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATE\tSOURCE SYSTEM\tEXTERNAL ID\tNUMBER\tNAME\tUPDATED")
		for _, c := range list.Customers {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.State, c.SourceSystem, orDash(c.ExternalID), orDash(c.CustomerNumber), c.Name, c.UpdatedAt.Format(time.RFC3339))
		}
		fmt.Fprintf(tw, "(%d of %d customers)\n", len(list.Customers), list.Total)
		return tw.Flush()
	})
}

// customerState builds the archive, block and reactivate commands.
func customerState(verb string, change func(*mapping.Service, context.Context, string, int64) (store.Customer, error)) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlags("customers "+verb, "customers "+verb+" --tenant T --id N [--data DIR]", stderr)
		tenant := fs.String("tenant", "", "tenant id (required)")
		id := fs.Int64("id", 0, "customer id (required)")
		data := dataFlag(fs)
		if err := parse(fs, args); err != nil {
			return err
		}
		if err := required(fs, map[string]string{"tenant": *tenant, "id": nonZero(*id)}); err != nil {
			return err
		}
		return withStore(*data, func(s store.Store) error {
			c, err := change(mapping.New(mapping.Config{Store: s}), ctx, *tenant, *id)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "Customer %d of tenant %q is %s.\n", c.ID, *tenant, c.State)
			return nil
		})
	}
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

func nonZero(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
