package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store"
)

var mappingGroup = group{"mapping", "mapping set|show [flags]", []subcommand{
	subcommand{"set", "change a tenant's customer mapping settings", runMappingSet},
	subcommand{"show", "show a tenant's customer mapping settings", runMappingShow},
}}

var customersGroup = group{"customers", "customers list|archive|block|reactivate [flags]", []subcommand{
	subcommand{"list", "list a tenant's customer records", runCustomersList},
	subcommand{"archive", "archive a customer: imports still link it but never change it", customerState("archive", (*mapping.Service).ArchiveCustomer)},
	subcommand{"block", "block a customer: like archive, for customers not to be served", customerState("block", (*mapping.Service).BlockCustomer)},
	subcommand{"reactivate", "make an archived or blocked customer active again", customerState("reactivate", (*mapping.Service).ReactivateCustomer)},
}}

// withCustomers runs fn with the customer-record service of the store a locates.
func withCustomers(ctx context.Context, a *flagSet, fn func(*mapping.Service) error) error {
	return withStore(ctx, a, func(s store.Store) error { return fn(mapping.New(mapping.Config{Store: s})) })
}

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
	a := newAdmin("mapping set --tenant T [--auto-create-customers=BOOL] [--auto-create-locations=BOOL] [--auto-create-contacts=BOOL] [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	var customers, locations, contacts optionalBool
	a.Var(&customers, "auto-create-customers", "create customers that imports do not find")
	a.Var(&locations, "auto-create-locations", "create locations that imports do not find")
	a.Var(&contacts, "auto-create-contacts", "create contacts that imports do not find")
	if err := a.parse(args); err != nil {
		return err
	}
	return withCustomers(ctx, a, func(svc *mapping.Service) error {
		settings, err := svc.UpdateSettings(ctx, *tenant, mapping.SettingsChange{
			AutoCreateCustomers: customers.value, AutoCreateLocations: locations.value, AutoCreateContacts: contacts.value,
		})
		if err != nil {
			return err
		}
		return printSettings(stdout, *tenant, settings)
	})
}

func runMappingShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("mapping show --tenant T [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	if err := a.parse(args); err != nil {
		return err
	}
	return withCustomers(ctx, a, func(svc *mapping.Service) error {
		settings, err := svc.Settings(ctx, *tenant)
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
	a := newAdmin("customers list --tenant T [--skip N] [--take N] [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	skip := a.Int("skip", 0, "customers to skip")
	take := a.Int("take", 50, "customers to list (1-200)")
	if err := a.parse(args); err != nil {
		return err
	}
	return withCustomers(ctx, a, func(svc *mapping.Service) error {
		list, err := svc.ListCustomers(ctx, *tenant, mapping.CustomerQuery{Skip: skip, Take: take})
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
		a := newAdmin("customers "+verb+" --tenant T --id N [--data DIR | --database-url URL]", stdout, stderr)
		tenant := a.tenant()
		id := a.requiredID("id", "customer id, as listed")
		if err := a.parse(args); err != nil {
			return err
		}
		return withCustomers(ctx, a, func(svc *mapping.Service) error {
			c, err := change(svc, ctx, *tenant, *id)
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
