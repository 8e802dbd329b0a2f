package routesuggest

import "github.com/integration-connect/connect"

// EncodePolylineForTest encodes a road path as suggestions carry it, for the
// map's tests.
func EncodePolylineForTest(path []connect.RoutePoint) string {
	points := make([]Point, len(path))
	for i, p := range path {
		points[i] = Point{Latitude: p.Latitude, Longitude: p.Longitude}
	}
	return encodePolyline(points)
}
