package appointments_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
)

// TestTransitionsMatchDecisions checks the table against DECISIONS.md, so the
// one place the lifecycle is written cannot drift from the product decision.
func TestTransitionsMatchDecisions(t *testing.T) {
	seen := map[string]bool{}
	for _, tr := range appointments.Transitions {
		key := fmt.Sprint(tr.From, "/", tr.Action)
		if seen[key] {
			t.Errorf("two rows for %s", key)
		}
		seen[key] = true
		if !tr.From.Valid() || !tr.To.Valid() {
			t.Errorf("row %+v names an unknown status", tr)
		}
	}
	var final []connect.AppointmentStatus
	for _, st := range connect.AppointmentStatuses {
		if appointments.Final(st) {
			final = append(final, st)
		} else if !allowed(st, connect.AppointmentActionFail) {
			t.Errorf("%s is not final but cannot fail", st)
		}
	}
	wantFinal := []connect.AppointmentStatus{connect.AppointmentRejected, connect.AppointmentCompleted, connect.AppointmentCancelled, connect.AppointmentFailed}
	if fmt.Sprint(final) != fmt.Sprint(wantFinal) {
		t.Errorf("final statuses %v, want %v", final, wantFinal)
	}
	wantCancellable := []connect.AppointmentStatus{
		connect.AppointmentSubmitted, connect.AppointmentValidated, connect.AppointmentPendingReview,
		connect.AppointmentAccepted, connect.AppointmentScheduled, connect.AppointmentAssigned,
	}
	if got := cancellable(); fmt.Sprint(got) != fmt.Sprint(wantCancellable) {
		t.Errorf("cancellable from %v, want %v", got, wantCancellable)
	}
	wantHost := []connect.AppointmentAction{"accept", "reject", "schedule", "assign", "start", "complete", "fail"}
	if got := actionsBy(appointments.ActorHost); fmt.Sprint(got) != fmt.Sprint(wantHost) {
		t.Errorf("host actions %v, want %v", got, wantHost)
	}
}

func cancellable() []connect.AppointmentStatus {
	var from []connect.AppointmentStatus
	for _, tr := range appointments.Transitions {
		if tr.Action == connect.AppointmentActionCancel {
			from = append(from, tr.From)
		}
	}
	return from
}

func TestEveryStatusIsReached(t *testing.T) {
	f := mustOpen(t)
	for _, status := range connect.AppointmentStatuses {
		t.Run(string(status), func(t *testing.T) {
			st := f.status(f.reach(status))
			if st.Status != status {
				t.Fatalf("status %s, want %s", st.Status, status)
			}
			checkHistory(t, st)
		})
	}
}

// TestEveryAllowedTransitionSucceeds performs every row of the table through
// the call that performs it.
func TestEveryAllowedTransitionSucceeds(t *testing.T) {
	f := mustOpen(t)
	for _, tr := range appointments.Transitions {
		t.Run(fmt.Sprintf("%s %s", tr.From, tr.Action), func(t *testing.T) {
			if tr.By == appointments.ActorService {
				testAutomaticTransition(t, f, tr)
				return
			}
			id := f.reach(tr.From)
			before := f.status(id)
			f.clock.Advance(time.Minute)
			if err := f.perform(id, tr); err != nil {
				t.Fatalf("%s from %s: %v", tr.Action, tr.From, err)
			}
			after := f.status(id)
			if after.Status != tr.To || len(after.History) != len(before.History)+1 {
				t.Fatalf("after %s: status %s, history %s; want %s with one more entry",
					tr.Action, after.Status, historyString(after.History), tr.To)
			}
			if last := after.History[len(after.History)-1]; !last.At.Equal(f.clock.Now()) || !after.UpdatedAt.Equal(f.clock.Now()) {
				t.Errorf("the change is dated %s (updatedAt %s), want %s", last.At, after.UpdatedAt, f.clock.Now())
			}
			checkHistory(t, after)
		})
	}
}

// testAutomaticTransition submits a request that the automatic checks send
// along tr.
func testAutomaticTransition(t *testing.T, f *fixture, tr appointments.Transition) {
	req := validRequest()
	if tr.Action == connect.AppointmentActionReview {
		req = needsReview()
	}
	got := f.submit(req)
	st := f.status(got.ID)
	if got.Status != tr.To || st.Status != tr.To || historyString(st.History) != historyString([]connect.AppointmentStatusChange{{Status: tr.From}, {Status: tr.To}}) {
		t.Errorf("submitted request is %s with history %s, want %s → %s", st.Status, historyString(st.History), tr.From, tr.To)
	}
}

// TestForbiddenTransitionsFail tries every (status, host action) pair that the
// table does not list: each fails with InvalidStateTransition naming the status
// and the action, and changes nothing.
func TestForbiddenTransitionsFail(t *testing.T) {
	f := mustOpen(t)
	tried := 0
	for _, status := range connect.AppointmentStatuses {
		id := f.reach(status) // refused actions leave it there, so one request serves all
		before := f.status(id)
		for _, action := range actionsBy(appointments.ActorHost) {
			if allowed(status, action) {
				continue
			}
			tried++
			_, err := f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, id, action, "should not happen")
			want := fmt.Sprintf("cannot %s appointment request %s: it is %s", action, id, status)
			wantError(t, fmt.Sprintf("%s from %s", action, status), err, connect.CodeInvalidStateTransition, "")
			if e := connect.AsError(err); e != nil && !startsWith(e.Message, want) {
				t.Errorf("%s from %s: message %q does not start with %q", action, status, e.Message, want)
			}
		}
		if after := f.status(id); after.Status != status || changesString(after.History) != changesString(before.History) {
			t.Errorf("refused transitions changed a %s request: history %s → %s", status, changesString(before.History), changesString(after.History))
		}
	}
	if tried != 62 {
		t.Errorf("tried %d forbidden pairs, want 62 (11 statuses × 7 host actions − 15 allowed)", tried)
	}
}

func startsWith(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func TestRefusalMessages(t *testing.T) {
	f := mustOpen(t)
	accepted := f.reach(connect.AppointmentAccepted)
	_, err := f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, accepted, connect.AppointmentActionStart, "")
	wantError(t, "start an Accepted request", err, connect.CodeInvalidStateTransition,
		fmt.Sprintf("cannot start appointment request %s: it is Accepted, and start is allowed only from Assigned", accepted))
	completed := f.reach(connect.AppointmentCompleted)
	_, err = f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, completed, connect.AppointmentActionFail, "")
	wantError(t, "fail a Completed request", err, connect.CodeInvalidStateTransition,
		fmt.Sprintf("cannot fail appointment request %s: it is Completed, a final status", completed))
}

// TestTransitionRefusesNonHostActions: the automatic checks and cancel have
// their own calls, and an unknown action is a mistake of the host.
func TestTransitionRefusesNonHostActions(t *testing.T) {
	f := mustOpen(t)
	id := f.reach(connect.AppointmentSubmitted)
	tests := []struct {
		action connect.AppointmentAction
		msg    string
	}{
		{"validate", "validate is performed by the service's automatic checks on submit, not by a host"},
		{"review", "review is performed by the service's automatic checks on submit, not by a host"},
		{"cancel", "cancel is not a host action; use CancelAppointmentRequest, which records the reason"},
		{"Accept", `unknown action "Accept"; the host actions are accept, reject, schedule, assign, start, complete, fail`},
		{"", `unknown action ""; the host actions are accept, reject, schedule, assign, start, complete, fail`},
	}
	for _, tc := range tests {
		_, err := f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, id, tc.action, "")
		wantError(t, fmt.Sprintf("action %q", tc.action), err, connect.CodeInvalidRequest, tc.msg)
	}
	if st := f.status(id); st.Status != connect.AppointmentSubmitted || len(st.History) != 1 {
		t.Errorf("refused actions changed the request: %+v", st)
	}
}

// TestStatusHistoryIsCompleteAndOrdered walks the longest path and checks the
// whole history: every status once, in order, with its time and note.
func TestStatusHistoryIsCompleteAndOrdered(t *testing.T) {
	f := mustOpen(t)
	id := f.submit(needsReview()).ID
	steps := []struct {
		action connect.AppointmentAction
		note   string
	}{
		{connect.AppointmentActionAccept, "address confirmed by phone"},
		{connect.AppointmentActionSchedule, "booked for 2026-11-23 09:00"},
		{connect.AppointmentActionAssign, "technician T-7"},
		{connect.AppointmentActionStart, ""},
		{connect.AppointmentActionComplete, "boiler serviced"},
	}
	for i, step := range steps {
		f.clock.Set(t0.Add(time.Duration(i+1) * time.Hour))
		if _, err := f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, id, step.action, step.note); err != nil {
			t.Fatalf("%s: %v", step.action, err)
		}
	}
	want := []connect.AppointmentStatusChange{
		{Status: connect.AppointmentSubmitted, At: t0, Note: ptr("submitted by client erp")},
		{Status: connect.AppointmentPendingReview, At: t0, Note: ptr("needs review: location needs both latitude and longitude to plan a visit")},
		{Status: connect.AppointmentAccepted, At: t0.Add(1 * time.Hour), Note: ptr("address confirmed by phone")},
		{Status: connect.AppointmentScheduled, At: t0.Add(2 * time.Hour), Note: ptr("booked for 2026-11-23 09:00")},
		{Status: connect.AppointmentAssigned, At: t0.Add(3 * time.Hour), Note: ptr("technician T-7")},
		{Status: connect.AppointmentInProgress, At: t0.Add(4 * time.Hour), Note: nil},
		{Status: connect.AppointmentCompleted, At: t0.Add(5 * time.Hour), Note: ptr("boiler serviced")},
	}
	st := f.status(id)
	if got, wantStr := changesString(st.History), changesString(want); got != wantStr {
		t.Errorf("history\n  %s\nwant\n  %s", got, wantStr)
	}
	if st.ID != id || st.Status != connect.AppointmentCompleted || !st.UpdatedAt.Equal(t0.Add(5*time.Hour)) {
		t.Errorf("status = %s %s updated %s", st.ID, st.Status, st.UpdatedAt)
	}
	if r := f.get(id); !r.UpdatedAt.Equal(st.UpdatedAt) || !r.CreatedAt.Equal(t0) || r.Status != st.Status {
		t.Errorf("record: created %s updated %s status %s", r.CreatedAt, r.UpdatedAt, r.Status)
	}
}

func changesString(h []connect.AppointmentStatusChange) string {
	s := ""
	for _, c := range h {
		note := "<nil>"
		if c.Note != nil {
			note = fmt.Sprintf("%q", *c.Note)
		}
		s += fmt.Sprintf("[%s %s %s] ", c.Status, c.At.Format(time.RFC3339Nano), note)
	}
	return s
}

// TestHistoryStaysOrderedWhenTheClockGoesBack: a clock stepping back (an NTP
// correction) must not date a change before the previous one.
func TestHistoryStaysOrderedWhenTheClockGoesBack(t *testing.T) {
	f := mustOpen(t)
	f.clock.Set(t0.Add(time.Hour))
	id := f.reach(connect.AppointmentAccepted)
	f.clock.Set(t0)
	if _, err := f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, id, connect.AppointmentActionSchedule, ""); err != nil {
		t.Fatal(err)
	}
	st := f.status(id)
	if last := st.History[len(st.History)-1]; !last.At.Equal(t0.Add(time.Hour)) {
		t.Errorf("Scheduled is dated %s, want %s (not before Accepted)", last.At, t0.Add(time.Hour))
	}
	checkHistory(t, st)
}

// TestConcurrentCancelAndTransitions races cancels against every host action
// on one request, many times. Whatever wins, the history must be a path of the
// table ending in the current status, with exactly one entry per successful
// change: no update is lost and none is applied twice.
func TestConcurrentCancelAndTransitions(t *testing.T) {
	f := mustOpenWith(t, appointments.Config{Now: time.Now})
	actions := actionsBy(appointments.ActorHost)
	for round := range 25 {
		start := connect.AppointmentValidated
		if round%2 == 1 {
			start = connect.AppointmentScheduled
		}
		id := f.reach(start)
		before := len(f.status(id).History)

		var wg sync.WaitGroup
		ready := make(chan struct{})
		transitionErrs := make([]error, len(actions)*2)
		cancels := make([]connect.CancelAppointmentOutcome, 3)
		cancelErrs := make([]error, len(cancels))
		for i := range transitionErrs {
			wg.Go(func() {
				<-ready
				_, transitionErrs[i] = f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, id, actions[i%len(actions)], "")
			})
		}
		for i := range cancels {
			wg.Go(func() {
				<-ready
				key := connect.WriteOptions{IdempotencyKey: fmt.Sprintf("cancel-%d-%d", round, i)}
				cancels[i], cancelErrs[i] = f.svc.CancelAppointmentRequest(t.Context(), client, id, connect.CancelAppointmentRequest{Reason: "race"}, key)
			})
		}
		close(ready)
		wg.Wait()

		st := f.status(id)
		checkHistory(t, st)
		changes := 0
		for _, err := range append(transitionErrs, cancelErrs...) {
			switch code := connect.ErrorCodeOf(err); code {
			case "":
				changes++
			case connect.CodeInvalidStateTransition:
			default:
				t.Errorf("round %d: unexpected error %v", round, err)
			}
		}
		cancelled := slices.ContainsFunc(st.History, func(c connect.AppointmentStatusChange) bool { return c.Status == connect.AppointmentCancelled })
		for i, out := range cancels {
			if cancelErrs[i] == nil {
				changes-- // only the first successful cancel changed anything
				if !cancelled || !out.Response.CancelledAt.Equal(st.UpdatedAt) || st.Status != connect.AppointmentCancelled {
					t.Errorf("round %d: cancel %d answered %+v, but the request is %s (history %s)", round, i, out.Response, st.Status, historyString(st.History))
				}
			}
		}
		if cancelled {
			changes++
		}
		if got := len(st.History) - before; got != changes {
			t.Errorf("round %d: %d successful changes but %d new history entries (%s)", round, changes, got, historyString(st.History))
		}
	}
}

// TestREADMEShowsTheLifecycle keeps the documentation and the table equal.
func TestREADMEShowsTheLifecycle(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), appointments.TransitionsMarkdown()) {
		t.Errorf("README.md does not contain the lifecycle table; paste this:\n%s", appointments.TransitionsMarkdown())
	}
}
