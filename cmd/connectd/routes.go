package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
)

var profilesGroup = group{"profiles", "profiles add|list|remove [flags]", []subcommand{
	subcommand{"add", "add an optimization profile and print its id", runProfilesAdd},
	subcommand{"list", "list a tenant's optimization profiles", runProfilesList},
	subcommand{"remove", "remove an optimization profile", runProfilesRemove},
}}

var employeesGroup = group{"employees", "employees set|list|remove [flags]", []subcommand{
	subcommand{"set", "create or replace an employee", runEmployeesSet},
	subcommand{"list", "list a tenant's employees", runEmployeesList},
	subcommand{"remove", "remove an employee", runEmployeesRemove},
}}

// withRoutes runs fn with the route service of the store a locates.
func withRoutes(ctx context.Context, a *flagSet, fn func(*routesuggest.Service) error) error {
	return withStore(ctx, a, func(s store.Store) error { return fn(routesuggest.New(routesuggest.Config{Store: s})) })
}

func runProfilesAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d := routesuggest.DefaultProfile()
	a := newAdmin("profiles add --tenant T --name N [--speed KMH] [--detour F] [--shift-start HH:MM] [--shift-end HH:MM] [--time-zone TZ] [--break MIN,HH:MM-HH:MM] [--great-circle] [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	name := a.requiredString("name", "profile name")
	p := store.OptimizationProfile{}
	a.Float64Var(&p.AverageSpeedKmh, "speed", d.AverageSpeedKmh, "average travel speed in km/h")
	a.Float64Var(&p.DetourFactor, "detour", d.DetourFactor, "road distance ÷ great-circle distance")
	a.StringVar(&p.ShiftStart, "shift-start", d.ShiftStart, "start of the working day, HH:MM in --time-zone")
	a.StringVar(&p.ShiftEnd, "shift-end", d.ShiftEnd, "end of the working day, HH:MM in --time-zone")
	a.StringVar(&p.TimeZone, "time-zone", d.TimeZone, "the tenant's IANA time zone, e.g. Europe/Berlin")
	a.Var(&breakFlag{&p.Break}, "break", "a break every employee of the profile takes: minutes, then the window its start falls in (30,11:30-13:30)")
	greatCircle := a.Bool("great-circle", false, "plan with great-circle estimates even when the server has a road engine (--osrm-url)")
	a.feeds("speed", "averageSpeedKmh")
	a.feeds("detour", "detourFactor")
	if err := a.parse(args); err != nil {
		return err
	}
	p.Name = *name
	if *greatCircle {
		p.TravelModel = connect.TravelGreatCircle
	}
	return withRoutes(ctx, a, func(routes *routesuggest.Service) error {
		created, err := routes.CreateProfile(ctx, *tenant, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Created optimization profile %d %q of tenant %q.\n", created.ID, created.Name, *tenant)
		return nil
	})
}

func runProfilesList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("profiles list --tenant T [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	if err := a.parse(args); err != nil {
		return err
	}
	return withRoutes(ctx, a, func(routes *routesuggest.Service) error {
		list, err := routes.Profiles(ctx, *tenant)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tKM/H\tDETOUR\tSHIFT\tTIME ZONE\tBREAK\tTRAVEL")
		for _, p := range list {
			travel := string(p.TravelModel)
			brk := (&breakFlag{&p.Break}).String()
			fmt.Fprintf(tw, "%d\t%s\t%g\t%g\t%s-%s\t%s\t%s\t%s\n", p.ID, p.Name, p.AverageSpeedKmh, p.DetourFactor, p.ShiftStart, p.ShiftEnd, p.TimeZone,
				orDash(&brk), orDash(&travel))
		}
		return tw.Flush()
	})
}

func runProfilesRemove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("profiles remove --tenant T --id N [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	id := a.requiredID("id", "profile id, as listed")
	if err := a.parse(args); err != nil {
		return err
	}
	return withRoutes(ctx, a, func(routes *routesuggest.Service) error {
		if err := routes.DeleteProfile(ctx, *tenant, *id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Removed optimization profile %d of tenant %q.\n", *id, *tenant)
		return nil
	})
}

// pointFlag is a "LAT,LON" flag.
type pointFlag struct{ point *connect.RoutePoint }

func (p *pointFlag) String() string {
	if p == nil || p.point == nil {
		return ""
	}
	return fmt.Sprintf("%g,%g", p.point.Latitude, p.point.Longitude)
}

func (p *pointFlag) Set(s string) error {
	lat, lon, ok := strings.Cut(s, ",")
	la, err1 := strconv.ParseFloat(strings.TrimSpace(lat), 64)
	lo, err2 := strconv.ParseFloat(strings.TrimSpace(lon), 64)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("want LAT,LON such as 52.52,13.405")
	}
	p.point = &connect.RoutePoint{Latitude: la, Longitude: lo}
	return nil
}

// breakFlag is a "MIN,HH:MM-HH:MM" flag: a break of MIN minutes starting
// between the two local times. The service checks the values.
type breakFlag struct{ rule **store.BreakRule }

func (b *breakFlag) String() string {
	if b == nil || b.rule == nil || *b.rule == nil {
		return ""
	}
	r := *b.rule
	return fmt.Sprintf("%d,%s-%s", r.Minutes, r.Earliest, r.Latest)
}

func (b *breakFlag) Set(s string) error {
	minutes, window, ok := strings.Cut(s, ",")
	earliest, latest, ok2 := strings.Cut(window, "-")
	m, err := strconv.Atoi(strings.TrimSpace(minutes))
	if !ok || !ok2 || err != nil {
		return fmt.Errorf("want MINUTES,HH:MM-HH:MM such as 30,11:30-13:30")
	}
	*b.rule = &store.BreakRule{Minutes: m, Earliest: strings.TrimSpace(earliest), Latest: strings.TrimSpace(latest)}
	return nil
}

// stringFlag is a string flag that remembers whether it was given.
type stringFlag struct{ value *string }

func (s *stringFlag) String() string {
	if s == nil || s.value == nil {
		return ""
	}
	return *s.value
}

func (s *stringFlag) Set(v string) error { s.value = &v; return nil }

func runEmployeesSet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("employees set --tenant T --id E [--name N] [--start LAT,LON] [--end LAT,LON] [--shift-start HH:MM] [--shift-end HH:MM] [--break MIN,HH:MM-HH:MM] [--profile NAME|ID] [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	id := a.requiredString("id", "employee id, as requests name it in employeeId")
	var e store.Employee
	a.StringVar(&e.Name, "name", "", "display name")
	var start, end pointFlag
	a.Var(&start, "start", "where the day starts, LAT,LON (none: at the first stop)")
	a.Var(&end, "end", "where the day ends, LAT,LON (default: the start)")
	var shiftStart, shiftEnd stringFlag
	a.Var(&shiftStart, "shift-start", "start of the working day, HH:MM (default: the profile's)")
	a.Var(&shiftEnd, "shift-end", "end of the working day, HH:MM (default: the profile's)")
	a.Var(&breakFlag{&e.Break}, "break", "the employee's break: minutes, then the window its start falls in (30,11:30-13:30; default: the profile's)")
	profile := a.String("profile", "", "optimization profile used when a request names none: its name or id, as profiles list shows them")
	a.feeds("profile", "profileId")
	if err := a.parse(args); err != nil {
		return err
	}
	e.ID, e.Start, e.End, e.ShiftStart, e.ShiftEnd = *id, start.point, end.point, shiftStart.value, shiftEnd.value
	return withRoutes(ctx, a, func(routes *routesuggest.Service) error {
		if *profile != "" {
			p, err := profileNamed(ctx, routes, *tenant, *profile)
			if err != nil {
				return err
			}
			e.ProfileID = &p
		}
		saved, err := routes.PutEmployee(ctx, *tenant, e)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Saved employee %q of tenant %q.\n", saved.ID, *tenant)
		return nil
	})
}

// profileNamed finds a tenant's profile by name, or by id when ref is a
// number no profile has as its name.
func profileNamed(ctx context.Context, routes *routesuggest.Service, tenant, ref string) (int64, error) {
	list, err := routes.Profiles(ctx, tenant)
	if err != nil {
		return 0, err
	}
	var ids []string
	for _, p := range list {
		if p.Name == ref {
			ids = append(ids, strconv.FormatInt(p.ID, 10))
		}
	}
	switch {
	case len(ids) == 1:
		id, _ := strconv.ParseInt(ids[0], 10, 64)
		return id, nil
	case len(ids) > 1:
		return 0, errors.Newf("tenant %q has %d profiles named %q (ids %s): name one by its id", tenant, len(ids), ref, strings.Join(ids, ", "))
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return id, nil
	}
	return 0, errors.Newf("tenant %q has no optimization profile named %q; profiles list shows their names and ids", tenant, ref)
}

func runEmployeesList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("employees list --tenant T [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	if err := a.parse(args); err != nil {
		return err
	}
	return withRoutes(ctx, a, func(routes *routesuggest.Service) error {
		list, err := routes.Employees(ctx, *tenant)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		// "-" is a value not set, for which the default applies.
		fmt.Fprintln(tw, "ID\tNAME\tSTART\tEND\tSHIFT START\tSHIFT END\tBREAK\tPROFILE")
		for _, e := range list {
			start, end, brk := (&pointFlag{e.Start}).String(), (&pointFlag{e.End}).String(), (&breakFlag{&e.Break}).String()
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, orDash(&e.Name), orDash(&start), orDash(&end),
				orDash(e.ShiftStart), orDash(e.ShiftEnd), orDash(&brk), idOrDash(e.ProfileID))
		}
		return tw.Flush()
	})
}

func runEmployeesRemove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("employees remove --tenant T --id E [--data DIR | --database-url URL]", stdout, stderr)
	tenant := a.tenant()
	id := a.requiredString("id", "employee id")
	if err := a.parse(args); err != nil {
		return err
	}
	return withRoutes(ctx, a, func(routes *routesuggest.Service) error {
		if err := routes.DeleteEmployee(ctx, *tenant, *id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Removed employee %q of tenant %q.\n", *id, *tenant)
		return nil
	})
}

func idOrDash(id *int64) string {
	if id == nil {
		return "-"
	}
	return strconv.FormatInt(*id, 10)
}
