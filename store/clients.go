package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"strings"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
)

// APIKeyPrefix starts every API key, so a leaked key is recognisable in logs and
// by secret scanners.
const APIKeyPrefix = "ick_"

// apiKeyLength is the prefix plus 43 base64url characters of 32 random bytes.
const apiKeyLength = len(APIKeyPrefix) + 43

// displayPrefixLength is how much of a key is kept to tell keys apart in lists.
const displayPrefixLength = 8

// Clients is the Integration Client registry on a Store. It implements
// connect.ClientRegistry.
type Clients struct {
	Store Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the audit lines of changes to a client's permissions;
	// nil means slog.Default().
	Logger *slog.Logger
}

var _ connect.ClientRegistry = (*Clients)(nil)

func (c *Clients) now() time.Time {
	if c.Now != nil {
		return c.Now().UTC()
	}
	return time.Now().UTC()
}

// CreateClient creates a client and returns it with its API key. The key is not
// stored and cannot be shown again. Errors: InvalidRequest (bad fields, or the
// tenant already has a client with this id).
func (c *Clients) CreateClient(ctx context.Context, nc connect.NewClient) (connect.Client, string, error) {
	if err := connect.Validate(nc); err != nil {
		return connect.Client{}, "", err
	}
	if err := connect.CheckScopes(nc.Scopes); err != nil {
		return connect.Client{}, "", err
	}
	key, err := newAPIKey()
	if err != nil {
		return connect.Client{}, "", err
	}
	rec := &Client{
		Client: connect.Client{
			TenantID: nc.TenantID, ClientID: nc.ClientID, SourceSystem: nc.SourceSystem,
			Scopes: nc.Scopes, KeyPrefix: key[:displayPrefixLength], CreatedAt: c.now(),
		},
		KeyHash: HashAPIKey(key),
	}
	if err := c.Store.Update(ctx, func(tx Tx) error { return tx.CreateClient(rec) }); err != nil {
		return connect.Client{}, "", err
	}
	return rec.Client, key, nil
}

// Authenticate returns the caller an API key belongs to. A missing, malformed,
// unknown or revoked key gives the same Unauthorized error, so nothing tells an
// attacker which it was.
func (c *Clients) Authenticate(ctx context.Context, apiKey string) (connect.Caller, error) {
	if len(apiKey) != apiKeyLength || !strings.HasPrefix(apiKey, APIKeyPrefix) {
		return connect.Caller{}, connect.ErrUnauthorized
	}
	var client *Client
	err := c.Store.View(ctx, func(tx Tx) (err error) {
		client, err = tx.ClientByKeyHash(HashAPIKey(apiKey))
		return err
	})
	if errors.Is(err, connect.ErrNotFound) || (err == nil && client.RevokedAt != nil) {
		return connect.Caller{}, connect.ErrUnauthorized
	}
	if err != nil {
		return connect.Caller{}, err
	}
	return client.Caller(), nil
}

// ListClients lists the clients of a tenant, or of every tenant when tenantID is
// empty. Key hashes are not returned.
func (c *Clients) ListClients(ctx context.Context, tenantID string) ([]connect.Client, error) {
	var list []connect.Client
	err := c.Store.View(ctx, func(tx Tx) error {
		recs, err := tx.Clients(tenantID)
		for _, r := range recs {
			list = append(list, r.Client)
		}
		return err
	})
	return list, err
}

// RevokeClient revokes a client's key for good. Revoking twice keeps the first
// revocation time. Errors: NotFound.
func (c *Clients) RevokeClient(ctx context.Context, tenantID, clientID string) error {
	return c.Store.Update(ctx, func(tx Tx) error {
		rec, err := tx.Client(tenantID, clientID)
		if errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "tenant %q has no client %q", tenantID, clientID)
		}
		if err != nil || rec.RevokedAt != nil {
			return err
		}
		now := c.now()
		rec.RevokedAt = &now
		return tx.PutClient(rec)
	})
}

// SetClientScopes replaces the scopes of a client's key. Authenticate reads
// the client on every request, so the change holds from the key's next
// request on, on every replica; the change is logged for the audit trail.
// Errors: InvalidRequest (no scope, an unknown one, a revoked key),
// NotFound.
func (c *Clients) SetClientScopes(ctx context.Context, tenantID, clientID string, scopes []connect.Scope) (connect.Client, error) {
	if err := connect.CheckScopes(scopes); err != nil {
		return connect.Client{}, err
	}
	var before []connect.Scope
	var rec *Client
	err := c.Store.Update(ctx, func(tx Tx) (err error) {
		rec, err = tx.Client(tenantID, clientID)
		switch {
		case errors.Is(err, connect.ErrNotFound):
			return connect.Errorf(connect.CodeNotFound, "tenant %q has no client %q", tenantID, clientID)
		case err != nil:
			return err
		case rec.RevokedAt != nil:
			return connect.Errorf(connect.CodeInvalidRequest, "the key of client %q of tenant %q is revoked: create a new client instead", clientID, tenantID)
		}
		before, rec.Scopes = rec.Scopes, scopes
		return tx.PutClient(rec)
	})
	if err != nil {
		return connect.Client{}, err
	}
	c.logger().LogAttrs(ctx, slog.LevelInfo, "client scopes changed", slog.String("tenantId", tenantID), slog.String("clientId", clientID),
		slog.Any("from", before), slog.Any("to", scopes))
	return rec.Client, nil
}

func (c *Clients) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// HashAPIKey returns the SHA-256 hash under which a key's client is found.
func HashAPIKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

func newAPIKey() (string, error) {
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", errors.Wrap(err, "reading random bytes for an API key")
	}
	return APIKeyPrefix + base64.RawURLEncoding.EncodeToString(secret[:]), nil
}
