package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/store"
)

var webhooksGroup = group{"webhooks", "webhooks add|list|remove|rotate-secret|enable|disable [flags]", []subcommand{
	subcommand{"add", "subscribe a URL to a tenant's events and print its signing secret (shown once)", runWebhooksAdd},
	subcommand{"list", "list subscriptions with their delivery state", runWebhooksList},
	subcommand{"remove", "remove a subscription", runWebhooksRemove},
	subcommand{"rotate-secret", "give a subscription a new signing secret and print it (shown once)", runWebhooksRotate},
	subcommand{"enable", "resume deliveries, from the first event not yet delivered", runWebhooksEnable},
	subcommand{"disable", "pause deliveries; events are kept", runWebhooksDisable},
}}

// runWebhooksAdd adds a subscription and prints its secret alone on the last
// line of stdout, so scripts can take it with tail -n 1.
func runWebhooksAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("webhooks add --tenant T --url URL --events a,b [--allow-insecure-loopback] [--webhook-allow-private-networks] [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	url := a.requiredString("url", "https URL receiving the events")
	events := a.requiredString("events", "comma-separated event kinds: "+eventKindList())
	insecure := a.Bool("allow-insecure-loopback", false, "allow an http or https URL on a loopback host (127.0.0.0/8, ::1, localhost), for development")
	private := a.Bool("webhook-allow-private-networks", false, "accept a URL whose host is or resolves to a loopback, private, CGNAT, link-local, unspecified or multicast address (like connectd serve with the same flag)")
	if err := a.parse(args); err != nil {
		return err
	}
	kinds, err := connect.ParseEventKinds(*events)
	if err != nil {
		return a.usageError("--events: %s", connect.AsError(err).Message)
	}
	a.feeds("events", "kinds")
	return withSubscriptions(ctx, a, func(subs *webhooks.Subscriptions) error {
		subs.URLs.AllowPrivateNetworks = *private
		s, secret, err := subs.Add(ctx, connect.NewWebhookSubscription{TenantID: *tenant, URL: *url, Kinds: kinds, AllowInsecureLoopback: *insecure})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Added webhook subscription %d of tenant %q: %s to %s.\n", s.ID, s.TenantID, joinKinds(s.Kinds), s.URL)
		fmt.Fprintln(stdout, "Store the signing secret now: it cannot be shown again (rotate-secret makes a new one).")
		fmt.Fprintln(stdout, secret)
		return nil
	})
}

func runWebhooksList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("webhooks list [--tenant T] [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.String("tenant", "", "only this tenant's subscriptions")
	if err := a.parse(args); err != nil {
		return err
	}
	return withSubscriptions(ctx, a, func(subs *webhooks.Subscriptions) error {
		list, err := subs.List(ctx, *tenant)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TENANT\tID\tURL\tEVENTS\tSTATE\tDELIVERED UP TO\tCREATED\tLAST ERROR")
		for _, s := range list {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\n", s.TenantID, s.ID, s.URL, joinKinds(s.Kinds), state(s), s.Cursor, s.CreatedAt.Format(time.RFC3339), lastError(s))
		}
		return tw.Flush()
	})
}

// state says in a few words whether a subscription receives events.
func state(s connect.WebhookSubscription) string {
	switch {
	case !s.Enabled && s.DisabledAt != nil:
		return "disabled since " + s.DisabledAt.Format(time.RFC3339)
	case !s.Enabled:
		return "disabled"
	case s.Attempts > 0:
		return fmt.Sprintf("retrying (%d failed attempts)", s.Attempts)
	}
	return "enabled"
}

// lastError is why the last attempt failed, or "-".
func lastError(s connect.WebhookSubscription) string {
	if s.LastError == "" {
		return "-"
	}
	return s.LastError
}

func runWebhooksRemove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return onSubscription(ctx, "remove", args, stdout, stderr, func(subs *webhooks.Subscriptions, tenant string, id int64) error {
		if err := subs.Remove(ctx, tenant, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Removed webhook subscription %d of tenant %q.\n", id, tenant)
		return nil
	})
}

// runWebhooksRotate prints the new secret alone on the last line of stdout.
func runWebhooksRotate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return onSubscription(ctx, "rotate-secret", args, stdout, stderr, func(subs *webhooks.Subscriptions, tenant string, id int64) error {
		secret, err := subs.RotateSecret(ctx, tenant, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Webhook subscription %d of tenant %q has a new signing secret; the old one goes on signing beside it for %s.\n", id, tenant, webhooks.DefaultSecretOverlap)
		fmt.Fprintln(stdout, "Store it now: it cannot be shown again.")
		fmt.Fprintln(stdout, secret)
		return nil
	})
}

func runWebhooksEnable(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return onSubscription(ctx, "enable", args, stdout, stderr, func(subs *webhooks.Subscriptions, tenant string, id int64) error {
		if _, err := subs.Enable(ctx, tenant, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Enabled webhook subscription %d of tenant %q; pending events are delivered from the first one not yet delivered.\n", id, tenant)
		return nil
	})
}

func runWebhooksDisable(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return onSubscription(ctx, "disable", args, stdout, stderr, func(subs *webhooks.Subscriptions, tenant string, id int64) error {
		if _, err := subs.Disable(ctx, tenant, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Disabled webhook subscription %d of tenant %q; its events are kept for the retention period and delivered once it is enabled again.\n", id, tenant)
		return nil
	})
}

// onSubscription parses the flags shared by the commands on one
// subscription, --tenant and --id, and runs fn on the store.
func onSubscription(ctx context.Context, name string, args []string, stdout, stderr io.Writer, fn func(*webhooks.Subscriptions, string, int64) error) error {
	a := newAdmin("webhooks "+name+" --tenant T --id N [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	id := a.requiredID("id", "subscription id, as listed by webhooks list")
	if err := a.parse(args); err != nil {
		return err
	}
	return withSubscriptions(ctx, a, func(subs *webhooks.Subscriptions) error { return fn(subs, *tenant, *id) })
}

// withSubscriptions runs fn with the subscription service of the store a locates.
func withSubscriptions(ctx context.Context, a *flagSet, fn func(*webhooks.Subscriptions) error) error {
	return withStore(ctx, a, func(s store.Store) error { return fn(&webhooks.Subscriptions{Store: s}) })
}

func eventKindList() string { return joinKinds(connect.EventKinds) }

func joinKinds(kinds []connect.EventKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ",")
}
