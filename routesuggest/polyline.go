package routesuggest

import (
	"math"
	"strings"

	"github.com/cockroachdb/errors"
)

// polylinePrecision is the precision of route geometries: coordinates × 10⁶,
// OSRM's "polyline6", so a path is kept to about 0.1 m.
const polylinePrecision = 1e6

// encodePolyline writes a path in Google's encoded polyline format at
// polylinePrecision: latitude then longitude of every point, each as the
// difference to the previous point, in 5-bit chunks of printable ASCII.
func encodePolyline(path []Point) string {
	var b strings.Builder
	var lat, lon int64
	for _, p := range path {
		la, lo := int64(math.Round(p.Latitude*polylinePrecision)), int64(math.Round(p.Longitude*polylinePrecision))
		writePolylineValue(&b, la-lat)
		writePolylineValue(&b, lo-lon)
		lat, lon = la, lo
	}
	return b.String()
}

func writePolylineValue(b *strings.Builder, v int64) {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	for u >= 0x20 {
		b.WriteByte(byte(0x20|u&0x1f) + 63)
		u >>= 5
	}
	b.WriteByte(byte(u) + 63)
}

// decodePolyline reads what encodePolyline writes.
func decodePolyline(s string) ([]Point, error) {
	var path []Point
	var lat, lon int64
	for i := 0; i < len(s); {
		dLat, n, err := readPolylineValue(s[i:])
		if err != nil {
			return nil, err
		}
		i += n
		dLon, n, err := readPolylineValue(s[i:])
		if err != nil {
			return nil, err
		}
		i += n
		lat, lon = lat+dLat, lon+dLon
		path = append(path, Point{Latitude: float64(lat) / polylinePrecision, Longitude: float64(lon) / polylinePrecision})
	}
	return path, nil
}

// errPolyline is the error of a geometry that is not an encoded polyline.
var errPolyline = errors.New("not an encoded polyline")

func readPolylineValue(s string) (v int64, n int, err error) {
	var u uint64
	for shift := uint(0); ; shift += 5 {
		if n >= len(s) || shift > 60 || s[n] < 63 || s[n] > 63+0x3f {
			return 0, 0, errPolyline
		}
		c := uint64(s[n] - 63)
		n++
		u |= (c & 0x1f) << shift
		if c < 0x20 {
			break
		}
	}
	v = int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v, n, nil
}
