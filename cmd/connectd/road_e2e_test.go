package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/osrmtest"
)

// TestServeOnRoads: connectd serve --osrm-url plans route suggestions on the
// engine's road times, says so in its log and in the suggestion, and keeps
// the great-circle model for a profile that asks for it.
func TestServeOnRoads(t *testing.T) {
	engine := osrmtest.URL(t)
	bin := buildBinary(t)
	data := dataDir(t)
	out, err := exec.Command(bin, "keys", "create", "--tenant", "acme", "--client", "planner", "--source-system", "erp",
		"--scopes", "inbound.targets.batch.write,route_suggestions.create,import_jobs.read", "--data", data).Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]
	if r := cli(t, bin, "profiles", "add", "--tenant", "acme", "--name", "Estimates", "--great-circle", "--data", data); r.status != 0 {
		t.Fatalf("profiles add: %+v", r)
	}

	d := startDaemon(t, bin, "--data", data, "--osrm-url", engine, "--osrm-table-limit", "1000")
	if logs := d.stderr.String(); !strings.Contains(logs, "travel=\"OSRM at "+engine+"\"") {
		t.Errorf("the start line does not name the road engine:\n%s", logs)
	}
	status, body := call(t, "POST", d.url+"/inbound/targets/batch", key,
		`{"targets":[{"externalId":"M1","title":"Casino","address":{"latitude":43.7393,"longitude":7.4281}},`+
			`{"externalId":"M2","title":"Palace","address":{"latitude":43.7314,"longitude":7.4199}},`+
			`{"externalId":"M3","title":"At sea","address":{"latitude":43.725,"longitude":7.445}}]}`)
	var job connect.InboundImportResult
	if err := json.Unmarshal(body, &job); status != 200 || err != nil {
		t.Fatalf("import: %d %s", status, body)
	}
	for _, tc := range []struct {
		body     string
		model    connect.TravelModel
		excluded string
	}{
		{`{"routeDate":"2026-11-23"}`, connect.TravelRoad, "M3 NoRoadAccess"},
		{`{"routeDate":"2026-11-23","optimizationProfileId":1}`, connect.TravelGreatCircle, ""},
	} {
		status, body := call(t, "POST", fmt.Sprintf("%s/import-jobs/%d/route-suggestion", d.url, job.ImportJobID), key, tc.body)
		var created connect.CreateRouteSuggestionResponse
		if err := json.Unmarshal(body, &created); status != 200 || err != nil {
			t.Fatalf("%s: %d %s", tc.body, status, body)
		}
		_, body = call(t, "GET", fmt.Sprintf("%s/route-suggestions/%d", d.url, created.RouteSuggestionID), key, "")
		var r connect.RouteSuggestion
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		var excluded []string
		for _, e := range r.Excluded {
			excluded = append(excluded, e.ExternalID+" "+string(e.Reason))
		}
		if r.TravelModel != tc.model || strings.Join(excluded, ",") != tc.excluded {
			t.Errorf("%s: model %q, excluded %q; want %q and %q", tc.body, r.TravelModel, excluded, tc.model, tc.excluded)
		}
	}
	if code := d.stop(t); code != 0 {
		t.Errorf("exit status %d", code)
	}
}
