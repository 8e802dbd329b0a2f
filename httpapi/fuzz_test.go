package httpapi_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

// The fuzz tests send what a decoder of a request reaches through the whole
// handler, on a real store, and check the properties every answer keeps
// (issue 12): no panic, no 5xx, nothing written when the request is refused,
// and every refusal (and every rejected item) names the field at fault.
// Seed corpora are in testdata/fuzz; .ci/run fuzzes each target for a while.

// fuzzServer is a server whose client holds every scope, with one job
// (id 1) to ask routes for and one appointment request to cancel.
type fuzzServer struct {
	*server
	key         string
	appointment string
}

func newFuzzServer(f *testing.F) *fuzzServer {
	// Fuzz data is thrown away: no fsync, so inputs run many times faster.
	s := newServerOn(f, bolttest.OpenWith(f, &bolt.Options{NoSync: true}), func(c *httpapi.Config) {
		c.Logger = slog.New(slog.DiscardHandler)
		c.RateLimit, c.RateBurst = rate.Inf, 1
	})
	fs := &fuzzServer{server: s, key: s.key("acme", "erp", connect.AllScopes...)}
	rec := fs.serve(http.MethodPost, base+"/inbound/targets/batch", nil, []byte(`{"targets":[{"externalId":"F1","title":"t","address":{"latitude":52.5,"longitude":13.4}}]}`))
	if rec.Code != 200 {
		f.Fatalf("seeding a job: %d %s", rec.Code, rec.Body)
	}
	rec = fs.serve(http.MethodPost, "/connect/v1/appointment-requests", nil, []byte(`{"externalReference":"F","serviceType":"visit","location":{"city":"Berlin"}}`))
	var created connect.AppointmentRequest
	if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &created) != nil {
		f.Fatalf("seeding an appointment request: %d %s", rec.Code, rec.Body)
	}
	fs.appointment = created.ID
	return fs
}

func (s *fuzzServer) serve(method, target string, header http.Header, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://connect.test"+target, bytes.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec
}

// check sends one request and checks the properties of its answer.
func (s *fuzzServer) check(t *testing.T, method, target string, header http.Header, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	before := s.records(t)
	rec := s.serve(method, target, header, body)
	switch {
	case rec.Code >= 500:
		t.Fatalf("%s %s answered %d: %s", method, target, rec.Code, rec.Body)
	case rec.Code >= 400:
		if after := s.records(t); after != before {
			t.Fatalf("%s %s was refused (%d) but the store changed: %s, then %s", method, target, rec.Code, before, after)
		}
		var e connect.ApiErrorResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
			t.Fatalf("error body %s: %v", rec.Body, err)
		}
		if !namesField(e.Error.Code, e.Error.Message) {
			t.Fatalf("%s %s: refusal %s %q names no field", method, target, e.Error.Code, e.Error.Message)
		}
	}
	return rec
}

// checkItems checks that every rejected item of an import names its field.
func checkItems(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code >= 300 {
		return
	}
	var result connect.InboundImportResult
	if err := json.Unmarshal(rec.Body.Bytes(), &result); err != nil {
		t.Fatalf("import result %s: %v", rec.Body, err)
	}
	for i, item := range result.Items {
		if item.ErrorMessage != nil && !namesField(*item.ErrorCode, *item.ErrorMessage) {
			t.Fatalf("item %d: %s %q names no field", i, *item.ErrorCode, *item.ErrorMessage)
		}
		if utf8.RuneCountInString(item.ExternalID) > connect.MaxQuoted+1 {
			t.Fatalf("item %d keeps an externalId of %d characters", i, utf8.RuneCountInString(item.ExternalID))
		}
	}
}

// records counts what a refused request must not have written: jobs,
// appointment requests and route suggestions of the tenant.
func (s *fuzzServer) records(t *testing.T) string {
	var jobs, appointments int
	var suggestion bool
	err := s.store.View(t.Context(), func(tx store.Tx) (err error) {
		if _, jobs, err = tx.Jobs("acme", store.JobFilter{}, 0, 1); err != nil {
			return err
		}
		list, err := tx.AppointmentRequests("acme", "", "", 1000)
		appointments = len(list)
		if err != nil {
			return err
		}
		_, err = tx.RouteSuggestion("acme", 1)
		suggestion = err == nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d jobs, %d appointment requests, route suggestion: %v", jobs, appointments, suggestion)
}

// fieldFirst matches a message that starts with what it is about: a field
// path (planning.routeDate, preferredTimeWindows[0].endUtc; a member named
// with digits reads like an index, [0]; an odd name is quoted, "a b".c), a
// header, or the document itself.
var fieldFirst = regexp.MustCompile(`^(the (request body|batch|target|route suggestion request|route plan request|appointment request|cancel request|batch's)\b|a member name of |Idempotency-Key|customer |target |employee |import job |appointment request |optimization profile |` +
	fieldPath + ` (must|is|has|are|cannot)\b|.*… (must|is|has|are|cannot)\b)`)

// fieldPath is the form of connect.FieldPath: names, quoted when odd, joined
// by dots, and [n] for array elements (or members named with digits).
const fieldPath = `(\[[0-9]+\]|"(\\.|[^"\\])*"|[^ ."\[]+)(\.("(\\.|[^"\\])*"|[^ ."\[]+)|\[[0-9]+\])*`

// namesField reports whether a refusal's message says which field is at
// fault. Codes that are not about the request's content need no field.
func namesField(code connect.ErrorCode, message string) bool {
	switch code {
	case connect.CodeUnauthorized, connect.CodeInsufficientScope, connect.CodeRateLimited,
		connect.CodeIdempotencyKeyInUse, connect.CodeIdempotencyKeyReused, connect.CodeInvalidStateTransition,
		connect.CodeTargetAlreadyExists, connect.CodeTargetNotFound, connect.CodeTargetCancelled:
		return message != ""
	}
	return fieldFirst.MatchString(message)
}

func FuzzSingleTarget(f *testing.F) {
	s := newFuzzServer(f)
	f.Add([]byte(`{"externalId":"A","title":"t"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkItems(t, s.check(t, http.MethodPost, base+"/inbound/targets", nil, body))
	})
}

func FuzzBatch(f *testing.F) {
	s := newFuzzServer(f)
	f.Add([]byte(`{"targets":[{"externalId":"A","title":"t"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkItems(t, s.check(t, http.MethodPost, base+"/inbound/targets/batch", nil, body))
	})
}

func FuzzRouteRequest(f *testing.F) {
	s := newFuzzServer(f)
	f.Add([]byte(`{"routeDate":"2026-11-23"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s.check(t, http.MethodPost, base+"/import-jobs/1/route-suggestion", nil, body)
	})
}

func FuzzRoutePlanRequest(f *testing.F) {
	s := newFuzzServer(f)
	f.Add([]byte(`{"routeDate":"2026-11-23","employeeIds":["tech-1"],"importJobIds":[1]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s.check(t, http.MethodPost, base+"/route-plans", nil, body)
	})
}

func FuzzAppointmentRequest(f *testing.F) {
	s := newFuzzServer(f)
	f.Add([]byte(`{"externalReference":"R","serviceType":"visit","location":{"city":"Berlin"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s.check(t, http.MethodPost, "/connect/v1/appointment-requests", nil, body)
	})
}

// FuzzCancel sends cancel bodies for the seeded request or for an unknown
// id (404, decided only after the body is decoded).
func FuzzCancel(f *testing.F) {
	s := newFuzzServer(f)
	f.Add([]byte(`{"reason":"no longer needed"}`), false)
	f.Fuzz(func(t *testing.T, body []byte, known bool) {
		id := "apr_00000000000000000000000000"
		if known {
			id = s.appointment
		}
		s.check(t, http.MethodPost, "/connect/v1/appointment-requests/"+id+"/cancel", nil, body)
	})
}

// FuzzIdempotencyKey sends a key and a body twice: the second answer must be
// the first one replayed (or the same refusal), and the fingerprint must not
// depend on white space.
func FuzzIdempotencyKey(f *testing.F) {
	s := newFuzzServer(f)
	f.Add("key-1", []byte(`{"externalId":"K","title":"t"}`))
	f.Fuzz(func(t *testing.T, key string, body []byte) {
		header := http.Header{"Idempotency-Key": {key}}
		first := s.check(t, http.MethodPost, base+"/inbound/targets", header, body)
		again := s.check(t, http.MethodPost, base+"/inbound/targets", header, body)
		if first.Code < 400 && (again.Code != first.Code || again.Header().Get("Idempotent-Replayed") != "true") {
			t.Fatalf("the same request with key %q: %d, then %d (replayed %q)", key, first.Code, again.Code, again.Header().Get("Idempotent-Replayed"))
		}
		if first.Code >= 400 && again.Code != first.Code {
			t.Fatalf("the same refused request with key %q: %d, then %d", key, first.Code, again.Code)
		}
		// Only valid UTF-8 JSON has a canonical form; other bodies count byte
		// for byte.
		spaced := jsontext.Value(bytes.Clone(body))
		if err := spaced.Indent(jsontext.WithIndent("  ")); err == nil && utf8.Valid(body) &&
			!bytes.Equal(store.Fingerprint("POST /x", body), store.Fingerprint("POST /x", spaced)) {
			t.Fatalf("white space changed the fingerprint of %s", body)
		}
	})
}

// FuzzListQuery sends any query to endpoint 4, which never answers 400.
func FuzzListQuery(f *testing.F) {
	s := newFuzzServer(f)
	f.Add("skip=0&take=50&status=Accepted&sourceSystem=erp")
	f.Fuzz(func(t *testing.T, query string) {
		target := base + "/import-jobs?" + url.PathEscape(query)
		if rec := s.check(t, http.MethodGet, target, nil, nil); rec.Code != 200 {
			t.Fatalf("GET %s answered %d: %s", target, rec.Code, rec.Body)
		}
	})
}
