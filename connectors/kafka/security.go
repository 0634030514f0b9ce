package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/aws"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/streamsql/streamsql/connectors"
)

// securityProperties are the 'properties.*' keys readSecurity handles.
var securityProperties = []string{
	"security.protocol", "sasl.mechanism", "sasl.jaas.config", "sasl.oauthbearer.token.endpoint.url",
	"sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.certificates",
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.certificate.chain", "ssl.keystore.key",
	"ssl.endpoint.identification.algorithm",
}

// security is how a client reaches the brokers, from the table's
// 'properties.*': TLS and SASL. Its fields never hold a password; the SASL
// mechanism closes over the credentials.
type security struct {
	protocol  string // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
	mechanism string // "" without SASL
	user      string // the SASL user (or OAuth client id), for messages
	tls       *tls.Config

	props map[string]string // the properties it was read from
	io    bool              // files and environment were read
}

func (sec *security) sasl() bool { return sec.mechanism != "" }

// principal names the identity the brokers see, for messages about ACLs.
func (sec *security) principal() string {
	switch {
	case sec.user != "" && sec.mechanism == connectors.MechOAuthBearer:
		return "the OAuth client " + sec.user
	case sec.mechanism == connectors.MechMSKIAM:
		return "the AWS identity of access key " + sec.user
	case sec.user != "":
		return "User:" + sec.user
	case sec.tls != nil && len(sec.tls.Certificates) > 0:
		return "the client certificate's subject"
	default:
		return "User:ANONYMOUS (no SASL)"
	}
}

// readSecurity checks the security properties (keys without
// 'properties.') when a source or sink is made, which check does too:
// everything but what lives outside the job file (the files named by
// 'ssl.*.location', AWS_MSK_IAM's environment), which are read when the
// source or sink opens (security.options), as a 'path' is.
func readSecurity(props map[string]string) (*security, error) {
	sec, _, err := buildSecurity(props, false)
	return sec, err
}

// options returns the client options of sec's properties, reading the
// files and environment they name.
func (sec *security) options() ([]kgo.Opt, error) {
	full, opts, err := buildSecurity(sec.props, true)
	if err != nil {
		return nil, err
	}
	*sec = *full
	return opts, nil
}

// buildSecurity reads the security properties and returns the client
// options they make; without io it reads no file and no environment
// variable, and its options are not to be used.
func buildSecurity(props map[string]string, io bool) (*security, []kgo.Opt, error) {
	sec := &security{protocol: strings.ToUpper(props["security.protocol"]), props: props, io: io}
	if sec.protocol == "" {
		sec.protocol = "PLAINTEXT"
	}
	var opts []kgo.Opt
	switch sec.protocol {
	case "PLAINTEXT", "SASL_PLAINTEXT":
	case "SSL", "SASL_SSL":
		cfg, err := tlsConfig(props, io)
		if err != nil {
			return nil, nil, err
		}
		sec.tls = cfg
		opts = append(opts, kgo.Dialer(tlsDial(cfg)))
	default:
		return nil, nil, fmt.Errorf("'properties.security.protocol' = '%s': want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", props["security.protocol"])
	}
	if strings.HasPrefix(sec.protocol, "SASL_") {
		m, err := saslMechanism(sec, props)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return sec, opts, nil
}

// tlsConfig builds the TLS configuration: the trusted CAs (the system's
// unless a truststore is given), the client certificate, and whether host
// names are verified.
func tlsConfig(props map[string]string, io bool) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	var roots *x509.CertPool // nil: the system's
	addCerts := func(key string, data []byte) error {
		certs, err := connectors.PEMCertificates(data)
		if err != nil {
			return fmt.Errorf("'properties.%s': %w", key, err)
		}
		if len(certs) == 0 {
			return fmt.Errorf("'properties.%s' holds no PEM certificate (-----BEGIN CERTIFICATE----- ...)", key)
		}
		roots = x509.NewCertPool()
		for _, c := range certs {
			roots.AddCert(c)
		}
		return nil
	}
	if t := props["ssl.truststore.type"]; t != "" && !strings.EqualFold(t, "PEM") {
		return nil, fmt.Errorf("'properties.ssl.truststore.type' = '%s': only PEM is supported", t)
	}
	if t := props["ssl.keystore.type"]; t != "" && !strings.EqualFold(t, "PEM") {
		return nil, fmt.Errorf("'properties.ssl.keystore.type' = '%s': only PEM is supported", t)
	}
	if loc, ok := props["ssl.truststore.location"]; ok && io {
		data, err := os.ReadFile(loc)
		if err != nil {
			return nil, fmt.Errorf("'properties.ssl.truststore.location': %w", err)
		}
		if err := addCerts("ssl.truststore.location", data); err != nil {
			return nil, fmt.Errorf("%w (file %s)", err, loc)
		}
	}
	if pemText, ok := props["ssl.truststore.certificates"]; ok {
		if err := addCerts("ssl.truststore.certificates", []byte(pemText)); err != nil {
			return nil, err
		}
	}
	cfg.RootCAs = roots

	keyPair := func(what string, chain, key []byte) error {
		chain, key = connectors.NormalizePEM(chain), connectors.NormalizePEM(key)
		if err := connectors.CheckPEMKey(key); err != nil {
			return fmt.Errorf("%s %w", what, err)
		}
		cert, err := tls.X509KeyPair(chain, key)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
		return nil
	}
	if loc, ok := props["ssl.keystore.location"]; ok && io {
		data, err := os.ReadFile(loc)
		if err != nil {
			return nil, fmt.Errorf("'properties.ssl.keystore.location': %w", err)
		}
		if err := keyPair("'properties.ssl.keystore.location' (file "+loc+")", data, data); err != nil {
			return nil, err
		}
	}
	chain, hasChain := props["ssl.keystore.certificate.chain"]
	key, hasKey := props["ssl.keystore.key"]
	if hasChain != hasKey {
		return nil, errors.New("'properties.ssl.keystore.certificate.chain' and 'properties.ssl.keystore.key' go together")
	}
	if hasChain {
		if err := keyPair("'properties.ssl.keystore.key'", []byte(chain), []byte(key)); err != nil {
			return nil, err
		}
	}

	switch alg, ok := props["ssl.endpoint.identification.algorithm"]; {
	case !ok || strings.EqualFold(alg, "https"):
		// crypto/tls verifies the chain and the host name; franz-go sets
		// ServerName to each broker's host.
	case alg == "":
		// Kafka's '' keeps checking the chain but not the host name.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the broker sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	default:
		return nil, fmt.Errorf("'properties.ssl.endpoint.identification.algorithm' = '%s': want https or ''", alg)
	}
	return cfg, nil
}

// saslMechanism builds the SASL mechanism, with franz-go's pkg/sasl, from
// 'sasl.mechanism' and the credentials in 'sasl.jaas.config'.
func saslMechanism(sec *security, props map[string]string) (sasl.Mechanism, error) {
	sec.mechanism = props["sasl.mechanism"]
	var opt map[string]string
	if v, ok := props["sasl.jaas.config"]; ok {
		j, err := connectors.ParseJAAS(v)
		if err != nil {
			return nil, fmt.Errorf("'properties.sasl.jaas.config': %w", err)
		}
		opt = j.Options
	}
	need := func(keys ...string) error {
		for _, k := range keys {
			if _, ok := opt[k]; !ok {
				return fmt.Errorf("'properties.sasl.jaas.config' has no %s, which %s needs", k, sec.mechanism)
			}
		}
		return nil
	}
	switch sec.mechanism {
	case connectors.MechPlain, connectors.MechScram256, connectors.MechScram512:
		if err := need("username", "password"); err != nil {
			return nil, err
		}
		sec.user = opt["username"]
		switch sec.mechanism {
		case connectors.MechPlain:
			return plain.Auth{User: opt["username"], Pass: opt["password"]}.AsMechanism(), nil
		case connectors.MechScram256:
			return scram.Auth{User: opt["username"], Pass: opt["password"]}.AsSha256Mechanism(), nil
		default:
			return scram.Auth{User: opt["username"], Pass: opt["password"]}.AsSha512Mechanism(), nil
		}
	case connectors.MechOAuthBearer:
		if err := need("clientId", "clientSecret"); err != nil {
			return nil, err
		}
		url := props["sasl.oauthbearer.token.endpoint.url"]
		if url == "" {
			return nil, errors.New("OAUTHBEARER needs 'properties.sasl.oauthbearer.token.endpoint.url'")
		}
		sec.user = opt["clientId"]
		return oauthMechanism(sec, url, opt), nil
	case connectors.MechMSKIAM:
		creds := func() (aws.Auth, error) {
			a := aws.Auth{AccessKey: os.Getenv("AWS_ACCESS_KEY_ID"), SecretKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
				SessionToken: os.Getenv("AWS_SESSION_TOKEN"), UserAgent: "streamsql"}
			if a.AccessKey == "" || a.SecretKey == "" {
				return aws.Auth{}, &fatalError{errors.New("AWS_MSK_IAM signs with the credentials in the environment variables " +
					"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), and they are not set")}
			}
			return a, nil
		}
		if _, err := creds(); err != nil && sec.io {
			return nil, err
		}
		sec.user = os.Getenv("AWS_ACCESS_KEY_ID")
		// Read at every authentication: credentials may be rotated in
		// the environment of a long-running job.
		return aws.ManagedStreamingIAM(func(context.Context) (aws.Auth, error) { return creds() }), nil
	case "":
		return nil, errors.New("SASL needs 'properties.sasl.mechanism'")
	default:
		return nil, fmt.Errorf("'properties.sasl.mechanism' = '%s' is not supported: want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM", sec.mechanism)
	}
}

// oauthMechanism gets tokens from the token endpoint with the client
// credentials grant, as Kafka's OAuthBearerLoginCallbackHandler does, and
// keeps each until shortly before it expires. With SASL_SSL the endpoint
// is reached with the same trusted CAs and client certificate as the
// brokers (Kafka uses its ssl.* settings for it too).
func oauthMechanism(sec *security, url string, opt map[string]string) sasl.Mechanism {
	cc := clientcredentials.Config{ClientID: opt["clientId"], ClientSecret: opt["clientSecret"], TokenURL: url}
	if s := opt["scope"]; s != "" {
		cc.Scopes = strings.Fields(strings.ReplaceAll(s, ",", " "))
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if sec.tls != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone() //nolint:forcetypeassert // the default transport is one
		tr.TLSClientConfig = sec.tls.Clone()
		hc.Transport = tr
	}
	ts := cc.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, hc))
	return oauth.Oauth(func(context.Context) (oauth.Auth, error) {
		tok, err := ts.Token()
		if err != nil {
			var re *oauth2.RetrieveError
			if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 {
				// The endpoint refused the credentials: retrying will not help.
				return oauth.Auth{}, &fatalError{fmt.Errorf("the token endpoint %s refused client %s (HTTP %d%s); check clientId and clientSecret in 'properties.sasl.jaas.config'",
					url, opt["clientId"], re.Response.StatusCode, oauthReason(re))}
			}
			return oauth.Auth{}, fmt.Errorf("getting a token from %s: %w", url, err)
		}
		return oauth.Auth{Token: tok.AccessToken}, nil
	})
}

// oauthReason is the OAuth error code of a refused token request.
func oauthReason(re *oauth2.RetrieveError) string {
	if re.ErrorCode == "" {
		return ""
	}
	s := ": " + re.ErrorCode
	if re.ErrorDescription != "" {
		s += ": " + re.ErrorDescription
	}
	return s
}

// connState is what a client's hooks saw of its connections, for classify.
type connState struct {
	// saslDropped: a broker closed the connection in the middle of SASL
	// authentication, which brokers do (instead of answering with an
	// error) when the credentials are wrong.
	saslDropped bool
	// connected: a connection was made, TLS and SASL included.
	connected bool
}

// tlsHandshakeTimeout bounds a TLS handshake. A listener without TLS
// reads the client's hello as the start of a Kafka request and waits for
// the rest, so a handshake that does not end is the sign of one.
var tlsHandshakeTimeout = 10 * time.Second

// handshakeTimeout is a TLS handshake that did not end in time.
type handshakeTimeout struct{ host string }

func (e *handshakeTimeout) Error() string {
	return fmt.Sprintf("no TLS handshake with %s within %s", e.host, tlsHandshakeTimeout)
}

// tlsDial connects over TLS with cfg, verifying the broker's host name as
// franz-go's own TLS dialer does (ServerName is the host dialed), and
// bounds the handshake by tlsHandshakeTimeout.
func tlsDial(cfg *tls.Config) func(ctx context.Context, network, host string) (net.Conn, error) {
	return func(ctx context.Context, network, host string) (net.Conn, error) {
		c := cfg.Clone()
		if c.ServerName == "" {
			if h, _, err := net.SplitHostPort(host); err == nil {
				c.ServerName = h
			}
		}
		raw, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, network, host)
		if err != nil {
			return nil, err
		}
		conn := tls.Client(raw, c)
		hctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
		defer cancel()
		if err := conn.HandshakeContext(hctx); err != nil {
			_ = raw.Close()
			if hctx.Err() != nil && ctx.Err() == nil {
				return nil, &handshakeTimeout{host: host}
			}
			return nil, err
		}
		return conn, nil
	}
}

// fatalError is an error retrying cannot mend: wrong credentials, a
// certificate that is not trusted, a mechanism the brokers do not take.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// classify turns a connection error into a fatalError that says what went
// wrong and which option to change, or returns nil for errors that may pass
// (a broker restarting, a network hiccup), which the client retries within
// the source's and the sink's bounds. A broker that closes connections at
// once is only taken for one refusing the client's TLS or SASL settings
// while no connection was made yet: later, it may be one restarting.
func (sec *security) classify(err error, st connState) error {
	if err == nil {
		return nil
	}
	var fe *fatalError
	if errors.As(err, &fe) {
		return fe
	}
	fatal := func(format string, args ...any) error {
		return &fatalError{fmt.Errorf(format, args...)}
	}
	who := "user " + sec.user
	if sec.user == "" {
		who = "the client"
	}
	var (
		unknownCA x509.UnknownAuthorityError
		badHost   x509.HostnameError
		badCert   x509.CertificateInvalidError
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
		opErr     *net.OpError
	)
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return fatal("SASL authentication of %s with %s failed: %v; check the user name and password in 'properties.sasl.jaas.config' and 'properties.sasl.mechanism'",
			who, sec.mechanism, err)
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fatal("the brokers do not accept SASL mechanism %s ('properties.sasl.mechanism'): %v", sec.mechanism, err)
	case errors.Is(err, kerr.IllegalSaslState):
		return fatal("the brokers refused the SASL exchange of %s: %v; is 'properties.sasl.mechanism' right?", sec.mechanism, err)
	case st.saslDropped && !st.connected && sec.sasl() && isEOF(err):
		return fatal("the broker closed the connection while authenticating %s with %s, as brokers do when the credentials are wrong "+
			"or the mechanism is not enabled for the user: check the user name and password in 'properties.sasl.jaas.config' and 'properties.sasl.mechanism'",
			who, sec.mechanism)
	case errors.As(err, &unknownCA):
		return fatal("the broker's TLS certificate is not signed by a trusted CA (%v): set 'properties.ssl.truststore.location' "+
			"(or 'properties.ssl.truststore.certificates') to the CA certificate that signed it", err)
	case errors.As(err, &badHost):
		return fatal("the broker's TLS certificate is not valid for the host connected to (%v): connect with a name the certificate was issued for "+
			"('properties.bootstrap.servers', and the brokers' advertised listeners)", err)
	case errors.As(err, &badCert):
		return fatal("the broker's TLS certificate is not valid: %v", err)
	case errors.As(err, &verify):
		return fatal("the broker's TLS certificate cannot be verified: %v; check 'properties.ssl.truststore.*'", err)
	case errors.As(err, &record):
		return fatal("the broker does not speak TLS (%v): 'properties.security.protocol' is %s; use %s for a listener without TLS",
			err, sec.protocol, strings.Replace(sec.protocol, "SSL", "PLAINTEXT", 1))
	case errors.As(err, &opErr) && opErr.Op == "remote error":
		return fatal("the broker refused the TLS handshake (%v): if it authenticates clients by certificate, set 'properties.ssl.keystore.location' "+
			"(or 'properties.ssl.keystore.certificate.chain' and 'properties.ssl.keystore.key') to a certificate its CA signed", err)
	}
	var hs *handshakeTimeout
	if errors.As(err, &hs) && !st.connected {
		return fatal("the broker %s did not answer the TLS handshake within %s, as listeners without TLS do not: "+
			"'properties.security.protocol' is %s; use %s for a listener without TLS", hs.host, tlsHandshakeTimeout,
			sec.protocol, strings.Replace(sec.protocol, "SSL", "PLAINTEXT", 1))
	}
	// franz-go guesses why a broker closed a new connection at once; its
	// guesses are told apart by their text.
	var first *kgo.ErrFirstReadEOF
	if errors.As(err, &first) && !st.connected {
		switch msg := first.Error(); {
		case sec.tls == nil && strings.Contains(msg, "TLS missing"):
			return fatal("the broker closed the connection at the first request, as TLS listeners do with clients that do not speak TLS: "+
				"'properties.security.protocol' is %s; use SSL (or SASL_SSL) and trust the brokers' CA ('properties.ssl.truststore.location')", sec.protocol)
		case sec.tls != nil && strings.Contains(msg, "using TLS when the broker is not"):
			return fatal("the broker closed the connection when the client started TLS, as listeners without TLS do: "+
				"'properties.security.protocol' is %s; use %s", sec.protocol, strings.Replace(sec.protocol, "SSL", "PLAINTEXT", 1))
		case !sec.sasl() && strings.Contains(msg, "SASL"):
			return fatal("the broker closed the connection at the first request, as brokers that require SASL do with clients that do not authenticate: " +
				"set 'properties.security.protocol' (SASL_SSL or SASL_PLAINTEXT), 'properties.sasl.mechanism' and 'properties.sasl.jaas.config'")
		}
	}
	return nil
}

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// aclAdvice adds to an error a broker's authorization error carries what
// the client was denied and what to change. role is "read" (a source) or
// "write" (a sink); topics and group name the resources. Other errors are
// returned as they are.
func (sec *security) aclAdvice(err error, role string, topics []string, group string) error {
	if err == nil {
		return nil
	}
	who := sec.principal()
	change := "grant the ACL to " + who + ", or use credentials that have it ('properties.sasl.jaas.config')"
	topic := strings.Join(topics, ", ")
	var need string
	switch {
	case errors.Is(err, kerr.TopicAuthorizationFailed):
		if role == "write" {
			need = fmt.Sprintf("the brokers do not let %s write topic %s: a sink needs Describe and Write on its topic", who, topic)
		} else {
			need = fmt.Sprintf("the brokers do not let %s read topic %s: a source needs Describe and Read on its topics", who, topic)
		}
	case errors.Is(err, kerr.GroupAuthorizationFailed):
		need = fmt.Sprintf("the brokers do not let %s use consumer group %s ('properties.group.id'): 'group-offsets' needs Describe on the group", who, group)
	case errors.Is(err, kerr.ClusterAuthorizationFailed):
		need = fmt.Sprintf("the brokers do not let %s produce idempotently: the idempotent producer needs IdempotentWrite on the cluster (or Write on a topic)", who)
		change = "grant it to " + who + ", or set 'properties.enable.idempotence' = 'false'"
	case errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
		need = fmt.Sprintf("the brokers do not let %s use its transactional id: transactions need Write on the transactional id ('sink.transactional-id-prefix')", who)
	default:
		return err
	}
	return &fatalError{fmt.Errorf("%w: %s; %s", err, need, change)}
}
