package routesuggest

import (
	"context"
	"math"

	"github.com/integration-connect/connect/store"
)

// Point is a place on earth, in degrees.
type Point struct {
	Latitude, Longitude float64
}

// Travel is the travel between every pair of points of a route problem.
type Travel struct {
	// Seconds[i][j] is the travel time from point i to point j.
	Seconds [][]int64
	// Meters[i][j] is the travel distance from point i to point j.
	Meters [][]float64
}

// TravelModel gives the travel times and distances between points. The default,
// GreatCircle, needs no map data. A host application with a road network
// (OSRM, Valhalla, a commercial matrix API, …) implements TravelModel with one
// matrix request and passes it as Config.Travel; nothing else changes.
type TravelModel interface {
	Matrix(ctx context.Context, points []Point, profile store.OptimizationProfile) (Travel, error)
}

// GreatCircle estimates travel from the great-circle distance: distance ×
// profile.DetourFactor (roads are longer than the crow flies) ÷
// profile.AverageSpeedKmh.
type GreatCircle struct{}

// Matrix implements TravelModel.
func (GreatCircle) Matrix(_ context.Context, points []Point, profile store.OptimizationProfile) (Travel, error) {
	n := len(points)
	t := Travel{Seconds: make([][]int64, n), Meters: make([][]float64, n)}
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
