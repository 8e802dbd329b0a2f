package routesuggest

import (
	"math"
	"testing"
)

// TestPolyline: the encoding is Google's polyline algorithm at precision 6,
// as OSRM writes it ("qnclrAa`ddM" is a point OSRM snapped in Monaco), and
// decoding gives back what was encoded, to the micro-degree.
func TestPolyline(t *testing.T) {
	got, err := decodePolyline("qnclrAa`ddM")
	if err != nil || len(got) != 1 || got[0] != (Point{Latitude: 43.731193, Longitude: 7.424529}) {
		t.Errorf("OSRM's geometry decodes to %v, %v", got, err)
	}
	path := []Point{{43.731193, 7.424529}, {43.7384, 7.420503}, {-33.8688, 151.2093}, {0, 0}, {43.7306788, 7.4255221}}
	back, err := decodePolyline(encodePolyline(path))
	if err != nil || len(back) != len(path) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
	for i := range path {
		if math.Abs(back[i].Latitude-path[i].Latitude) > 0.6e-6 || math.Abs(back[i].Longitude-path[i].Longitude) > 0.6e-6 {
			t.Errorf("point %d: %v came back as %v", i, path[i], back[i])
		}
	}
	for _, bad := range []string{"qnclrA", "qnclrAa`ddM!", "\x7f"} {
		if _, err := decodePolyline(bad); err == nil {
			t.Errorf("%q decodes without an error", bad)
		}
	}
}
