package routetest

import (
	"embed"
	"path"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// golden holds route suggestions as the API returns them, made by real
// planning runs (berlin-day.json: go run ./examples/routemap -json …).
//
//go:embed testdata/*.json
var golden embed.FS

// GoldenRoutes returns the stored route suggestions by file name, for tests
// that check how routes are drawn and read.
func GoldenRoutes() (map[string]connect.RouteSuggestion, error) {
	files, err := golden.ReadDir("testdata")
	if err != nil {
		return nil, errors.Wrap(err, "listing the golden routes")
	}
	routes := map[string]connect.RouteSuggestion{}
	for _, f := range files {
		body, err := golden.ReadFile(path.Join("testdata", f.Name()))
		if err != nil {
			return nil, errors.Wrapf(err, "reading %s", f.Name())
		}
		var r connect.RouteSuggestion
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, errors.Wrapf(err, "decoding %s", f.Name())
		}
		routes[f.Name()] = r
	}
	return routes, nil
}
