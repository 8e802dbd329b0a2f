package store_test

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

var bgctx = context.Background()

func TestClients(t *testing.T) {
	s := mustOpen(t)
	clients := &store.Clients{Store: s}
	nc := connect.NewClient{TenantID: "acme", ClientID: "erp", SourceSystem: "sap", Scopes: []connect.Scope{connect.ScopeHealthRead, connect.ScopeImportJobsRead}}

	client, key, err := clients.CreateClient(bgctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^ick_[A-Za-z0-9_-]{43}$`).MatchString(key) {
		t.Errorf("key %q does not have the documented format", key)
	}
	if client.KeyPrefix != key[:8] || client.CreatedAt.IsZero() || client.RevokedAt != nil {
		t.Errorf("client = %+v", client)
	}

	got, err := clients.Authenticate(bgctx, key)
	want := connect.Caller{TenantID: "acme", ClientID: "erp", SourceSystem: "sap", Scopes: nc.Scopes}
	if err != nil || got.TenantID != want.TenantID || got.ClientID != want.ClientID || got.SourceSystem != want.SourceSystem || len(got.Scopes) != 2 {
		t.Errorf("Authenticate = %+v, %v; want %+v", got, err, want)
	}

	// Only the hash is stored: the key appears nowhere in the record.
	_ = s.View(bgctx, func(tx store.Tx) error {
		rec, err := tx.Client("acme", "erp")
		if err != nil || string(rec.KeyHash) != string(store.HashAPIKey(key)) {
			t.Errorf("stored client = %+v, %v", rec, err)
		}
		return nil
	})

	if _, _, err := clients.CreateClient(bgctx, nc); connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("duplicate client: got %v, want InvalidRequest", err)
	}
	if _, _, err := clients.CreateClient(bgctx, connect.NewClient{TenantID: "acme", ClientID: "x", SourceSystem: "sap"}); connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("client without scopes: got %v, want InvalidRequest", err)
	}

	list, err := clients.ListClients(bgctx, "acme")
	if err != nil || len(list) != 1 || list[0].ClientID != "erp" {
		t.Errorf("ListClients = %+v, %v", list, err)
	}

	if err := clients.RevokeClient(bgctx, "acme", "erp"); err != nil {
		t.Fatal(err)
	}
	if _, err := clients.Authenticate(bgctx, key); connect.ErrorCodeOf(err) != connect.CodeUnauthorized {
		t.Errorf("revoked key: got %v, want Unauthorized", err)
	}
	if err := clients.RevokeClient(bgctx, "other", "erp"); connect.ErrorCodeOf(err) != connect.CodeNotFound {
		t.Errorf("revoking another tenant's client: got %v, want NotFound", err)
	}
}

func TestAuthenticateRefusesBadKeysAlike(t *testing.T) {
	clients := &store.Clients{Store: mustOpen(t)}
	for _, key := range []string{"", "Bearer", "ick_short", "xyz_" + "0123456789012345678901234567890123456789012", "ick_0123456789012345678901234567890123456789012"} {
		_, err := clients.Authenticate(bgctx, key)
		if connect.ErrorCodeOf(err) != connect.CodeUnauthorized || err.Error() != connect.ErrUnauthorized.Error() {
			t.Errorf("Authenticate(%q) = %v; want the one Unauthorized error", key, err)
		}
	}
}

// TestSetClientScopes: a key's scopes change in place and hold from its next
// request; the change is logged; bad lists, unknown and revoked clients are
// refused with the exact code and the field.
func TestSetClientScopes(t *testing.T) {
	s := mustOpen(t)
	var log bytes.Buffer
	clients := &store.Clients{Store: s, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	_, key, err := clients.CreateClient(bgctx, connect.NewClient{TenantID: "acme", ClientID: "erp", SourceSystem: "sap", Scopes: []connect.Scope{connect.ScopeTargetsWrite}})
	if err != nil {
		t.Fatal(err)
	}
	wider := []connect.Scope{connect.ScopeTargetsWrite, connect.ScopeImportJobsRead}
	if c, err := clients.SetClientScopes(bgctx, "acme", "erp", wider); err != nil || len(c.Scopes) != 2 {
		t.Fatalf("SetClientScopes = %+v, %v", c, err)
	}
	if caller, err := clients.Authenticate(bgctx, key); err != nil || !slices.Equal(caller.Scopes, wider) {
		t.Errorf("the next request authenticates as %+v, %v; want scopes %v", caller, err, wider)
	}
	if want := `msg="client scopes changed" tenantId=acme clientId=erp from=[inbound.targets.write] to="[inbound.targets.write import_jobs.read]"`; !strings.Contains(log.String(), want) {
		t.Errorf("audit log %q, want %q", log.String(), want)
	}
	if _, _, err := clients.CreateClient(bgctx, connect.NewClient{TenantID: "acme", ClientID: "x", SourceSystem: "sap", Scopes: []connect.Scope{"imports.everything"}}); err == nil ||
		!strings.Contains(err.Error(), `scopes[0] is "imports.everything", an unknown scope`) {
		t.Errorf("a client with an unknown scope: %v", err)
	}
	if err := clients.RevokeClient(bgctx, "acme", "erp"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, client string
		scopes       []connect.Scope
		code         connect.ErrorCode
		message      string
	}{
		{"no scope", "erp", nil, connect.CodeInvalidRequest, "scopes is required"},
		{"unknown scope", "erp", []connect.Scope{connect.ScopeHealthRead, "everything"}, connect.CodeInvalidRequest, `scopes[1] is "everything", an unknown scope`},
		{"revoked key", "erp", wider, connect.CodeInvalidRequest, `the key of client "erp" of tenant "acme" is revoked`},
		{"unknown client", "crm", wider, connect.CodeNotFound, `tenant "acme" has no client "crm"`},
	}
	for _, tc := range tests {
		if _, err := clients.SetClientScopes(bgctx, "acme", tc.client, tc.scopes); connect.ErrorCodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.message) {
			t.Errorf("%s: %v, want %s %q", tc.name, err, tc.code, tc.message)
		}
	}
}
