package appointments_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
)

var t0 = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

var (
	allScopes = []connect.Scope{connect.ScopeAppointmentRequestsWrite, connect.ScopeAppointmentRequestsRead}
	// client is the caller of most tests; stranger belongs to another tenant.
	client   = connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "erp", Scopes: allScopes}
	stranger = connect.Caller{TenantID: "globex", ClientID: "crm", SourceSystem: "crm", Scopes: allScopes}
)

// clock is a settable test clock, safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock(at time.Time) *clock {
	c := &clock{}
	c.Set(at)
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Set(at time.Time)        { c.ns.Store(at.UnixNano()) }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// fixture is a Service on a real bbolt store in a temporary directory.
type fixture struct {
	t     *testing.T
	store *bolt.Store
	clock *clock
	svc   *appointments.Service
	n     int
}

func mustOpen(t *testing.T) *fixture {
	return mustOpenWith(t, appointments.Config{})
}

// mustOpenWith opens a fixture with cfg; Store and Now are filled in unless cfg
// sets Now. The database file is checked for consistency when the test ends.
func mustOpenWith(t *testing.T, cfg appointments.Config) *fixture {
	t.Helper()
	s := bolttest.Open(t)
	f := &fixture{t: t, store: s, clock: newClock(t0)}
	cfg.Store = s
	if cfg.Now == nil {
		cfg.Now = f.clock.Now
	}
	f.svc = appointments.New(cfg)
	return f
}

func ptr[T any](v T) *T { return &v }

// validRequest is a request that passes every automatic check.
func validRequest() connect.NewAppointmentRequest {
	return connect.NewAppointmentRequest{
		ExternalReference: "SR-1001",
		ServiceType:       connect.ServiceTypeMaintenance,
		Location:          &connect.InboundTargetLocation{Name: ptr("Depot Nord"), Latitude: ptr(52.5663), Longitude: ptr(13.3822)},
	}
}

// needsReview is a request whose location has no coordinates.
func needsReview() connect.NewAppointmentRequest {
	req := validRequest()
	req.Location = &connect.InboundTargetLocation{City: ptr("Berlin")}
	return req
}

func (f *fixture) submit(req connect.NewAppointmentRequest) connect.AppointmentRequest {
	f.t.Helper()
	out, err := f.svc.SubmitAppointmentRequest(f.t.Context(), client, req, connect.WriteOptions{})
	if err != nil {
		f.t.Fatalf("SubmitAppointmentRequest: %v", err)
	}
	return out.Request
}

func (f *fixture) status(id string) connect.AppointmentStatusResponse {
	f.t.Helper()
	st, err := f.svc.AppointmentRequestStatus(f.t.Context(), client, id)
	if err != nil {
		f.t.Fatalf("AppointmentRequestStatus(%s): %v", id, err)
	}
	return st
}

func (f *fixture) get(id string) connect.AppointmentRequest {
	f.t.Helper()
	r, err := f.svc.GetAppointmentRequest(f.t.Context(), client, id)
	if err != nil {
		f.t.Fatalf("GetAppointmentRequest(%s): %v", id, err)
	}
	return r
}

func (f *fixture) cancel(id string, req connect.CancelAppointmentRequest) (connect.CancelAppointmentResponse, error) {
	out, err := f.svc.CancelAppointmentRequest(f.t.Context(), client, id, req, connect.WriteOptions{})
	return out.Response, err
}

// perform does what one row of the table describes, through the call that
// performs it.
func (f *fixture) perform(id string, tr appointments.Transition) error {
	switch tr.By {
	case appointments.ActorHost:
		_, err := f.svc.TransitionAppointmentRequest(f.t.Context(), client.TenantID, id, tr.Action, "")
		return err
	case appointments.ActorClient:
		_, err := f.cancel(id, connect.CancelAppointmentRequest{Reason: "plans changed"})
		return err
	}
	return errors.Newf("%s is performed on submit only", tr.Action)
}

// reach returns a new request of client's tenant in status, brought there
// through the service along the shortest path of the table.
func (f *fixture) reach(status connect.AppointmentStatus) string {
	f.t.Helper()
	switch status {
	case connect.AppointmentSubmitted:
		return f.storeSubmitted()
	case connect.AppointmentPendingReview:
		return f.submit(needsReview()).ID
	}
	id := f.submit(validRequest()).ID
	for _, tr := range pathFromValidated(status) {
		if err := f.perform(id, tr); err != nil {
			f.t.Fatalf("reaching %s: %s from %s: %v", status, tr.Action, tr.From, err)
		}
	}
	if got := f.status(id).Status; got != status {
		f.t.Fatalf("reach(%s) ended in %s", status, got)
	}
	return id
}

// storeSubmitted stores a request that rests in Submitted. The service never
// leaves one there (its checks run in the submit transaction), so the request
// is written to the store directly, as a request whose checks were deferred
// would be.
func (f *fixture) storeSubmitted() string {
	f.t.Helper()
	f.n++
	now := f.clock.Now()
	rec := &store.AppointmentRequest{TenantID: client.TenantID, ClientID: client.ClientID}
	rec.ID = fmt.Sprintf("apr_SUBMITTED%013d", f.n)
	rec.Status = connect.AppointmentSubmitted
	rec.NewAppointmentRequest = validRequest()
	rec.Priority = connect.AppointmentPriorityNormal
	rec.CreatedAt, rec.UpdatedAt = now, now
	rec.History = []connect.AppointmentStatusChange{{Status: connect.AppointmentSubmitted, At: now}}
	if err := f.store.Update(f.t.Context(), func(tx store.Tx) error { return tx.CreateAppointmentRequest(rec) }); err != nil {
		f.t.Fatal(err)
	}
	return rec.ID
}

// pathFromValidated finds, breadth first in the table, the shortest sequence of
// host and client transitions from Validated to status.
func pathFromValidated(status connect.AppointmentStatus) []appointments.Transition {
	paths := map[connect.AppointmentStatus][]appointments.Transition{connect.AppointmentValidated: nil}
	queue := []connect.AppointmentStatus{connect.AppointmentValidated}
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		for _, tr := range appointments.Transitions {
			if _, seen := paths[tr.To]; tr.From != from || tr.By == appointments.ActorService || seen {
				continue
			}
			paths[tr.To] = append(append([]appointments.Transition(nil), paths[from]...), tr)
			queue = append(queue, tr.To)
		}
	}
	if path, ok := paths[status]; ok {
		return path
	}
	panic(fmt.Sprintf("%s cannot be reached from Validated", status))
}

// allowed reports whether the table has a row for (from, action).
func allowed(from connect.AppointmentStatus, action connect.AppointmentAction) bool {
	for _, tr := range appointments.Transitions {
		if tr.From == from && tr.Action == action {
			return true
		}
	}
	return false
}

// actionsBy lists the distinct actions of an actor, in table order.
func actionsBy(by appointments.Actor) []connect.AppointmentAction {
	var actions []connect.AppointmentAction
	seen := map[connect.AppointmentAction]bool{}
	for _, tr := range appointments.Transitions {
		if tr.By == by && !seen[tr.Action] {
			seen[tr.Action] = true
			actions = append(actions, tr.Action)
		}
	}
	return actions
}

// checkHistory checks that a history is a path through the table that starts
// with Submitted, ends in the current status and never goes back in time.
func checkHistory(t *testing.T, st connect.AppointmentStatusResponse) {
	t.Helper()
	h := st.History
	if len(h) == 0 || h[0].Status != connect.AppointmentSubmitted {
		t.Fatalf("history %s does not start with Submitted", historyString(h))
	}
	for i := 1; i < len(h); i++ {
		if !connected(h[i-1].Status, h[i].Status) {
			t.Errorf("history %s: no transition from %s to %s", historyString(h), h[i-1].Status, h[i].Status)
		}
		if h[i].At.Before(h[i-1].At) {
			t.Errorf("history %s goes back in time at entry %d", historyString(h), i)
		}
	}
	if last := h[len(h)-1]; last.Status != st.Status || !last.At.Equal(st.UpdatedAt) {
		t.Errorf("status %s updated %s, but the last history entry is %s at %s", st.Status, st.UpdatedAt, last.Status, last.At)
	}
}

func connected(from, to connect.AppointmentStatus) bool {
	for _, tr := range appointments.Transitions {
		if tr.From == from && tr.To == to {
			return true
		}
	}
	return false
}

func historyString(h []connect.AppointmentStatusChange) string {
	parts := make([]string, len(h))
	for i, c := range h {
		parts[i] = string(c.Status)
	}
	return strings.Join(parts, " → ")
}

// wantError checks err's code and, when msg is not empty, its exact message.
func wantError(t *testing.T, what string, err error, code connect.ErrorCode, msg string) {
	t.Helper()
	e := connect.AsError(err)
	switch {
	case e == nil:
		t.Errorf("%s: got %v, want %s", what, err, code)
	case e.Code != code:
		t.Errorf("%s: got %s (%s), want %s", what, e.Code, e.Message, code)
	case msg != "" && e.Message != msg:
		t.Errorf("%s: message\n  %q\nwant\n  %q", what, e.Message, msg)
	}
}
