package postgres

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5"
)

// sessionClaims keeps a store's claims as session advisory locks on one
// connection of their own. PostgreSQL releases a session's advisory locks
// when the session ends, so the claims of a replica that is killed are free
// as soon as its connection closes (at once when the process dies; within
// about 15 s of TCP keepalives when its machine vanishes), not after their
// ttl. Session locks are re-entrant, so claims of this process are also kept
// in held, which refuses a second claim on a name; held also makes a claim
// whose holder never releases it lapse after its ttl, as on every engine.
//
// One mutex serializes the claims of the store: each is one short query on
// the claims connection. A claims connection that fails is closed (its locks
// with it) and replaced by the next claim; the claims taken on it stay held
// in this process, and across processes the commit's re-read of the
// idempotency record still keeps a key from running twice.
type sessionClaims struct {
	cfg *pgx.ConnConfig
	log *slog.Logger

	mu   sync.Mutex
	conn *pgx.Conn // nil until the first claim, and after a failure
	held map[string]*sessionClaim
}

// sessionClaim is one claim of this process: its lock key, the connection
// (session) holding the lock, and when it lapses.
type sessionClaim struct {
	key   int64
	conn  *pgx.Conn
	until time.Time
}

// claimQueryTimeout bounds each query on the claims connection. The queries
// never take the request's context: a request cancelled mid-query would close
// the connection, and with it every claim of the process.
const claimQueryTimeout = 5 * time.Second

// claim takes the claim called name until ttl passes or release is called;
// ok is false while another holder, in this process or another, has it.
func (c *sessionClaims) claim(ctx context.Context, name string, ttl time.Duration) (release func(), ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, errors.WithStack(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep()
	if c.held[name] != nil {
		return nil, false, nil
	}
	conn, err := c.session(ctx)
	if err != nil {
		return nil, false, err
	}
	key := lockKey("claim", name)
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimQueryTimeout)
	defer cancel()
	if err := conn.QueryRow(qctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
		c.drop()
		return nil, false, errors.Wrapf(err, "claiming %q", name)
	}
	if !ok {
		return nil, false, nil
	}
	h := &sessionClaim{key: key, conn: conn, until: time.Now().Add(ttl)}
	if c.held == nil {
		c.held = map[string]*sessionClaim{}
	}
	c.held[name] = h
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.release(name, h)
		})
	}, true, nil
}

// release gives up h if it still holds name: it was not swept after its ttl
// and taken again meanwhile.
func (c *sessionClaims) release(name string, h *sessionClaim) {
	if c.held[name] != h {
		return
	}
	delete(c.held, name)
	if h.conn != c.conn || c.conn == nil {
		return // its session ended, and its lock with it
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimQueryTimeout)
	defer cancel()
	if _, err := c.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", h.key); err != nil {
		c.log.Warn("releasing a claim failed; the claims connection is replaced, which releases it", "claim", name, "error", err)
		c.drop()
	}
}

// sweep releases the claims whose ttl has passed.
func (c *sessionClaims) sweep() {
	now := time.Now()
	for name, h := range c.held {
		if now.After(h.until) {
			c.release(name, h)
		}
	}
}

// session returns the claims connection, connecting when there is none. The
// server probes an idle client every few seconds (TCP keepalives), so it
// ends the session of a replica whose machine vanished in about 15 s.
func (c *sessionClaims) session(ctx context.Context) (*pgx.Conn, error) {
	if c.conn != nil && !c.conn.IsClosed() {
		return c.conn, nil
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimQueryTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, c.cfg)
	if err != nil {
		return nil, errors.Wrap(err, "connecting for claims")
	}
	// Keepalive settings apply to TCP connections only; on a unix socket
	// the process's death closes the socket at once.
	_, _ = conn.Exec(cctx, "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 5")
	c.conn = conn
	return conn, nil
}

// drop closes the claims connection after a failure; the server releases its
// locks, and the next claim connects again.
func (c *sessionClaims) drop() {
	if c.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = c.conn.Close(ctx)
		c.conn = nil
	}
}

// close ends the claims session, releasing every claim of the store.
func (c *sessionClaims) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop()
	c.held = nil
}
