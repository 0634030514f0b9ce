package kafka

import (
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// health follows, through franz-go's hooks, whether a client's requests
// reach the brokers. franz-go retries a broker that refuses connections or
// drops them forever; health is how the source and the sink notice that
// and give up within their bound (see 'scan.broker-timeout' and
// 'properties.delivery.timeout.ms').
//
// A request a broker answered without a transport error counts as
// success, even if the response carries a Kafka error code: those franz-go
// retries or reports itself. Answers of a seed broker (the bootstrap
// address, which franz-go numbers below zero) do not count: with a broker
// that advertises an address the client cannot reach, metadata from the
// seed keeps coming while every fetch fails.
//
// A connection error that retrying cannot mend (wrong credentials, an
// untrusted certificate: see security.classify) is kept as fatal, and
// onFatal, if set, is called with it once, so that whoever waits on the
// client stops waiting.
type health struct {
	mu      sync.Mutex
	failing time.Time // when requests began failing; zero while they succeed
	lastErr error     // the last failed connection or request

	sec      *security
	conns    connState   // what the connections showed so far
	fatalErr error       // the first fatal connection error
	onFatal  func(error) // called once with fatalErr
}

var (
	_ kgo.HookBrokerConnect = (*health)(nil)
	_ kgo.HookBrokerE2E     = (*health)(nil)
)

// OnBrokerConnect notes a failed connection attempt (which includes TLS
// and SASL).
func (h *health) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil {
		h.mu.Lock()
		h.conns.connected = true
		h.mu.Unlock()
		return
	}
	h.fail(err)
	h.mu.Lock()
	var fatal error
	if h.sec != nil && h.fatalErr == nil {
		fatal = h.sec.classify(err, h.conns)
		h.fatalErr = fatal
	}
	notify := h.onFatal
	h.mu.Unlock()
	if fatal != nil && notify != nil {
		notify(fatal)
	}
}

// OnBrokerE2E notes a request and its response.
func (h *health) OnBrokerE2E(meta kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	if err := e.Err(); err != nil {
		if key == int16(kmsg.SASLHandshake) || key == int16(kmsg.SASLAuthenticate) {
			h.mu.Lock()
			h.conns.saslDropped = true
			h.mu.Unlock()
		}
		h.fail(err)
		return
	}
	if meta.NodeID < 0 {
		return // a seed broker
	}
	h.mu.Lock()
	h.failing = time.Time{}
	h.mu.Unlock()
}

func (h *health) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failing.IsZero() {
		h.failing = time.Now()
	}
	h.lastErr = err
}

// fatal returns the first connection error retrying cannot mend, or nil.
func (h *health) fatal() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fatalErr
}

// watchFatal sets what to call when a fatal connection error occurs (nil:
// nothing); if one already did, f is called now.
func (h *health) watchFatal(f func(error)) {
	h.mu.Lock()
	h.onFatal = f
	err := h.fatalErr
	h.mu.Unlock()
	if err != nil && f != nil {
		f(err)
	}
}

// downFor returns the last error when every connection and request has
// failed for longer than bound; nil otherwise.
func (h *health) downFor(bound time.Duration) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failing.IsZero() || time.Since(h.failing) <= bound {
		return nil
	}
	return h.lastErr
}

// reason says why requests fail now: the last error while they fail, or,
// while the brokers answer (perhaps with errors franz-go retries, which the
// hooks do not see), that they acknowledged nothing.
func (h *health) reason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failing.IsZero() || h.lastErr == nil {
		return "the brokers answer but acknowledged none of them"
	}
	return h.lastErr.Error()
}
