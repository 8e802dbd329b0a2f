package webhooks

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
)

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	// LookupNetIP returns the addresses of host for network "ip".
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// URLPolicy is the rule for where webhooks may be delivered (DECISIONS.md
// "Bounded cost of every request"). A URL must be https, or http on a
// loopback host for a subscription added with AllowInsecureLoopback; and its
// host must not be, or resolve to, a loopback, private (RFC 1918,
// fc00::/7), CGNAT (100.64.0.0/10), link-local (169.254.0.0/16, fe80::/10),
// unspecified or multicast address, unless AllowPrivateNetworks is set. A
// subscription with AllowInsecureLoopback may still use loopback. Without
// the rule, anyone who may add a subscription could make the service post
// into the networks behind it (cloud metadata at 169.254.169.254, say).
//
// CheckURL applies the rule when a subscription is added, whoever adds it,
// and the dispatcher applies it again before every delivery and once more
// to the very address it connects to, so a name that resolves to another
// address later (DNS rebinding) cannot slip past. Redirects are never
// followed.
type URLPolicy struct {
	// AllowPrivateNetworks accepts the addresses above (connectd serve
	// --webhook-allow-private-networks), for receivers inside a private
	// network.
	AllowPrivateNetworks bool
	// Resolver looks host names up; nil means net.DefaultResolver.
	Resolver Resolver
}

// CheckURL is the one check of a webhook URL: its form, its scheme, and
// every address its host resolves to. allowInsecureLoopback is the
// subscription's AllowInsecureLoopback. Errors: InvalidRequest naming url.
func (p URLPolicy) CheckURL(ctx context.Context, raw string, allowInsecureLoopback bool) error {
	u, err := checkForm(raw, allowInsecureLoopback)
	if err != nil {
		return err
	}
	host := u.Hostname()
	addrs, err := p.resolve(ctx, host)
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return connect.Errorf(connect.CodeInvalidRequest, "url host %s cannot be resolved", connect.Quote(host))
	case err != nil:
		// A timeout or a failing DNS server says nothing about the URL: the
		// caller may retry, and an idempotent retry must not replay this.
		return errors.Wrapf(err, "resolving the url host %s", connect.Quote(host))
	}
	for _, addr := range addrs {
		if err := p.allowed(addr, allowInsecureLoopback); err != nil {
			return connect.Errorf(connect.CodeInvalidRequest, "url host %s %s", connect.Quote(host), err.Error())
		}
	}
	return nil
}

// checkForm checks everything about a URL but its addresses: absolute,
// without credentials, https, or http on a loopback host when allowed, and a
// host that is a DNS name or an IP address written the standard way.
func checkForm(raw string, allowInsecureLoopback bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Hostname() == "" || u.Opaque != "":
		return nil, connect.Errorf(connect.CodeInvalidRequest, "url must be an absolute URL such as https://example.com/webhooks")
	case u.User != nil:
		return nil, connect.Errorf(connect.CodeInvalidRequest, "url must not hold a user name or password: subscriptions are listed, so they would leak")
	case oddNumericHost(u.Hostname()):
		return nil, connect.Errorf(connect.CodeInvalidRequest, "url host %s is neither a DNS name nor an IP address written the standard way", connect.Quote(u.Hostname()))
	case u.Scheme == "https":
		return u, nil
	case u.Scheme == "http" && allowInsecureLoopback && isLoopbackName(u.Hostname()):
		return u, nil
	case u.Scheme == "http" && allowInsecureLoopback:
		return nil, connect.Errorf(connect.CodeInvalidRequest, "url must use https: %s is not a loopback host (127.0.0.0/8, ::1, localhost), the only hosts allowInsecureLoopback allows over http", connect.Quote(u.Hostname()))
	}
	return nil, connect.Errorf(connect.CodeInvalidRequest, "url must use https (http only on a loopback host with allowInsecureLoopback, for development)")
}

// oddNumericHost reports a host that resolvers may read as an IPv4 address
// although it is not one in dotted decimal: 0x7f.1, 2130706433, 127.1. No
// top-level domain is numeric, so such a host is never a DNS name.
func oddNumericHost(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	last := host[strings.LastIndex(host, ".")+1:]
	return last != "" && (last[0] >= '0' && last[0] <= '9')
}

// isLoopbackName reports whether host names this machine: localhost or a
// loopback address. Names that merely resolve to loopback do not count.
func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// resolve returns the addresses of host: itself when it is an address.
func (p URLPolicy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err == nil && len(addrs) == 0 {
		err = &net.DNSError{Err: "no address", Name: host, IsNotFound: true}
	}
	return addrs, err
}

// allowed says why deliveries may not go to addr, or nil.
func (p URLPolicy) allowed(addr netip.Addr, allowInsecureLoopback bool) error {
	addr = addr.Unmap()
	kind := addressKind(addr)
	switch {
	case kind == "":
		return nil
	case kind == "loopback" && allowInsecureLoopback:
		return nil
	case p.AllowPrivateNetworks:
		return nil
	}
	article := "a"
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		article = "an"
	}
	return errors.Newf("is or resolves to %s, %s %s address; webhooks are not delivered into private networks", addr, article, kind)
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// addressKind names the kind of a non-public address, or "" for a public one.
func addressKind(addr netip.Addr) string {
	switch {
	case addr.IsLoopback():
		return "loopback"
	case addr.IsPrivate():
		return "private"
	case cgnat.Contains(addr):
		return "carrier-grade NAT"
	case addr.IsLinkLocalUnicast():
		return "link-local"
	case addr.IsUnspecified():
		return "unspecified"
	case addr.IsMulticast(), addr.IsLinkLocalMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	}
	return ""
}

// dialTimeout bounds connecting to one address of a receiver.
const dialTimeout = 10 * time.Second

// client returns the HTTP client of deliveries under p: it connects only to
// addresses the rule allows, checked after resolving and dialled as
// checked, and never follows a redirect. allowInsecureLoopback selects the
// client of subscriptions that may use loopback; the two never share a
// connection.
func (p URLPolicy) client(allowInsecureLoopback bool) *http.Client {
	dialer := &net.Dialer{Timeout: dialTimeout}
	transport := &http.Transport{
		Proxy: nil, // a proxy would connect to addresses nobody checked
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			addrs, err := p.resolve(ctx, host)
			if err != nil {
				return nil, errors.Wrapf(err, "resolving %s", host)
			}
			for _, addr := range addrs {
				if err := p.allowed(addr, allowInsecureLoopback); err != nil {
					return nil, errors.Wrapf(err, "refusing to connect to %s", host)
				}
			}
			var last error
			for _, addr := range addrs {
				conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(addr.String(), port))
				if err == nil {
					return conn, nil
				}
				last = err
			}
			return nil, last
		},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	return &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
