package appointments

import (
	"slices"
	"strings"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Actor is who performs a transition.
type Actor string

// The actors of the lifecycle.
const (
	// ActorService is the service's automatic checks, run in the submit
	// transaction.
	ActorService Actor = "service"
	// ActorHost is a host application, through TransitionAppointmentRequest.
	ActorHost Actor = "host"
	// ActorClient is an Integration Client, through CancelAppointmentRequest.
	ActorClient Actor = "client"
)

// Transition is one allowed move of the lifecycle: Action takes a request in
// status From to status To.
type Transition struct {
	From   connect.AppointmentStatus `json:"from"`
	Action connect.AppointmentAction `json:"action"`
	To     connect.AppointmentStatus `json:"to"`
	By     Actor                     `json:"by"`
}

// Transitions is the lifecycle of an appointment request (DECISIONS.md
// "Appointment requests"), the one place it is written down: the service
// enforces it, the tests iterate it and the documentation is generated from it.
// A request is created Submitted; every (status, action) pair not listed is
// refused with InvalidStateTransition. A status without outgoing transitions is
// final. Do not modify it.
var Transitions = []Transition{
	{connect.AppointmentSubmitted, connect.AppointmentActionValidate, connect.AppointmentValidated, ActorService},
	{connect.AppointmentSubmitted, connect.AppointmentActionReview, connect.AppointmentPendingReview, ActorService},

	{connect.AppointmentValidated, connect.AppointmentActionAccept, connect.AppointmentAccepted, ActorHost},
	{connect.AppointmentValidated, connect.AppointmentActionReject, connect.AppointmentRejected, ActorHost},
	{connect.AppointmentPendingReview, connect.AppointmentActionAccept, connect.AppointmentAccepted, ActorHost},
	{connect.AppointmentPendingReview, connect.AppointmentActionReject, connect.AppointmentRejected, ActorHost},
	{connect.AppointmentAccepted, connect.AppointmentActionSchedule, connect.AppointmentScheduled, ActorHost},
	{connect.AppointmentScheduled, connect.AppointmentActionAssign, connect.AppointmentAssigned, ActorHost},
	{connect.AppointmentAssigned, connect.AppointmentActionStart, connect.AppointmentInProgress, ActorHost},
	{connect.AppointmentInProgress, connect.AppointmentActionComplete, connect.AppointmentCompleted, ActorHost},

	{connect.AppointmentSubmitted, connect.AppointmentActionFail, connect.AppointmentFailed, ActorHost},
	{connect.AppointmentValidated, connect.AppointmentActionFail, connect.AppointmentFailed, ActorHost},
	{connect.AppointmentPendingReview, connect.AppointmentActionFail, connect.AppointmentFailed, ActorHost},
	{connect.AppointmentAccepted, connect.AppointmentActionFail, connect.AppointmentFailed, ActorHost},
	{connect.AppointmentScheduled, connect.AppointmentActionFail, connect.AppointmentFailed, ActorHost},
	{connect.AppointmentAssigned, connect.AppointmentActionFail, connect.AppointmentFailed, ActorHost},
	{connect.AppointmentInProgress, connect.AppointmentActionFail, connect.AppointmentFailed, ActorHost},

	{connect.AppointmentSubmitted, connect.AppointmentActionCancel, connect.AppointmentCancelled, ActorClient},
	{connect.AppointmentValidated, connect.AppointmentActionCancel, connect.AppointmentCancelled, ActorClient},
	{connect.AppointmentPendingReview, connect.AppointmentActionCancel, connect.AppointmentCancelled, ActorClient},
	{connect.AppointmentAccepted, connect.AppointmentActionCancel, connect.AppointmentCancelled, ActorClient},
	{connect.AppointmentScheduled, connect.AppointmentActionCancel, connect.AppointmentCancelled, ActorClient},
	{connect.AppointmentAssigned, connect.AppointmentActionCancel, connect.AppointmentCancelled, ActorClient},
}

// TransitionsMarkdown renders Transitions as a Markdown table; the README shows
// exactly this table (a test keeps the two equal).
func TransitionsMarkdown() string {
	var b strings.Builder
	b.WriteString("| from | action | to | by |\n|---|---|---|---|\n")
	for _, tr := range Transitions {
		b.WriteString("| " + string(tr.From) + " | " + string(tr.Action) + " | " + string(tr.To) + " | " + string(tr.By) + " |\n")
	}
	return b.String()
}

// Final reports whether no transition leaves status: Completed, Rejected,
// Cancelled and Failed.
func Final(status connect.AppointmentStatus) bool {
	for _, tr := range Transitions {
		if tr.From == status {
			return false
		}
	}
	return true
}

// transition returns the row of Transitions for (from, action).
func transition(from connect.AppointmentStatus, action connect.AppointmentAction) (Transition, bool) {
	for _, tr := range Transitions {
		if tr.From == from && tr.Action == action {
			return tr, true
		}
	}
	return Transition{}, false
}

// performer returns who performs action, or false for an unknown action.
func performer(action connect.AppointmentAction) (Actor, bool) {
	for _, tr := range Transitions {
		if tr.Action == action {
			return tr.By, true
		}
	}
	return "", false
}

// apply moves rec by action at the time at, appending to its history, or
// refuses with InvalidStateTransition naming the status and the action.
func apply(rec *store.AppointmentRequest, action connect.AppointmentAction, at time.Time, note string) error {
	tr, ok := transition(rec.Status, action)
	if !ok {
		return refusal(rec, action)
	}
	record(rec, tr.To, at, note)
	return nil
}

// record sets rec's status and appends it to the history. The time never goes
// back before the last entry, so the history stays ordered even when the clock
// does not.
func record(rec *store.AppointmentRequest, status connect.AppointmentStatus, at time.Time, note string) {
	if n := len(rec.History); n > 0 && at.Before(rec.History[n-1].At) {
		at = rec.History[n-1].At
	}
	change := connect.AppointmentStatusChange{Status: status, At: at}
	if note != "" {
		change.Note = &note
	}
	rec.Status, rec.UpdatedAt = status, at
	rec.History = append(rec.History, change)
}

func refusal(rec *store.AppointmentRequest, action connect.AppointmentAction) error {
	if Final(rec.Status) {
		return connect.Errorf(connect.CodeInvalidStateTransition,
			"cannot %s appointment request %s: it is %s, a final status", action, rec.ID, rec.Status)
	}
	var from []string
	for _, tr := range Transitions {
		if tr.Action == action {
			from = append(from, string(tr.From))
		}
	}
	return connect.Errorf(connect.CodeInvalidStateTransition,
		"cannot %s appointment request %s: it is %s, and %s is allowed only from %s",
		action, rec.ID, rec.Status, action, strings.Join(from, ", "))
}

// hostActions lists the actions of ActorHost, for messages.
func hostActions() string {
	var names []string
	for _, tr := range Transitions {
		name := string(tr.Action)
		if tr.By == ActorHost && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// requireHostAction refuses actions a host may not perform through
// TransitionAppointmentRequest, saying which call performs them instead.
func requireHostAction(action connect.AppointmentAction) error {
	by, known := performer(action)
	switch {
	case !known:
		return connect.Errorf(connect.CodeInvalidRequest, "unknown action %s; the host actions are %s", connect.Quote(string(action)), hostActions())
	case by == ActorService:
		return connect.Errorf(connect.CodeInvalidRequest, "%s is performed by the service's automatic checks on submit, not by a host", action)
	case by == ActorClient:
		return connect.Errorf(connect.CodeInvalidRequest, "%s is not a host action; use CancelAppointmentRequest, which records the reason", action)
	}
	return nil
}
