// Package webhooks delivers the webhook events of the store's outbox to the
// subscriptions of their tenant, signed by the Standard Webhooks conventions
// (DECISIONS.md "Webhook events"). Subscriptions manages the subscriptions and
// their secrets; a Dispatcher, started by connectd serve or by an embedding
// host, delivers the events: outside every store transaction, at least once,
// in order per subscription, with retries.
//
// Every delivery is a POST of the JSON envelope connect.WebhookEvent with the
// headers webhook-id (the event id, the same for every attempt), webhook-timestamp
// (Unix seconds of the attempt) and webhook-signature ("v1," and the base64
// HMAC-SHA256 of "id.timestamp.body", keyed with the base64-decoded part of the
// subscription's whsec_ secret; see Sign).
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/cockroachdb/errors"
)

// The headers of a delivery.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every signing secret, so a leaked secret is
// recognisable; the rest is the base64 of secretBytes random bytes.
const SecretPrefix = "whsec_"

// secretBytes is the size of a signing key: the output size of SHA-256, as
// RFC 2104 recommends for HMAC keys.
const secretBytes = 32

// newSecret returns a new signing secret.
func newSecret() (string, error) {
	var key [secretBytes]byte
	if _, err := rand.Read(key[:]); err != nil {
		return "", errors.Wrap(err, "reading random bytes for a webhook secret")
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key[:]), nil
}

// Sign returns the webhook-signature of a delivery: "v1," followed by the
// base64 HMAC-SHA256 of id, ".", timestamp (Unix seconds), "." and body, keyed
// with the base64-decoded part of secret after "whsec_".
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return "", errors.Wrap(err, "decoding a webhook secret")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
