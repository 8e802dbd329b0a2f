package postgres

import (
	"io"
	"net"
	"strings"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/integration-connect/connect"
)

// unavailableRetryAfter is what a request refused while the database is away
// is told: PostgreSQL restarts in seconds, and the pool connects again on the
// next request once it is back.
const unavailableRetryAfter = 2 * time.Second

// unavailable turns a failure to reach the database — it refuses
// connections, is shutting down or starting, or a connection broke — into
// ServiceUnavailable with a Retry-After, the cause kept for the log; any
// other error is returned as it is. Nothing of such a request was committed
// (a broken commit is the exception PostgreSQL cannot rule out either: the
// Idempotency-Key's replay tells the client which it was).
func unavailable(err error) error {
	if err == nil || !connectionLost(err) {
		return err
	}
	return errors.WithSecondaryError(&connect.Error{Code: connect.CodeServiceUnavailable, RetryAfter: unavailableRetryAfter,
		Message: "the database is unavailable for now; retry shortly"}, err)
}

// connectionLost reports whether err says the database could not be
// reached or went away mid-request.
func connectionLost(err error) bool {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &connectErr), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.As(err, &netErr) && !netErr.Timeout():
		return true
	case errors.As(err, &pgErr):
		// Class 08, connection exception; 57P01-57P03, the server is
		// shutting down, crashed or is starting.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	return false
}
