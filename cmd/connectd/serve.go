package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/routesuggest"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/postgres"
)

// Server timeouts: generous enough for a 10 MiB batch on a slow link, short
// enough that idle or stalled connections do not pile up.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 2 * time.Minute
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 30 * time.Second
)

// serveOptions are the flags of connectd serve.
type serveOptions struct {
	where                        location
	addr, basePath, metricsAddr  string
	dev                          bool
	webhookRetryMin              time.Duration
	logFormat                    choice
	logLevel                     choice
	jobRetention                 days
	routeConcurrency, routeQueue int
	webhookAllowPrivateNetworks  bool
	webhookRetention             days
	webhookSecretOverlap         time.Duration
	osrm                         routesuggest.OSRM
	osrmFallback                 bool
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve [--data DIR | --database-url URL] [--database-max-conns N] [--addr HOST:PORT] [--base-path /api/v1] [--metrics-addr ADDR] [--dev] [--webhook-retry-min 5s] [--log-format text|json] [--log-level debug|info|warn|error] [--job-retention 90d] [--route-concurrency N] [--route-queue 64] [--webhook-allow-private-networks] [--webhook-retention 30d] [--webhook-secret-overlap 24h] [--osrm-url URL] [--osrm-table-limit 100] [--osrm-timeout 10s] [--osrm-max-snap 500] [--osrm-fallback]", stdout, stderr)
	var o serveOptions
	o.where.register(fs.FlagSet, "data directory holding connect.db and admin.sock, created if missing")
	o.where.registerPool(fs.FlagSet)
	fs.StringVar(&o.addr, "addr", envOr("CONNECT_ADDR", "127.0.0.1:8080"), "address to listen on (env CONNECT_ADDR)")
	fs.StringVar(&o.basePath, "base-path", httpapi.DefaultBasePath, "base path of the import API")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve /metrics on this address instead of the main listener")
	fs.BoolVar(&o.dev, "dev", false, "on a store without clients, create a demo client with every scope and print its key")
	fs.DurationVar(&o.webhookRetryMin, "webhook-retry-min", webhooks.DefaultRetryMin, "delay before the first retry of a failed webhook delivery; each further retry waits twice as long, up to 1h")
	o.logFormat = choice{value: "text", allowed: []string{"text", "json"}}
	fs.Var(&o.logFormat, "log-format", "log format: text or json")
	o.logLevel = choice{value: "info", allowed: []string{"debug", "info", "warn", "error"}}
	fs.Var(&o.logLevel, "log-level", "lowest level logged: debug, info, warn or error (429 answers are logged at debug)")
	o.jobRetention = days{importer.DefaultJobRetention}
	fs.Var(&o.jobRetention, "job-retention", "how long import jobs are kept, such as 90d or 36h; older ones are deleted in the background, their targets stay; 0 keeps them forever")
	fs.IntVar(&o.routeConcurrency, "route-concurrency", 0, "route suggestions solved at a time; 0 means one per core")
	fs.IntVar(&o.routeQueue, "route-queue", routesuggest.DefaultQueueLength, "route suggestions that may wait for a solver, first in first out; beyond, 429 RateLimited (0: none may wait)")
	fs.BoolVar(&o.webhookAllowPrivateNetworks, "webhook-allow-private-networks", false, "deliver webhooks also to hosts that are or resolve to loopback, private, CGNAT, link-local, unspecified or multicast addresses")
	o.webhookRetention = days{webhooks.DefaultRetention}
	fs.Var(&o.webhookRetention, "webhook-retention", "how long webhook events and delivery attempts are kept for the events feed and replays, such as 30d or 36h, whether or not every subscription received them")
	fs.DurationVar(&o.webhookSecretOverlap, "webhook-secret-overlap", webhooks.DefaultSecretOverlap, "how long a rotated-out webhook secret goes on signing deliveries beside the new one (0s: not at all)")
	fs.StringVar(&o.osrm.URL, "osrm-url", os.Getenv("CONNECT_OSRM_URL"), "plan routes on road travel times from this OSRM server, such as http://127.0.0.1:5000 (env CONNECT_OSRM_URL); empty: great-circle estimates")
	fs.IntVar(&o.osrm.TableLimit, "osrm-table-limit", routesuggest.DefaultOSRMTableLimit, "the OSRM server's --max-table-size; larger matrices are fetched in blocks")
	fs.DurationVar(&o.osrm.Timeout, "osrm-timeout", routesuggest.DefaultOSRMTimeout, "how long one route's travel times may take to fetch")
	fs.Float64Var(&o.osrm.MaxSnapMeters, "osrm-max-snap", routesuggest.DefaultMaxSnapMeters, "metres a target may lie from the nearest road; farther ones are excluded as NoRoadAccess")
	fs.BoolVar(&o.osrmFallback, "osrm-fallback", false, "when the OSRM server fails, plan on great-circle estimates (the suggestion says so) instead of answering 503")
	if err := fs.parse(args); err != nil {
		return err
	}
	if o.webhookRetention.value <= 0 {
		return fs.usageError("--webhook-retention must be above 0, such as 30d")
	}
	if !strings.HasPrefix(o.basePath, "/") {
		return fs.usageError("--base-path must start with /, such as /api/v1")
	}
	if u, err := url.Parse(o.osrm.URL); o.osrm.URL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return fs.usageError("--osrm-url must be an http or https URL, such as http://127.0.0.1:5000")
	}
	logger := newLogger(stderr, o.logFormat.value, o.logLevel.value)
	srv, err := startServer(ctx, o, stdout, logger)
	if err != nil {
		return err
	}
	<-ctx.Done()
	logger.Info("shutting down: finishing in-flight requests")
	err = srv.Close()
	if err != nil {
		logger.Error("stopped with an error", "error", err)
		return err
	}
	logger.Info("stopped")
	return nil
}

// newLogger returns the server's logger: text or JSON lines on w, from level
// on (a name checked by the --log-level flag).
func newLogger(w io.Writer, format, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// server is a running connectd: listeners, HTTP servers, the webhook
// dispatcher and the store.
type server struct {
	store      store.Store
	admin      *adminServer
	servers    []*http.Server
	dispatcher *webhooks.Dispatcher
	retention  *importer.Retention
	addr       string
	logger     *slog.Logger
}

// startServer opens the store, wires the services and starts listening. It
// returns once the listeners accept connections.
func startServer(ctx context.Context, o serveOptions, stdout io.Writer, logger *slog.Logger) (*server, error) {
	db, err := o.where.open(ctx, true)
	if err != nil {
		return nil, err
	}
	s := &server{store: db, logger: logger}
	if err := s.start(ctx, o, stdout); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

func (s *server) start(ctx context.Context, o serveOptions, stdout io.Writer) error {
	clients := &store.Clients{Store: s.store}
	imports := importer.New(importer.Config{Store: s.store})
	routes := routesuggest.New(s.routeConfig(o))
	cfg := httpapi.Config{
		BasePath: o.basePath, Clients: clients, Importer: imports, Jobs: imports,
		Appointments: appointments.New(appointments.Config{Store: s.store}),
		Routes:       routes,
		DrawRoute:    routesuggest.SVG,
		Plans:        routes,
		DrawPlan:     routesuggest.PlanSVG,
		Webhooks:     s.subscriptions(o),
		Events:       &webhooks.Events{Store: s.store},
		Logger:       s.logger, MetricsElsewhere: o.metricsAddr != "", Version: version,
	}
	if pg, ok := s.store.(*postgres.Store); ok {
		// Replicas share the rate limit, and a load balancer asks each
		// whether its database answers.
		cfg.NewRateLimiter = func(perSecond float64, burst int) httpapi.RateLimiter { return pg.RateLimiter(perSecond, burst) }
		cfg.Ready = pg.Ping
	}
	handler, err := httpapi.New(cfg)
	if err != nil {
		return err
	}
	if err := s.startDispatcher(ctx, o, handler); err != nil {
		return err
	}
	if err := s.startRetention(ctx, o, handler); err != nil {
		return err
	}
	if sock := o.where.adminSocket(); sock != "" {
		if s.admin, err = listenAdmin(ctx, sock, s.store, s.logger); err != nil {
			return err
		}
	}
	if o.metricsAddr != "" {
		metricsAddr, err := s.listen(o.metricsAddr, metricsOnly(handler.Metrics()))
		if err != nil {
			return err
		}
		s.logger.Info("metrics listening", "url", "http://"+metricsAddr+"/metrics")
	}
	if s.addr, err = s.listen(o.addr, handler); err != nil {
		return err
	}
	s.logger.Info("connectd listening", "url", "http://"+s.addr+o.basePath, "store", o.where.describe(), "travel", travelDescription(o), "version", version)
	if o.dev {
		return createDemoClient(ctx, clients, s.addr, o.basePath, stdout)
	}
	return nil
}

// subscriptions is the integrators' webhook service, with the operator's
// settings.
func (s *server) subscriptions(o serveOptions) *webhooks.Subscriptions {
	overlap := o.webhookSecretOverlap
	if overlap == 0 {
		overlap = -1 // 0s on the command line means no overlap, not the default
	}
	return &webhooks.Subscriptions{
		Store: s.store, URLs: webhooks.URLPolicy{AllowPrivateNetworks: o.webhookAllowPrivateNetworks}, SecretOverlap: overlap,
	}
}

// metricsOnly serves the metrics at GET /metrics (and HEAD) and answers 404
// on every other path of the metrics listener.
func metricsOnly(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	return mux
}

// startDispatcher starts delivering webhook events, with its metrics on the
// handler's /metrics.
func (s *server) startDispatcher(ctx context.Context, o serveOptions, handler *httpapi.Handler) error {
	d, err := webhooks.NewDispatcher(webhooks.Config{
		Store: s.store, RetryMin: o.webhookRetryMin, Logger: s.logger, Registerer: handler.Registerer(),
		URLs: webhooks.URLPolicy{AllowPrivateNetworks: o.webhookAllowPrivateNetworks}, Retention: o.webhookRetention.value,
	})
	if err != nil {
		return err
	}
	s.dispatcher = d
	return d.Start(ctx)
}

// startRetention starts deleting expired import jobs in the background, with
// its metric on the handler's /metrics.
func (s *server) startRetention(ctx context.Context, o serveOptions, handler *httpapi.Handler) error {
	retention := o.jobRetention.value
	if retention == 0 {
		retention = importer.KeepJobsForever
	}
	r, err := importer.NewRetention(importer.RetentionConfig{Store: s.store, JobRetention: retention, Logger: s.logger, Registerer: handler.Registerer()})
	if err != nil {
		return err
	}
	s.retention = r
	return r.Start(ctx)
}

// listen starts an HTTP server for h on addr and returns the address it got
// (useful with port 0).
func (s *server) listen(addr string, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", errors.Wrapf(err, "listening on %s", addr)
	}
	srv := &http.Server{
		Handler: h, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout,
		ErrorLog: slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	s.servers = append(s.servers, srv)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("server stopped", "addr", addr, "error", err)
		}
	}()
	return ln.Addr().String(), nil
}

// Close stops taking admin commands, lets in-flight requests and commands
// finish (up to 30 s), stops the webhook dispatcher (a delivery in flight is
// repeated after the next start), then closes the store.
func (s *server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	var errs error
	if s.admin != nil {
		errs = s.admin.Close(ctx)
	}
	for _, srv := range s.servers {
		errs = errors.CombineErrors(errs, srv.Shutdown(ctx))
	}
	if s.dispatcher != nil {
		s.dispatcher.Stop()
	}
	if s.retention != nil {
		s.retention.Stop()
	}
	return errors.CombineErrors(errs, s.store.Close())
}

// createDemoClient gives a fresh development store one client with every scope
// and prints its key and a curl line to try it.
func createDemoClient(ctx context.Context, clients *store.Clients, addr, basePath string, stdout io.Writer) error {
	existing, err := clients.ListClients(ctx, "")
	if err != nil || len(existing) > 0 {
		return err
	}
	_, key, err := clients.CreateClient(ctx, connect.NewClient{TenantID: "demo", ClientID: "demo-client", SourceSystem: "demo", Scopes: connect.AllScopes})
	if err != nil && demoClientExists(ctx, clients) {
		return nil // a replica that started at the same time created it
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nDev mode: created client demo-client of tenant demo with every scope. Its API key (shown once):\n\n  %s\n\nTry it:\n\n  curl -H 'Authorization: Bearer %s' http://%s%s/integration/health\n\n", key, key, addr, basePath)
	return nil
}

func demoClientExists(ctx context.Context, clients *store.Clients) bool {
	list, err := clients.ListClients(ctx, "demo")
	return err == nil && slices.ContainsFunc(list, func(c connect.Client) bool { return c.ClientID == "demo-client" })
}

// routeConfig is the route service's configuration: its bounds, and the road
// engine when --osrm-url names one.
func (s *server) routeConfig(o serveOptions) routesuggest.Config {
	cfg := routesuggest.Config{Store: s.store, Concurrency: o.routeConcurrency, QueueLength: routeQueue(o.routeQueue), Logger: s.logger}
	if o.osrm.URL != "" {
		cfg.Travel, cfg.TravelFallback = &o.osrm, o.osrmFallback
	}
	return cfg
}

// travelDescription says what route suggestions plan with, for the log
// (never a password the URL may hold).
func travelDescription(o serveOptions) string {
	if o.osrm.URL == "" {
		return "great-circle estimates"
	}
	engine := "OSRM at " + o.osrm.URL
	if u, err := url.Parse(o.osrm.URL); err == nil {
		engine = "OSRM at " + u.Redacted()
	}
	if o.osrmFallback {
		return engine + ", great-circle estimates while it fails"
	}
	return engine
}

// routeQueue turns the --route-queue flag into routesuggest.Config.QueueLength,
// where 0 means the default and a negative length none.
func routeQueue(flag int) int {
	if flag == 0 {
		return -1
	}
	return flag
}
