package store_test

import (
	"context"
	"regexp"
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
