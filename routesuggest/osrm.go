package routesuggest

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Defaults of OSRM.
const (
	// DefaultOSRMTableLimit is osrm-routed's own default --max-table-size.
	DefaultOSRMTableLimit = 100
	// DefaultOSRMMaxRequests allows a matrix of 800 points at the default
	// table limit, 8,000 at a limit of 1,000.
	DefaultOSRMMaxRequests = 64
	DefaultOSRMTimeout     = 10 * time.Second
	DefaultMaxSnapMeters   = 500.0
)

// osrmParallel is how many requests of one matrix are in flight at a time.
const osrmParallel = 4

// osrmRouteWaypoints is the most points of one route request; longer routes
// are fetched in pieces that share their end points (osrm-routed's own limit
// is --max-viaroute-size, 500 by default).
const osrmRouteWaypoints = 100

// maxOSRMResponse bounds what is read of one answer: a table of 1,000 × 1,000
// durations and distances is about 20 MB.
const maxOSRMResponse = 64 << 20

// OSRM is a TravelModel on the HTTP API of an OSRM server (osrm-routed, for
// example with the car profile over an OpenStreetMap extract): its table
// service gives the driving time and distance between every pair of points,
// and its route service the road path of every leg (RoadPaths).
//
// Every point is snapped to the nearest road. A point farther from it than
// MaxSnapMeters is off the road network (Travel.OffRoad), and a pair of points
// no road connects has the time NoRoute; route suggestions exclude such targets
// with the reason NoRoadAccess rather than route them on invented times.
//
// A matrix larger than the server's table limit is fetched in blocks, at most
// MaxRequests of them, a few at a time, within Timeout; each point pair is
// asked for once. Any failure of the server (unreachable, an error answer,
// no answer in time) is marked ErrTravelUnavailable. The zero values of the
// fields take the documented defaults; URL is required.
type OSRM struct {
	// URL is the server's address, such as http://127.0.0.1:5000.
	URL string
	// Profile is the profile name in request paths; "" means "driving" (the
	// server plans with whatever profile its graph was built with).
	Profile string
	// TableLimit is the server's --max-table-size: one table request asks for
	// at most TableLimit² times. Default 100, osrm-routed's default.
	TableLimit int
	// MaxRequests bounds the table requests of one matrix; a matrix that would
	// need more fails. Default 64.
	MaxRequests int
	// Timeout bounds the fetching of one matrix, and of one route's paths.
	// Default 10 s.
	Timeout time.Duration
	// MaxSnapMeters is how far from the nearest road a point may lie and
	// still be reached. Default 500 m.
	MaxSnapMeters float64
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
}

var (
	_ TravelModel = (*OSRM)(nil)
	_ RoadPaths   = (*OSRM)(nil)
)

func (o *OSRM) withDefaults() OSRM {
	c := *o
	c.URL = strings.TrimRight(c.URL, "/")
	if c.Profile == "" {
		c.Profile = "driving"
	}
	if c.TableLimit <= 0 {
		c.TableLimit = DefaultOSRMTableLimit
	}
	if c.MaxRequests <= 0 {
		c.MaxRequests = DefaultOSRMMaxRequests
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultOSRMTimeout
	}
	if c.MaxSnapMeters <= 0 {
		c.MaxSnapMeters = DefaultMaxSnapMeters
	}
	if c.Client == nil {
		c.Client = http.DefaultClient
	}
	return c
}

// span is a range [from, to) of point indices.
type span struct{ from, to int }

func (s span) len() int { return s.to - s.from }

// tableBlock is one table request: the times from the points of rows to the
// points of cols.
type tableBlock struct{ rows, cols span }

// Matrix implements TravelModel. The profile plays no part: the server's graph
// has its own speeds.
func (o *OSRM) Matrix(ctx context.Context, points []Point, _ store.OptimizationProfile) (Travel, error) {
	c := o.withDefaults()
	n := len(points)
	t := Travel{Seconds: make([][]int64, n), Meters: make([][]float64, n), Model: connect.TravelRoad, OffRoad: make([]bool, n)}
	for i := range n {
		t.Seconds[i], t.Meters[i] = make([]int64, n), make([]float64, n)
	}
	if n == 0 {
		return t, nil
	}
	blocks := c.blocks(n)
	if len(blocks) > c.MaxRequests {
		return Travel{}, errors.Mark(errors.Newf("a matrix of %d points needs %d table requests at the table limit %d, more than the %d allowed",
			n, len(blocks), c.TableLimit, c.MaxRequests), ErrTravelUnavailable)
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	err := inParallel(ctx, len(blocks), func(ctx context.Context, i int) error {
		return c.fetchBlock(ctx, points, blocks[i], &t)
	})
	return t, c.timedOut(ctx, err)
}

// timedOut marks err unavailable when it is this model's own timeout, not the
// caller's cancellation.
func (c OSRM) timedOut(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, ErrTravelUnavailable) {
		return errors.Mark(errors.Wrapf(err, "OSRM gave no answer within %s", c.Timeout), ErrTravelUnavailable)
	}
	return err
}

// blocks splits an n × n matrix into table requests of at most TableLimit²
// times each: whole rows of the matrix when a row fits, as few requests as
// the limit allows.
func (c OSRM) blocks(n int) []tableBlock {
	cells := c.TableLimit * c.TableLimit
	cols := min(n, cells)
	rows := max(1, cells/cols)
	var blocks []tableBlock
	for r := 0; r < n; r += rows {
		for k := 0; k < n; k += cols {
			blocks = append(blocks, tableBlock{span{r, min(n, r+rows)}, span{k, min(n, k+cols)}})
		}
	}
	return blocks
}

// osrmTable is the part of a table answer that is read.
type osrmTable struct {
	Code         string       `json:"code"`
	Message      string       `json:"message"`
	Durations    [][]*float64 `json:"durations"`
	Distances    [][]*float64 `json:"distances"`
	Destinations []struct {
		Distance float64 `json:"distance"`
	} `json:"destinations"`
}

// fetchBlock asks for one block and writes it into t. Blocks never share a
// cell; the snap distances come from the blocks of the first rows, in which
// every point is a destination once.
func (c OSRM) fetchBlock(ctx context.Context, points []Point, b tableBlock, t *Travel) error {
	coords := append(append([]Point{}, points[b.rows.from:b.rows.to]...), points[b.cols.from:b.cols.to]...)
	q := fmt.Sprintf("annotations=duration,distance&generate_hints=false&sources=%s&destinations=%s",
		indexList(0, b.rows.len()), indexList(b.rows.len(), b.rows.len()+b.cols.len()))
	var table osrmTable
	if err := c.get(ctx, "table", coords, q, &table); err != nil {
		return err
	}
	if len(table.Durations) != b.rows.len() || len(table.Distances) != b.rows.len() || len(table.Destinations) != b.cols.len() {
		return errors.Mark(errors.Newf("a table answer of %d rows and %d destinations, asked for %d × %d",
			len(table.Durations), len(table.Destinations), b.rows.len(), b.cols.len()), ErrTravelUnavailable)
	}
	for i := range b.rows.len() {
		if len(table.Durations[i]) != b.cols.len() || len(table.Distances[i]) != b.cols.len() {
			return errors.Mark(errors.Newf("table row %d has %d times for %d destinations", i, len(table.Durations[i]), b.cols.len()), ErrTravelUnavailable)
		}
		for j := range b.cols.len() {
			from, to := b.rows.from+i, b.cols.from+j
			duration, distance := table.Durations[i][j], table.Distances[i][j]
			switch {
			case from == to:
				// The time from a point to itself is 0 whatever the snapping.
			case duration == nil:
				t.Seconds[from][to] = NoRoute
			default:
				t.Seconds[from][to] = int64(math.Round(*duration))
				if distance != nil {
					t.Meters[from][to] = *distance
				}
			}
		}
	}
	if b.rows.from == 0 {
		for j, d := range table.Destinations {
			t.OffRoad[b.cols.from+j] = d.Distance > c.MaxSnapMeters
		}
	}
	return nil
}

// osrmRoute is the part of a route answer that is read.
type osrmRoute struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Routes  []struct {
		Legs []struct {
			Steps []struct {
				Geometry string `json:"geometry"`
			} `json:"steps"`
		} `json:"legs"`
	} `json:"routes"`
}

// Paths implements RoadPaths with the route service: the path of every leg,
// from the geometries of its turn-by-turn steps.
func (o *OSRM) Paths(ctx context.Context, points []Point) ([][]Point, error) {
	c := o.withDefaults()
	if len(points) < 2 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	var paths [][]Point
	for from := 0; from+1 < len(points); from += osrmRouteWaypoints - 1 {
		piece := points[from:min(len(points), from+osrmRouteWaypoints)]
		legs, err := c.route(ctx, piece)
		if err != nil {
			return nil, c.timedOut(ctx, err)
		}
		paths = append(paths, legs...)
	}
	return paths, nil
}

// route fetches the legs of a route through points.
func (c OSRM) route(ctx context.Context, points []Point) ([][]Point, error) {
	var answer osrmRoute
	if err := c.get(ctx, "route", points, "overview=false&steps=true&geometries=polyline6&generate_hints=false", &answer); err != nil {
		return nil, err
	}
	if len(answer.Routes) == 0 || len(answer.Routes[0].Legs) != len(points)-1 {
		return nil, errors.Mark(errors.Newf("a route answer without the %d legs asked for", len(points)-1), ErrTravelUnavailable)
	}
	legs := make([][]Point, len(points)-1)
	for i, leg := range answer.Routes[0].Legs {
		for _, step := range leg.Steps {
			path, err := decodePolyline(step.Geometry)
			if err != nil {
				return nil, errors.Mark(errors.Wrapf(err, "the geometry of leg %d", i), ErrTravelUnavailable)
			}
			if len(legs[i]) > 0 && len(path) > 0 && legs[i][len(legs[i])-1] == path[0] {
				path = path[1:] // a step starts where the one before it ends
			}
			legs[i] = append(legs[i], path...)
		}
	}
	return legs, nil
}

// get sends one request of service for points and decodes the answer into
// v. Failures of the server are marked ErrTravelUnavailable; the caller's
// own cancellation is returned as it is.
func (c OSRM) get(ctx context.Context, service string, points []Point, query string, v osrmAnswer) error {
	address := fmt.Sprintf("%s/%s/v1/%s/%s?%s", c.URL, service, c.Profile, coordinateList(points), query)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return errors.Wrap(err, "building an OSRM request")
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errors.WithStack(ctx.Err())
		}
		var urlErr *neturl.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err // without the request's long URL
		}
		return errors.Mark(errors.Wrapf(err, "OSRM %s request to %s", service, c.URL), ErrTravelUnavailable)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOSRMResponse))
	if err != nil {
		return errors.Mark(errors.Wrapf(err, "reading an OSRM %s answer", service), ErrTravelUnavailable)
	}
	err = json.Unmarshal(body, v)
	if code, message := v.status(); err != nil || resp.StatusCode != http.StatusOK || code != "Ok" {
		return errors.Mark(errors.Newf("OSRM %s answered HTTP %d, code %q: %s (%v)", service, resp.StatusCode, code, connect.Cut(message), err), ErrTravelUnavailable)
	}
	return nil
}

// osrmAnswer is an answer of OSRM: every answer says how it went.
type osrmAnswer interface {
	status() (code, message string)
}

func (t *osrmTable) status() (string, string) { return t.Code, t.Message }
func (r *osrmRoute) status() (string, string) { return r.Code, r.Message }

// coordinateList is points as OSRM takes them: lon,lat;lon,lat;…
func coordinateList(points []Point) string {
	var b strings.Builder
	for i, p := range points {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(strconv.FormatFloat(p.Longitude, 'f', 6, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(p.Latitude, 'f', 6, 64))
	}
	return b.String()
}

// indexList is from;from+1;…;to-1.
func indexList(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(';')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// inParallel calls fn for 0..n-1, osrmParallel at a time; the first error
// cancels the others and is returned.
func inParallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		turns    = make(chan struct{}, osrmParallel)
	)
	for i := range n {
		select {
		case turns <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-turns }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { firstErr = err; cancel() })
			}
		})
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = errors.WithStack(ctx.Err())
	}
	return firstErr
}
