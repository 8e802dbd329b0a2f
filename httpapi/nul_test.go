package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
)

// TestNULCharacterIsRefused: no field has a use for U+0000 and PostgreSQL
// text cannot hold it, so on either store a string holding it is refused like
// invalid UTF-8, naming the field: a request-level object answers 400, an
// imported target is rejected on its own. Nothing answers 500.
func TestNULCharacterIsRefused(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp-client", connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite, connect.ScopeCustomersMap,
		connect.ScopeAppointmentRequestsWrite)
	const nul = `must not contain the NUL character (\u0000)`
	items := []struct {
		name, body, want string
	}{
		{"externalId", `{"externalId":"a\u0000b","title":"x"}`, "externalId " + nul},
		{"sourceSystem", `{"externalId":"a","sourceSystem":"erp\u0000","title":"x"}`, "sourceSystem " + nul},
		{"customer externalId", `{"externalId":"b","title":"x","customer":{"externalId":"c\u0000","name":"n"}}`, "customer.externalId " + nul},
	}
	for _, tc := range items {
		resp := s.do(request{method: http.MethodPost, path: "/api/v1/inbound/targets", body: tc.body, key: key, invalid: true})
		var result connect.InboundImportResult
		resp.json(t, &result)
		if resp.status != http.StatusOK || result.RejectedItems != 1 || result.Items[0].ErrorMessage == nil || *result.Items[0].ErrorMessage != tc.want {
			t.Errorf("%s: %d %s; want the item rejected with %q", tc.name, resp.status, resp.body, tc.want)
		}
	}
	resp := s.do(request{method: http.MethodPost, path: "/connect/v1/appointment-requests", key: key, invalid: true,
		body: `{"externalReference":"r\u0000","serviceType":"repair","location":{"street":"Main 1","city":"Berlin"}}`})
	if resp.status != http.StatusBadRequest || !strings.Contains(resp.apiError(t).Message, "externalReference "+nul) {
		t.Errorf("appointment request: %d %s", resp.status, resp.body)
	}
}
