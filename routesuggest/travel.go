package routesuggest

import (
	"context"
	"math"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/solver"
	"github.com/integration-connect/connect/store"
)

// Point is a place on earth, in degrees.
type Point struct {
	Latitude, Longitude float64
}

// Travel is the travel between every pair of points of a route problem.
type Travel struct {
	// Seconds[i][j] is the travel time from point i to point j; NoRoute when
	// no road leads from i to j.
	Seconds [][]int64
	// Meters[i][j] is the travel distance from point i to point j (0 where
	// Seconds is NoRoute).
	Meters [][]float64
	// Model is what the times come from.
	Model connect.TravelModel
	// OffRoad[i] is true when point i lies farther from any road than the
	// model accepts; nil when every point is on the network (as with
	// GreatCircle).
	OffRoad []bool
}

// NoRoute is the travel time between points no road connects: longer than
// any day, so the solver never puts such a leg on a route.
const NoRoute = solver.MaxTime

// TravelModel gives the travel times and distances between points. The default,
// GreatCircle, needs no map data; OSRM asks a road engine. A host application
// with another engine (Valhalla, a commercial matrix API, …) implements
// TravelModel with one matrix request and passes it as Config.Travel; nothing
// else changes.
type TravelModel interface {
	// Matrix returns the travel between every pair of points, with the
	// profile's speed where the model needs one. A model whose engine cannot
	// answer (down, too slow, refusing) marks its error with
	// ErrTravelUnavailable, so the service can fall back or say so.
	Matrix(ctx context.Context, points []Point, profile store.OptimizationProfile) (Travel, error)
}

// RoadPaths is implemented by travel models that know the roads, so a map
// can draw each leg along the road its time was measured on.
type RoadPaths interface {
	// Paths returns the road path of every leg of a route through points in
	// order: len(points)-1 paths, each from one point to the next.
	Paths(ctx context.Context, points []Point) ([][]Point, error)
}

// ErrTravelUnavailable marks the errors of a travel model whose engine did not
// answer: the request may succeed later, or with great-circle estimates.
var ErrTravelUnavailable = errors.New("the road engine is unavailable")

// GreatCircle estimates travel from the great-circle distance: distance ×
// profile.DetourFactor (roads are longer than the crow flies) ÷
// profile.AverageSpeedKmh.
type GreatCircle struct{}

// Matrix implements TravelModel.
func (GreatCircle) Matrix(_ context.Context, points []Point, profile store.OptimizationProfile) (Travel, error) {
	n := len(points)
	t := Travel{Seconds: make([][]int64, n), Meters: make([][]float64, n), Model: connect.TravelGreatCircle}
	for i := range points {
		t.Seconds[i], t.Meters[i] = make([]int64, n), make([]float64, n)
		for j := range points {
			meters := haversineMeters(points[i], points[j]) * profile.DetourFactor
			t.Meters[i][j] = meters
			t.Seconds[i][j] = int64(math.Ceil(meters / 1000 / profile.AverageSpeedKmh * 3600))
		}
	}
	return t, nil
}

const earthRadiusMeters = 6371008.8

// haversineMeters is the great-circle distance between two points.
func haversineMeters(a, b Point) float64 {
	const rad = math.Pi / 180
	dLat, dLon := (b.Latitude-a.Latitude)*rad, (b.Longitude-a.Longitude)*rad
	h := math.Pow(math.Sin(dLat/2), 2) + math.Cos(a.Latitude*rad)*math.Cos(b.Latitude*rad)*math.Pow(math.Sin(dLon/2), 2)
	return 2 * earthRadiusMeters * math.Asin(math.Min(1, math.Sqrt(h)))
}
