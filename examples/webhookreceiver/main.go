// Command webhookreceiver receives Integration Connect webhooks with nothing
// but the standard library: it checks each delivery's signature, refuses
// deliveries whose timestamp is more than five minutes off (a replayed
// request), skips event ids it has seen (deliveries are at least once), and
// prints the events.
//
//	go run ./cmd/connectd webhooks add --tenant demo --url http://127.0.0.1:9000/webhooks \
//	    --events import_job.completed,appointment_request.status_changed --allow-insecure-loopback
//	WEBHOOK_SECRET=whsec_... go run ./examples/webhookreceiver [-addr 127.0.0.1:9000]
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tolerance is how far a delivery's timestamp may be from the receiver's
// clock: older requests may be replays of a captured delivery.
const tolerance = 5 * time.Minute

// maxBody bounds what the receiver reads of a request.
const maxBody = 1 << 20

// Why a delivery is refused.
var (
	errMissingHeaders = errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
	errTimestamp      = errors.New("webhook-timestamp is not within 5 minutes of now")
	errSignature      = errors.New("no signature in webhook-signature matches")
)

// event is the envelope of every delivery.
type event struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "address to listen on")
	flag.Parse()
	key, err := decodeSecret(os.Getenv("WEBHOOK_SECRET"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "set WEBHOOK_SECRET to the whsec_ secret that connectd webhooks add printed:", err)
		os.Exit(2)
	}
	rc := newReceiver(key, func(id string, e event) { fmt.Printf("%s %s %s\n", id, e.Type, e.Data) })
	log.Printf("receiving webhooks on http://%s/webhooks", *addr)
	log.Fatal(http.ListenAndServe(*addr, rc))
}

// decodeSecret returns the HMAC key of a whsec_ secret: its base64 part.
func decodeSecret(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, errors.New("a secret starts with whsec_")
	}
	return base64.StdEncoding.DecodeString(rest)
}

// receiver is the http.Handler of deliveries.
type receiver struct {
	key    []byte
	now    func() time.Time
	handle func(id string, e event)
	mu     sync.Mutex
	seen   map[string]bool // a real receiver keeps this in its database
}

func newReceiver(key []byte, handle func(id string, e event)) *receiver {
	return &receiver{key: key, now: time.Now, handle: handle, seen: map[string]bool{}}
}

// ServeHTTP answers 2xx only for a delivery it has handled (or had handled
// before): any other answer makes the sender retry.
func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	if err := verify(rc.key, r.Header, body, rc.now()); err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var e event
	if err := json.Unmarshal(body, &e); err != nil {
		http.Error(w, "the body is not an event", http.StatusBadRequest)
		return
	}
	if id := r.Header.Get("webhook-id"); rc.first(id) {
		rc.handle(id, e)
	}
	w.WriteHeader(http.StatusNoContent)
}

// first reports whether id is new, and remembers it.
func (rc *receiver) first(id string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.seen[id] {
		return false
	}
	rc.seen[id] = true
	return true
}

// verify checks a delivery: its timestamp is recent, and one of the
// space-separated signatures is "v1," and the base64 HMAC-SHA256 of
// "id.timestamp.body" with key.
func verify(key []byte, h http.Header, body []byte, now time.Time) error {
	id, ts, signatures := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || signatures == "" {
		return errMissingHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > tolerance {
		return errTimestamp
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(signatures) {
		version, value, _ := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(value)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errSignature
}
