package appointments

import (
	"context"
	"strings"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Checker is an automatic check of a submitted request that needs the store,
// such as recognising its customer among the tenant's customer records. It runs
// inside the submit transaction, possibly more than once (see store.Store), so
// it must have no effects outside tx, and it must not change req. It returns why
// a person must review the request; none means the check passed. An error fails
// the submit.
type Checker func(ctx context.Context, tx store.Tx, caller connect.Caller, req *connect.AppointmentRequest) (reasons []string, err error)

// Notes of the automatic checks in the status history.
const (
	noteChecksPassed = "automatic checks passed"
	noteNeedsReview  = "needs review: "
)

// reasonNoCoordinates is why a request without a plannable location waits for a
// person.
const reasonNoCoordinates = "location needs both latitude and longitude to plan a visit"

// check runs the automatic checks on a request being submitted and returns the
// action they decide, validate or review, with the note for the history.
func (s *Service) check(ctx context.Context, tx store.Tx, caller connect.Caller, req *connect.AppointmentRequest) (connect.AppointmentAction, string, error) {
	reasons := builtinChecks(req)
	// Recognising the customer is mapping, which the key must be allowed to do.
	if caller.HasScope(connect.Required.MapCustomers) {
		more, err := s.cfg.CustomerCheck(ctx, tx, caller, req)
		if err != nil {
			return "", "", err
		}
		reasons = append(reasons, more...)
	}
	if len(reasons) == 0 {
		return connect.AppointmentActionValidate, noteChecksPassed, nil
	}
	return connect.AppointmentActionReview, noteNeedsReview + strings.Join(reasons, "; "), nil
}

// builtinChecks are the checks that need nothing but the request.
func builtinChecks(req *connect.AppointmentRequest) []string {
	var reasons []string
	if l := req.Location; l == nil || l.Latitude == nil || l.Longitude == nil {
		reasons = append(reasons, reasonNoCoordinates)
	}
	return reasons
}
