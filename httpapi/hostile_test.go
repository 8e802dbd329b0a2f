package httpapi_test

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
)

// maxBody is the default body limit: every hostile body is as large as it may be.
const maxBody = 10 << 20

// fill builds a body of about maxBody bytes: head, then item(i) repeated
// (separated by sep) while it fits, then tail.
func fill(head string, item func(i int) string, sep, tail string) []byte {
	var b bytes.Buffer
	b.Grow(maxBody)
	b.WriteString(head)
	for i := 0; ; i++ {
		next := item(i)
		if b.Len()+len(sep)+len(next)+len(tail) > maxBody {
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(next)
	}
	b.WriteString(tail)
	return b.Bytes()
}

func repeat(s string) func(int) string { return func(int) string { return s } }

// hostileShape is a request an attacker would send to make one request cost
// much more memory than its body.
type hostileShape struct {
	name       string
	method     string
	path       string
	scope      connect.Scope
	body       func() []byte
	wantStatus int
}

// hostileShapes are the bodies of issue 12 and their relatives: huge arrays
// and objects where the contract has a small bound, many unknown members (each
// would be a warning), and long strings.
func hostileShapes() []hostileShape {
	batch, single := base+"/inbound/targets/batch", base+"/inbound/targets"
	apr := "/connect/v1/appointment-requests"
	target := `{"externalId":"A","title":"t"}`
	return []hostileShape{
		{"batch of five million zeros", "POST", batch, connect.ScopeTargetsBatchWrite,
			func() []byte { return fill(`{"targets":[`, repeat("0"), ",", "]}") }, 413},
		{"batch of empty objects", "POST", batch, connect.ScopeTargetsBatchWrite,
			func() []byte { return fill(`{"targets":[`, repeat("{}"), ",", "]}") }, 413},
		{"batch envelope with a million unknown members", "POST", batch, connect.ScopeTargetsBatchWrite,
			func() []byte {
				return fill(`{"targets":[`+target+`]`, func(i int) string { return fmt.Sprintf(`,"u%d":0`, i) }, "", "}")
			}, 400},
		{"1,000 targets full of unknown members", "POST", batch, connect.ScopeTargetsBatchWrite,
			func() []byte {
				var b strings.Builder
				for i := range 1000 {
					b.WriteString(fmt.Sprintf(`,{"externalId":"A%d","title":"t"`, i))
					for j := range 1000 {
						b.WriteString(fmt.Sprintf(`,"u%d":0`, j))
					}
					b.WriteString("}")
				}
				return []byte(`{"targets":[` + b.String()[1:] + "]}")
			}, 200},
		{"target with a million unknown members", "POST", single, connect.ScopeTargetsWrite,
			func() []byte {
				return fill(`{"externalId":"A","title":"t"`, func(i int) string { return fmt.Sprintf(`,"u%d":0`, i) }, "", "}")
			}, 200},
		{"target with a million customFields", "POST", single, connect.ScopeTargetsWrite,
			func() []byte {
				return fill(`{"externalId":"A","title":"t","customFields":{`, func(i int) string { return fmt.Sprintf(`"k%d":null`, i) }, ",", "}}")
			}, 200},
		{"target with a 10 MiB externalId", "POST", single, connect.ScopeTargetsWrite,
			func() []byte { return fill(`{"title":"t","externalId":"`, repeat("x"), "", `"}`) }, 200},
		{"appointment request with millions of time windows", "POST", apr, connect.ScopeAppointmentRequestsWrite,
			func() []byte { return fill(`{"preferredTimeWindows":[`, repeat("{}"), ",", "]}") }, 400},
		{"appointment request with 10 MiB of metadata", "POST", apr, connect.ScopeAppointmentRequestsWrite,
			func() []byte {
				return fill(`{"metadata":{`, func(i int) string { return fmt.Sprintf(`"k%d":[0]`, i) }, ",", "}}")
			}, 400},
		{"route request with a million unknown members", "POST", base + "/import-jobs/999999/route-suggestion", connect.ScopeRouteSuggestionsCreate,
			func() []byte {
				return fill(`{"routeDate":"2026-11-21"`, func(i int) string { return fmt.Sprintf(`,"u%d":0`, i) }, "", "}")
			}, 400},
		{"route plan with a million unknown members", "POST", base + "/route-plans", connect.ScopeRouteSuggestionsCreate,
			func() []byte {
				return fill(`{"routeDate":"2026-11-21","employeeIds":["e"]`, func(i int) string { return fmt.Sprintf(`,"u%d":0`, i) }, "", "}")
			}, 400},
		{"route plan with a million employees", "POST", base + "/route-plans", connect.ScopeRouteSuggestionsCreate,
			func() []byte { return fill(`{"routeDate":"2026-11-21","employeeIds":[`, repeat(`"e"`), ",", "]}") }, 400},
		{"cancel request with a million unknown members", "POST", apr + "/apr_unknown/cancel", connect.ScopeAppointmentRequestsWrite,
			func() []byte {
				return fill(`{"reason":"r"`, func(i int) string { return fmt.Sprintf(`,"u%d":0`, i) }, "", "}")
			}, 400},
	}
}

// allocBound is how many bytes one request may allocate per byte of its
// body (DECISIONS.md "Bounded cost of every request"; issue 12: about 4×).
const allocBound = 4

// serveMeasured serves one request straight through the handler and returns
// its status and the bytes allocated meanwhile, the body's own buffer
// included.
func serveMeasured(s *server, shape hostileShape, key string, body []byte) (int, uint64) {
	req := httptest.NewRequest(shape.method, shape.path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "hostile-"+shape.name)
	rec := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s.handler.ServeHTTP(rec, req)
	runtime.ReadMemStats(&after)
	return rec.Code, after.TotalAlloc - before.TotalAlloc
}

// TestHostileBodiesAllocateBoundedMemory sends each hostile shape at the body
// limit, with an Idempotency-Key (so the fingerprint is computed too), and
// checks the answer and that the request allocated at most allocBound times
// its size.
func TestHostileBodiesAllocateBoundedMemory(t *testing.T) {
	if raceDetector {
		t.Skip("allocation is measured without the race detector (see .ci/run)")
	}
	s := newServer(t)
	key := s.key("acme", "erp", connect.AllScopes...)
	for _, shape := range hostileShapes() {
		t.Run(shape.name, func(t *testing.T) {
			body := shape.body()
			status, allocated := serveMeasured(s, shape, key, body)
			t.Logf("%d bytes: status %d, allocated %d bytes (%.2f× the body)", len(body), status, allocated, float64(allocated)/float64(len(body)))
			if status != shape.wantStatus {
				t.Errorf("status %d, want %d", status, shape.wantStatus)
			}
			if allocated > allocBound*uint64(len(body)) {
				t.Errorf("allocated %d bytes, more than %d× the body's %d", allocated, allocBound, len(body))
			}
		})
	}
}

// BenchmarkHostileBodies reports the bytes each hostile shape allocates per
// request (B/op) and per byte of body.
func BenchmarkHostileBodies(b *testing.B) {
	s := newBenchServer(b)
	key := s.key("acme", "erp", connect.AllScopes...)
	requests := 0 // every request has its own Idempotency-Key: none is a replay
	for _, shape := range hostileShapes() {
		body := shape.body()
		b.Run(shape.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for range b.N {
				requests++
				req := httptest.NewRequest(shape.method, shape.path, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%d", requests))
				rec := httptest.NewRecorder()
				s.handler.ServeHTTP(rec, req)
				if rec.Code != shape.wantStatus {
					b.Fatalf("status %d, want %d", rec.Code, shape.wantStatus)
				}
			}
		})
	}
}
