package webhooks

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// sender makes delivery attempts: the one path of every event to a
// receiver, live, replayed, resent or a test's ping.
type sender struct {
	urls    URLPolicy
	timeout time.Duration
	// clients send deliveries, by whether the subscription may use loopback.
	clients map[bool]*http.Client
}

func newSender(urls URLPolicy, timeout time.Duration) *sender {
	return &sender{urls: urls, timeout: timeout, clients: map[bool]*http.Client{false: urls.client(false), true: urls.client(true)}}
}

// attemptResult is what one attempt came to: err is nil only for a 2xx
// answer; status is the answer's (0 without one).
type attemptResult struct {
	start    time.Time
	duration time.Duration
	outcome  string
	status   int
	err      error
}

// attempt is the stored record of the result, the nth attempt at next's
// event for rec.
func (r attemptResult) attempt(rec *store.Subscription, next pending, n int) *store.Attempt {
	a := &store.Attempt{TenantID: rec.TenantID, SubscriptionID: rec.ID}
	a.EventID, a.EventType, a.Trigger = next.event.ID, next.event.Kind, next.trigger
	a.At, a.DurationMs, a.Outcome, a.Attempt = r.start.UTC().Truncate(time.Millisecond), r.duration.Milliseconds(), r.outcome, n
	if r.status != 0 {
		a.ResponseStatus = &r.status
	}
	if r.err != nil {
		msg := truncate(r.err.Error(), maxLastError)
		a.Error = &msg
	}
	return a
}

// send posts the event to the subscription's URL once, signed, and returns
// the result.
func (s *sender) send(ctx context.Context, sub *store.Subscription, event *store.Event, now func() time.Time) attemptResult {
	r := attemptResult{start: now()}
	r.outcome, r.status, r.err = s.post(ctx, sub, event, r.start)
	r.duration = now().Sub(r.start)
	return r
}

func (s *sender) post(ctx context.Context, sub *store.Subscription, event *store.Event, at time.Time) (string, int, error) {
	body, err := event.Payload()
	if err != nil {
		return outcomeNetworkError, 0, err
	}
	signature, err := signatures(sub, event.ID, at, body)
	if err != nil {
		return outcomeNetworkError, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	// The rule again: the host may resolve elsewhere since the subscription
	// was added, or the rule may have changed. The client checks the
	// address it connects to once more.
	if err := s.urls.CheckURL(ctx, sub.URL, sub.AllowInsecureLoopback); err != nil {
		return outcomeRefused, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(body))
	if err != nil {
		return outcomeNetworkError, 0, errors.Wrap(err, "building the request")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(HeaderID, event.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(HeaderSignature, signature)
	return s.answer(s.clients[sub.AllowInsecureLoopback].Do(req))
}

// signatures is the webhook-signature header of a delivery at the time at:
// the current secret's signature, and during the overlap after a rotation
// the previous secret's too, separated by a space (Standard Webhooks).
func signatures(sub *store.Subscription, id string, at time.Time, body []byte) (string, error) {
	header, err := Sign(sub.Secret, id, at.Unix(), body)
	if err != nil || sub.PreviousSecret == "" || !at.Before(sub.PreviousSecretUntil) {
		return header, err
	}
	previous, err := Sign(sub.PreviousSecret, id, at.Unix(), body)
	return header + " " + previous, err
}

// answer classifies the result of a request.
func (s *sender) answer(resp *http.Response, err error) (string, int, error) {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return outcomeTimeout, 0, errors.Newf("no answer within %s", s.timeout)
	case err != nil:
		return outcomeNetworkError, 0, err
	}
	defer resp.Body.Close()
	// Reading a little of the body lets the connection be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return outcomeHTTPError, resp.StatusCode, errors.Newf("answered %s", resp.Status)
	}
	return outcomeDelivered, resp.StatusCode, nil
}

// ping is the test event of a subscription: sent, never stored in the
// outbox.
func ping(sub *store.Subscription, at time.Time) (*store.Event, error) {
	id, err := store.NewEventID(at)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(connect.PingEvent{SubscriptionID: sub.ID})
	return &store.Event{ID: id, TenantID: sub.TenantID, Kind: connect.EventPing, CreatedAt: at.UTC(), Data: data}, errors.Wrap(err, "encoding a ping")
}
