package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// TestRun plans the sample day and checks what the example promises: a map
// with a label per stop, and a suggestion with stops, exclusions with and
// without coordinates, and local times.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	svgPath, jsonPath := filepath.Join(dir, "day.svg"), filepath.Join(dir, "day.json")
	if err := run(context.Background(), svgPath, jsonPath); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var r connect.RouteSuggestion
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	reasons := map[connect.ExclusionReason]int{}
	for _, x := range r.Excluded {
		reasons[x.Reason]++
	}
	if len(r.Stops) < 8 || len(r.Stops)+len(r.Excluded) != len(sites) || r.TimeZone != "Europe/Berlin" ||
		reasons[connect.ExcludedMissingCoordinates] != 2 || reasons[connect.ExcludedOtherRouteDate] != 1 {
		t.Fatalf("%d stops, exclusions %v, time zone %q", len(r.Stops), reasons, r.TimeZone)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(svg), `class="stop-label"`); !strings.HasPrefix(string(svg), "<svg") || n != len(r.Stops) {
		t.Errorf("the map has %d stop labels for %d stops", n, len(r.Stops))
	}
}
