// Command routemap plans a realistic technician's day and draws it: it opens a
// bbolt store in a temporary directory, imports 40 work targets across Berlin
// (time windows, two fixed appointments, priorities, two without coordinates,
// one for another day), configures a Berlin profile and an employee who starts
// and ends at the depot, asks for a route suggestion for Monday 23 November
// 2026, prints the day as a dispatcher would read it and writes the map (and,
// with -json, the suggestion as GET /route-suggestions/{id} returns it).
//
//	go run ./examples/routemap            # writes routemap.svg
//	go run ./examples/routemap -o day.svg -json day.json
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
)

func main() {
	out := flag.String("o", "routemap.svg", "where to write the SVG map")
	jsonOut := flag.String("json", "", "where to write the suggestion as JSON (nowhere when empty)")
	flag.Parse()
	if err := run(context.Background(), *out, *jsonOut); err != nil {
		slog.Error("routemap example failed", "error", err)
		os.Exit(1)
	}
}

// site is one work target of the sample day.
type site struct {
	id, title, street string
	lat, lon          float64 // 0, 0: the address has no coordinates
	minutes           int
	window            string // "" or local "HH:MM-HH:MM"; a trailing "!" makes it a fixed appointment
	priority          string
}

// sites are the targets: real Berlin streets, a typical heating-service day.
var sites = []site{
	{"WO-24101", "Boiler maintenance", "Kastanienallee 12", 52.5390, 13.4090, 45, "", "normal"},
	{"WO-24102", "Heat pump inspection", "Schönhauser Allee 80", 52.5450, 13.4120, 60, "08:00-10:00", "high"},
	{"WO-24103", "Gas safety check", "Bergmannstraße 5", 52.4890, 13.3940, 30, "", "normal"},
	{"WO-24104", "Radiator replacement", "Oranienstraße 25", 52.5010, 13.4190, 90, "", "low"},
	{"WO-24105", "Thermostat installation", "Sonnenallee 110", 52.4800, 13.4400, 30, "13:00-15:00", "normal"},
	{"WO-24106", "Leak repair, cellar", "Karl-Marx-Straße 90", 52.4760, 13.4390, 45, "", "urgent"},
	{"WO-24107", "Annual service", "Friedrichstraße 140", 52.5170, 13.3890, 40, "10:00-12:00", "normal"},
	{"WO-24108", "Water heater descaling", "Kurfürstendamm 60", 52.5030, 13.3300, 50, "", "low"},
	{"WO-24109", "Boiler maintenance", "Kantstraße 30", 52.5060, 13.3140, 45, "", "normal"},
	{"WO-24110", "Gas safety check", "Wilmersdorfer Straße 50", 52.5090, 13.3060, 30, "", "normal"},
	{"WO-24111", "Heat pump inspection", "Turmstraße 20", 52.5260, 13.3420, 60, "", "high"},
	{"WO-24112", "Radiator bleeding", "Müllerstraße 140", 52.5490, 13.3550, 20, "", "low"},
	{"WO-24113", "Annual service", "Badstraße 30", 52.5510, 13.3800, 40, "", "normal"},
	{"WO-24114", "Boiler replacement survey", "Frankfurter Allee 100", 52.5140, 13.4700, 60, "09:00-09:00!", "high"},
	{"WO-24115", "Leak repair", "Boxhagener Straße 40", 52.5110, 13.4620, 45, "", "high"},
	{"WO-24116", "Thermostat installation", "Warschauer Straße 70", 52.5070, 13.4500, 30, "", "normal"},
	{"WO-24117", "Gas safety check", "Greifswalder Straße 200", 52.5350, 13.4350, 30, "", "normal"},
	{"WO-24118", "Annual service", "Danziger Straße 60", 52.5400, 13.4250, 40, "14:00-16:00", "normal"},
	{"WO-24119", "Heat pump inspection", "Torstraße 100", 52.5290, 13.4010, 60, "", "normal"},
	{"WO-24120", "Boiler maintenance", "Invalidenstraße 110", 52.5300, 13.3800, 45, "", "low"},
	{"WO-24121", "Radiator replacement", "Potsdamer Straße 150", 52.5000, 13.3650, 90, "", "normal"},
	{"WO-24122", "Water heater descaling", "Hauptstraße 30", 52.4860, 13.3540, 50, "", "normal"},
	{"WO-24123", "Gas safety check", "Yorckstraße 80", 52.4930, 13.3750, 30, "11:00-13:00", "high"},
	{"WO-24124", "Annual service", "Gneisenaustraße 60", 52.4910, 13.4000, 40, "", "normal"},
	{"WO-24125", "Leak repair, bathroom", "Hermannstraße 120", 52.4700, 13.4280, 45, "", "urgent"},
	{"WO-24126", "Boiler maintenance", "Schloßstraße 40", 52.4580, 13.3210, 45, "", "low"},
	{"WO-24127", "Thermostat installation", "Rheinstraße 10", 52.4720, 13.3330, 30, "", "normal"},
	{"WO-24128", "Heat pump inspection", "Tempelhofer Damm 150", 52.4660, 13.3850, 60, "15:00-17:00", "normal"},
	{"WO-24129", "Annual service", "Landsberger Allee 50", 52.5300, 13.4600, 40, "", "low"},
	{"WO-24130", "Gas safety check", "Prenzlauer Allee 200", 52.5370, 13.4200, 30, "", "normal"},
	{"WO-24131", "Radiator bleeding", "Brunnenstraße 150", 52.5350, 13.3970, 20, "", "normal"},
	{"WO-24132", "Boiler maintenance", "Chausseestraße 30", 52.5300, 13.3830, 45, "", "normal"},
	{"WO-24133", "Water heater descaling", "Alt-Moabit 90", 52.5230, 13.3500, 50, "", "low"},
	{"WO-24134", "Gas safety check", "Otto-Suhr-Allee 40", 52.5160, 13.3030, 30, "", "normal"},
	{"WO-24135", "Annual service", "Skalitzer Straße 100", 52.4990, 13.4250, 40, "", "high"},
	{"WO-24136", "Leak repair, kitchen", "Manteuffelstraße 50", 52.4985, 13.4262, 45, "", "high"},
	{"WO-24137", "Heat pump inspection", "Mehringdamm 50", 52.4930, 13.3880, 60, "10:30-10:30!", "urgent"},
	{"WO-24138", "Boiler maintenance", "Köpenicker Straße 150", 52.5090, 13.4210, 45, "", "normal"},
	{"WO-24139", "Gas safety check", "Wrangelstraße 20", 0, 0, 30, "", "normal"},
	{"WO-24140", "Annual service", "Sonnenallee 200", 0, 0, 40, "", "normal"},
}

// day is the route date; the targets are planned for it, but one.
var day = connect.Date{Year: 2026, Month: time.November, Day: 23}

func run(ctx context.Context, out, jsonOut string) error {
	dir, err := os.MkdirTemp("", "connect-routemap-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := bolt.OpenDir(dir, nil)
	if err != nil {
		return err
	}
	defer db.Close()

	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		return err
	}
	caller := connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "erp", Scopes: connect.AllScopes}
	batch := connect.InboundTargetBatch{Targets: targets(berlin)}
	imported, err := importer.New(importer.Config{Store: db}).ImportBatch(ctx, caller, batch, connect.WriteOptions{})
	if err != nil {
		return err
	}

	routes := routesuggest.New(routesuggest.Config{Store: db})
	if err := setUpTechnician(ctx, routes); err != nil {
		return err
	}
	created, err := routes.CreateRouteSuggestion(ctx, caller, imported.Result.ImportJobID,
		connect.CreateImportJobRouteSuggestionRequest{RouteDate: day, EmployeeID: new("tech-anna"), MinimumBufferMinutes: new(5)}, connect.WriteOptions{})
	if err != nil {
		return err
	}
	r, err := routes.GetRouteSuggestion(ctx, caller, created.Response.RouteSuggestionID)
	if err != nil {
		return err
	}
	printDay(r, berlin)
	if err := os.WriteFile(out, routesuggest.SVG(r), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nMap written to %s\n", out)
	if jsonOut == "" {
		return nil
	}
	body, err := json.Marshal(r, jsontext.WithIndent("  "))
	if err != nil {
		return err
	}
	return os.WriteFile(jsonOut, append(body, '\n'), 0o644)
}

// setUpTechnician configures the tenant's Berlin profile and Anna, who starts
// and ends her day at the depot in Tempelhof.
func setUpTechnician(ctx context.Context, routes *routesuggest.Service) error {
	profile, err := routes.CreateProfile(ctx, "acme", store.OptimizationProfile{
		Name: "Berlin city", TimeZone: "Europe/Berlin", ShiftStart: "07:30", ShiftEnd: "16:30",
		AverageSpeedKmh: 22, DetourFactor: 1.4,
	})
	if err != nil {
		return err
	}
	depot := &connect.RoutePoint{Latitude: 52.4700, Longitude: 13.4000}
	_, err = routes.PutEmployee(ctx, "acme", store.Employee{ID: "tech-anna", Name: "Anna Weber", Start: depot, ProfileID: &profile.ID})
	return err
}

// targets turns the sites into import targets; WO-24112 belongs to another day.
func targets(berlin *time.Location) []connect.InboundTarget {
	var ts []connect.InboundTarget
	for _, s := range sites {
		t := connect.InboundTarget{
			ExternalID: s.id, Title: s.title + ", " + s.street,
			Address: &connect.InboundTargetAddress{Street: new(s.street), City: new("Berlin"), Country: new("DE")},
			Planning: &connect.InboundTargetPlanning{
				RouteDate: &day, EstimatedWorkMinutes: new(s.minutes), Priority: new(s.priority),
			},
		}
		if s.lat != 0 {
			t.Address.Latitude, t.Address.Longitude = new(s.lat), new(s.lon)
		}
		if s.id == "WO-24112" {
			t.Planning.RouteDate = &connect.Date{Year: 2026, Month: time.November, Day: 24}
		}
		setWindow(t.Planning, s.window, berlin)
		ts = append(ts, t)
	}
	return ts
}

// setWindow sets a local "HH:MM-HH:MM" window on the day; "!" at the end
// makes it a fixed appointment at its start (an hour's window).
func setWindow(p *connect.InboundTargetPlanning, window string, berlin *time.Location) {
	if window == "" {
		return
	}
	fixed := window[len(window)-1] == '!'
	at := func(hhmm string) *time.Time {
		var h, m int
		fmt.Sscanf(hhmm, "%d:%d", &h, &m)
		return new(time.Date(day.Year, day.Month, day.Day, h, m, 0, 0, berlin).UTC())
	}
	p.TimeWindowStartUtc, p.TimeWindowEndUtc = at(window[:5]), at(window[6:11])
	if fixed {
		p.FixedTime, p.TimeWindowEndUtc = new(true), new(p.TimeWindowStartUtc.Add(time.Hour))
	}
}

// printDay prints the route as a dispatcher reads it, in Berlin time.
func printDay(r connect.RouteSuggestion, berlin *time.Location) {
	clock := func(t time.Time) string { return t.In(berlin).Format("15:04") }
	fmt.Printf("Route for %s on %s: %d stops, %.1f km, %.0f min travel, %d min work, %.0f min waiting\n",
		*r.EmployeeID, r.RouteDate, len(r.Stops), r.TotalTravelKm, r.TotalTravelMinutes, r.TotalWorkMinutes, r.WaitMinutes)
	if r.StartUtc != nil {
		fmt.Printf("Leaves the depot at %s, back at %s (Europe/Berlin)\n\n", clock(*r.StartUtc), clock(*r.EndUtc))
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "#\ttarget\tarrive\twait\twork\ttitle")
	for _, s := range r.Stops {
		fmt.Fprintf(w, "%d\t%s\t%s\t%.0f min\t%s–%s\t%s\n", s.Sequence, s.ExternalID, clock(s.ArrivalUtc), s.WaitMinutes, clock(s.ServiceStartUtc), clock(s.DepartureUtc), s.Title)
	}
	w.Flush()
	fmt.Printf("\nNot on the route: %d\n", len(r.Excluded))
	for _, x := range r.Excluded {
		where := "no coordinates"
		if x.Latitude != nil {
			where = fmt.Sprintf("%.4f, %.4f", *x.Latitude, *x.Longitude)
		}
		fmt.Printf("  %s  %s  (%s)\n", x.ExternalID, x.Reason, where)
	}
}
