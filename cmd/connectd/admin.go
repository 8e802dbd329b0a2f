package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect/store"
)

// adminSocketName is the unix socket connectd serve listens on in the data
// directory, for admin commands while it holds the store.
const adminSocketName = "admin.sock"

// maxAdminRequestBytes bounds what an admin socket client may send: a command
// line, never a large body.
const maxAdminRequestBytes = 1 << 20

// adminRequest is what an admin command sends through the socket: its whole
// command line, which the server runs exactly as the command would.
type adminRequest struct {
	Args []string `json:"args"`
}

// adminResponse is what the command wrote and its exit status.
type adminResponse struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	ExitStatus int    `json:"exitStatus"`
}

// invocation is the command line being run and where its output goes, so
// withStore can hand the whole command to a running server.
type invocation struct {
	args           []string
	stdout, stderr io.Writer
}

type invocationKey struct{}
type servedStoreKey struct{}

func withInvocation(ctx context.Context, inv *invocation) context.Context {
	return context.WithValue(ctx, invocationKey{}, inv)
}

func invocationFrom(ctx context.Context) *invocation {
	inv, _ := ctx.Value(invocationKey{}).(*invocation)
	return inv
}

// servedStore is the store of the server running a command for an admin
// socket client, or nil when the command runs on its own.
func servedStore(ctx context.Context) store.Store {
	s, _ := ctx.Value(servedStoreKey{}).(store.Store)
	return s
}

type servedLoggerKey struct{}

// auditLogger is where an admin command records a change to permissions: the
// log of the server running it for an admin socket client, else the
// command's own stderr.
func auditLogger(ctx context.Context, stderr io.Writer) *slog.Logger {
	if l, ok := ctx.Value(servedLoggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.New(slog.NewTextHandler(stderr, nil))
}

// exitStatusError is the exit status of a command that ran in the server; its
// output has been written already.
type exitStatusError int

func (e exitStatusError) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// forward runs inv in the server listening on sock. forwarded is false when no
// server listens there (no socket, or a stale one left by a crash), and the
// caller opens the store itself.
func forward(ctx context.Context, sock string, inv *invocation) (forwarded bool, err error) {
	conn, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, "unix", sock)
	if err != nil {
		return false, nil
	}
	body, err := json.Marshal(adminRequest{Args: inv.args})
	if err != nil {
		_ = conn.Close()
		return true, errors.Wrap(err, "encoding an admin request")
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext:       func(context.Context, string, string) (net.Conn, error) { return conn, nil },
		DisableKeepAlives: true,
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://connectd/run", bytes.NewReader(body))
	if err != nil {
		return true, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return true, errors.Wrapf(err, "running the command in the server listening on %s", sock)
	}
	defer resp.Body.Close()
	var out adminResponse
	if err := json.UnmarshalRead(resp.Body, &out); err != nil || resp.StatusCode != http.StatusOK {
		return true, errors.Newf("the server listening on %s answered %s", sock, resp.Status)
	}
	_, _ = io.WriteString(inv.stdout, out.Stdout)
	_, _ = io.WriteString(inv.stderr, out.Stderr)
	return true, exitStatusError(out.ExitStatus)
}

// adminServer runs admin commands sent through the admin socket on the
// server's store.
type adminServer struct {
	store  store.Store
	logger *slog.Logger
	path   string
	srv    *http.Server
}

// listenAdmin listens on the admin socket at path (mode 0600: only the user
// running connectd may administer it). The server holds the store, so a socket
// file found there is left from a crash and is replaced.
func listenAdmin(ctx context.Context, path string, s store.Store, logger *slog.Logger) (*adminServer, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, errors.Wrapf(err, "removing the stale admin socket %s", path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, errors.Wrapf(err, "listening on the admin socket %s", path)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, errors.Wrapf(err, "restricting the admin socket %s", path)
	}
	a := &adminServer{store: s, logger: logger, path: path}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /run", a.run)
	a.srv = &http.Server{
		Handler: mux, ReadHeaderTimeout: readHeaderTimeout,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("admin socket stopped", "path", path, "error", err)
		}
	}()
	return a, nil
}

// run runs one admin command line on the server's store.
func (a *adminServer) run(w http.ResponseWriter, r *http.Request) {
	var req adminRequest
	if err := json.UnmarshalRead(http.MaxBytesReader(w, r.Body, maxAdminRequestBytes), &req); err != nil || len(req.Args) == 0 {
		http.Error(w, "want {\"args\": [command, ...]}", http.StatusBadRequest)
		return
	}
	if c, ok := commandNamed(req.Args[0]); !ok || !c.admin {
		http.Error(w, "not an admin command", http.StatusBadRequest)
		return
	}
	var stdout, stderr bytes.Buffer
	ctx := context.WithValue(context.WithValue(r.Context(), servedStoreKey{}, a.store), servedLoggerKey{}, a.logger)
	status := run(ctx, req.Args, &stdout, &stderr)
	a.logger.Info("admin command", "command", commandName(req.Args), "exitStatus", status)
	body, err := json.Marshal(adminResponse{Stdout: stdout.String(), Stderr: stderr.String(), ExitStatus: status})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// Close stops taking admin commands, lets running ones finish, and removes
// the socket file.
func (a *adminServer) Close(ctx context.Context) error {
	err := a.srv.Shutdown(ctx)
	if rerr := os.Remove(a.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.CombineErrors(err, rerr)
	}
	return err
}

// commandName is the command and subcommand of a command line, for the log:
// never its flags, which may carry secrets some day.
func commandName(args []string) string {
	if len(args) > 1 && len(args[1]) > 0 && args[1][0] != '-' {
		return args[0] + " " + args[1]
	}
	return args[0]
}
