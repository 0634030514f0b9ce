package kafka

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/internal/plantest"
)

// Secured brokers: TLS with a CA made in the test, SASL users, ACLs. The
// jobs are planned and run as `streamsql run` does; what they write is read
// back with franz-go clients configured independently of the job's
// options.

// testPassword is the password of every SASL user here; no error may
// contain it.
const testPassword = "pw-Zq8!never-printed"

// secureCluster starts a broker with TLS (clientAuth: client certificates
// required) and, for each user, SASL with its mechanism and ACLs.
func secureCluster(t *testing.T, certs *conntest.Certs, clientAuth bool, topics []string, opts ...kfake.Opt) (*kfake.Cluster, string) {
	t.Helper()
	all := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, topics...)}
	if certs != nil {
		all = append(all, kfake.TLS(certs.ServerTLS(t, clientAuth)))
	}
	c, err := kfake.NewCluster(append(all, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()[0]
}

// admin is a client of the test itself, with its own TLS and SASL
// settings.
func admin(t *testing.T, addr string, tlsCfg *tls.Config, m sasl.Mechanism, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	o := append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)
	if tlsCfg != nil {
		o = append(o, kgo.DialTLSConfig(tlsCfg))
	}
	if m != nil {
		o = append(o, kgo.SASL(m))
	}
	cl, err := kgo.NewClient(o...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func produceWith(t *testing.T, cl *kgo.Client, topic string, values ...string) {
	t.Helper()
	var rs []*kgo.Record
	for _, v := range values {
		rs = append(rs, &kgo.Record{Topic: topic, Value: []byte(v)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// consumeN reads n records of topic from the start.
func consumeN(t *testing.T, addr string, tlsCfg *tls.Config, m sasl.Mechanism, topic string, n int) []string {
	t.Helper()
	cl := admin(t, addr, tlsCfg, m, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of %d records of %s: %v", len(out), n, topic, err)
		}
		fs.EachRecord(func(r *kgo.Record) { out = append(out, string(r.Value)) })
	}
	return out
}

// runErr plans sql and runs it to its end, returning what Run returned.
// The context is only a safety net: a job that hits it hung, and fails the
// test.
func runErr(t *testing.T, sql string) error {
	t.Helper()
	plans, settings := plan(t, sql)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings})
	if err == nil {
		err = job.Run(ctx)
	}
	if ctx.Err() != nil {
		t.Fatalf("the job hung until the test's safety net stopped it: %v", err)
	}
	return err
}

// copyJob reads topic 'in' (bounded) and writes its rows, names upper-cased,
// to 'out', both with the given security options.
func copyJob(addr, security string) string {
	return fmt.Sprintf(`
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'in',
  'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', %[2]s);
CREATE TABLE dst (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'out',
  'properties.bootstrap.servers' = '%[1]s', 'format' = 'json', %[2]s);
INSERT INTO dst SELECT id, UPPER(name) FROM src;
`, addr, security)
}

// readJob reads topic 'in' (bounded) into a blackhole, with the given
// security options: a job with one Kafka client, the source's.
func readJob(addr, security string) string {
	return fmt.Sprintf(`
CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = '%s',
  'format' = 'json', 'scan.bounded.mode' = 'latest-offset', %s);
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id FROM src;`, addr, security)
}

// writeJob writes three rows to topic 'out', with the given security
// options: a job with one Kafka client, the sink's.
func writeJob(addr, security string) string {
	return fmt.Sprintf(`
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE dst (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '%s',
  'format' = 'json', %s);
INSERT INTO dst SELECT id FROM gen;`, addr, security)
}

func jaasFor(mech, user string) string {
	module := "org.apache.kafka.common.security.scram.ScramLoginModule"
	if mech == "PLAIN" {
		module = "org.apache.kafka.common.security.plain.PlainLoginModule"
	}
	return fmt.Sprintf(`'properties.sasl.mechanism' = '%s',
  'properties.sasl.jaas.config' = '%s required username="%s" password="${KAFKA_TEST_PASSWORD}";'`, mech, module, user)
}

func mechanism(mech, user, pass string) sasl.Mechanism {
	switch mech {
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism()
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()
	default:
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()
	}
}

// noSecret fails the test when err shows the password.
func noSecret(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testPassword) {
		t.Errorf("the error shows the password: %v", err)
	}
}

// TestSASLOverTLS: with each mechanism, over TLS with a private CA and the
// password from an environment variable, a job reads a topic and writes
// another; what it wrote is what an independent client reads back.
func TestSASLOverTLS(t *testing.T) {
	certs := conntest.NewCerts(t)
	t.Setenv("KAFKA_TEST_PASSWORD", testPassword)
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		t.Run(mech, func(t *testing.T) {
			_, addr := secureCluster(t, certs, false, []string{"in", "out"},
				kfake.EnableSASL(), kfake.Superuser(mech, "alice", testPassword))
			m := mechanism(mech, "alice", testPassword)
			var in, want []string
			for i := range 25 {
				name := fmt.Sprintf("n%02d", i)
				in = append(in, fmt.Sprintf(`{"id": %d, "name": "%s"}`, i, name))
				want = append(want, fmt.Sprintf(`{"id":%d,"name":"%s"}`, i, strings.ToUpper(name)))
			}
			produceWith(t, admin(t, addr, certs.ClientTLS(), m), "in", in...)
			security := fmt.Sprintf(`'properties.security.protocol' = 'SASL_SSL', %s,
  'properties.ssl.truststore.location' = '%s'`, jaasFor(mech, "alice"), certs.CA)
			if err := runErr(t, copyJob(addr, security)); err != nil {
				t.Fatal(err)
			}
			got := consumeN(t, addr, certs.ClientTLS(), m, "out", len(want))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("out holds\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// TestClientCertificate: a broker that requires client certificates takes
// a job that presents one (a PEM file with key and chain, or the two
// inline), and refuses one that does not, which fails at start saying so.
func TestClientCertificate(t *testing.T) {
	certs := conntest.NewCerts(t)
	_, addr := secureCluster(t, certs, true, []string{"in", "out"})
	cli := certs.ClientTLS()
	pair, err := tls.LoadX509KeyPair(certs.Client, certs.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	cli.Certificates = []tls.Certificate{pair}
	produceWith(t, admin(t, addr, cli, nil), "in", `{"id": 1, "name": "a"}`, `{"id": 2, "name": "b"}`)

	t.Setenv("CLIENT_KEY_PEM", certs.ClientKeyPEM)
	base := fmt.Sprintf(`'properties.security.protocol' = 'SSL', 'properties.ssl.truststore.type' = 'PEM',
  'properties.ssl.truststore.certificates' = '%s'`, certs.CAPEM)
	for _, c := range []struct{ name, keystore string }{
		{"file", fmt.Sprintf(`'properties.ssl.keystore.type' = 'PEM', 'properties.ssl.keystore.location' = '%s'`, certs.ClientBundle)},
		{"inline", fmt.Sprintf(`'properties.ssl.keystore.certificate.chain' = '%s',
  'properties.ssl.keystore.key' = '${CLIENT_KEY_PEM}'`, strings.ReplaceAll(certs.ClientPEM, "\n", " "))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := runErr(t, copyJob(addr, base+", "+c.keystore)); err != nil {
				t.Fatal(err)
			}
		})
	}
	if got := consumeN(t, addr, cli, nil, "out", 4); len(got) != 4 || got[0] != `{"id":1,"name":"A"}` {
		t.Errorf("out holds %v", got)
	}

	err = runErr(t, copyJob(addr, base))
	if err == nil || !strings.Contains(err.Error(), "refused the TLS handshake") ||
		!strings.Contains(err.Error(), "properties.ssl.keystore.location") {
		t.Errorf("without a client certificate: %v", err)
	}
}

// TestTLSFailures: a certificate the job does not trust, and one that does
// not name the host connected to, fail the job at start (the source at
// Open, the sink at Open) with what to change; turning host name checks off
// (” endpoint identification) lets the second through, and still checks
// the chain.
func TestTLSFailures(t *testing.T) {
	certs := conntest.NewCerts(t)
	_, addr := secureCluster(t, certs, false, []string{"in", "out"})
	produceWith(t, admin(t, addr, certs.ClientTLS(), nil), "in", `{"id": 1}`)
	elsewhere := conntest.NewCerts(t, "broker.example") // not 127.0.0.1
	_, addrElsewhere := secureCluster(t, elsewhere, false, []string{"in", "out"})
	produceWith(t, admin(t, addrElsewhere, &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: elsewhere.ClientTLS().RootCAs,
		ServerName: "broker.example"}, nil), "in", `{"id": 1}`)

	for _, c := range []struct{ name, addr, opts, want, option string }{
		{"system CAs", addr, `'properties.security.protocol' = 'SSL'`, "not signed by a trusted CA", "properties.ssl.truststore.location"},
		{"another CA", addr, fmt.Sprintf(`'properties.security.protocol' = 'SSL', 'properties.ssl.truststore.location' = '%s'`, certs.Other),
			"not signed by a trusted CA", "properties.ssl.truststore.location"},
		{"host name", addrElsewhere, fmt.Sprintf(`'properties.security.protocol' = 'SSL', 'properties.ssl.truststore.location' = '%s'`, elsewhere.CA),
			"not valid for the host connected to", "properties.bootstrap.servers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, job := range []struct{ sql, table string }{{readJob(c.addr, c.opts), "table src"}, {writeJob(c.addr, c.opts), "table dst"}} {
				err := runErr(t, job.sql)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.option) ||
					!strings.Contains(err.Error(), job.table) {
					t.Errorf("got %v, want an error at start naming the %s, saying %q and naming '%s'", err, job.table, c.want, c.option)
				}
			}
		})
	}
	// A listener without TLS and a client with it, and the other way
	// round: both fail at start saying which protocol to use.
	_, plainAddr := secureCluster(t, nil, false, []string{"in", "out"})
	defer func(d time.Duration) { tlsHandshakeTimeout = d }(tlsHandshakeTimeout)
	tlsHandshakeTimeout = 500 * time.Millisecond
	for _, c := range []struct{ name, addr, proto, want string }{
		{"TLS to plain", plainAddr, "SSL", "did not answer the TLS handshake"},
		{"plain to TLS", addr, "PLAINTEXT", "use SSL (or SASL_SSL)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := fmt.Sprintf(`'properties.security.protocol' = '%s'`, c.proto)
			for _, job := range []struct{ sql, table string }{{readJob(c.addr, opts), "table src"}, {writeJob(c.addr, opts), "table dst"}} {
				err := runErr(t, job.sql)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), job.table) ||
					!strings.Contains(err.Error(), "'properties.security.protocol'") {
					t.Errorf("got %v, want an error at start naming the %s and saying %q", err, job.table, c.want)
				}
			}
		})
	}
	// Files are read when the job starts, not when it is checked (check
	// makes sources and sinks without opening them).
	t.Run("missing truststore file", func(t *testing.T) {
		opts := `'properties.security.protocol' = 'SSL', 'properties.ssl.truststore.location' = '/nonexistent/ca.pem'`
		if _, err := NewSource(conntest.SourceSpec(t, `CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in',
  'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json', `+opts+`)`, "")); err != nil {
			t.Errorf("making the source reads the truststore: %v", err)
		}
		for _, job := range []string{readJob(addr, opts), writeJob(addr, opts)} {
			if err := runErr(t, job); err == nil || !strings.Contains(err.Error(), "'properties.ssl.truststore.location'") ||
				!strings.Contains(err.Error(), "no such file") {
				t.Errorf("got %v", err)
			}
		}
	})
	t.Run("no host name check", func(t *testing.T) {
		opts := fmt.Sprintf(`'properties.security.protocol' = 'SSL', 'properties.ssl.truststore.location' = '%s',
  'properties.ssl.endpoint.identification.algorithm' = ''`, elsewhere.CA)
		if err := runErr(t, copyJob(addrElsewhere, opts)); err != nil {
			t.Fatal(err)
		}
		// The chain is still checked.
		opts = strings.Replace(opts, elsewhere.CA, elsewhere.Other, 1)
		if err := runErr(t, readJob(addrElsewhere, opts)); err == nil || !strings.Contains(err.Error(), "not signed by a trusted CA") {
			t.Errorf("another CA without host name checks: %v", err)
		}
	})
}

// TestSASLFailures: wrong passwords, a mechanism the broker does not take,
// and no SASL at all fail the job at start with what to change, and never
// show the password.
func TestSASLFailures(t *testing.T) {
	certs := conntest.NewCerts(t)
	c, addr := secureCluster(t, certs, false, []string{"in", "out"},
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "alice", "the-right-one"))
	t.Setenv("KAFKA_TEST_PASSWORD", testPassword)
	tlsOpts := fmt.Sprintf(`'properties.ssl.truststore.location' = '%s'`, certs.CA)
	wrong := fmt.Sprintf(`'properties.security.protocol' = 'SASL_SSL', %s, %s`, jaasFor("SCRAM-SHA-256", "alice"), tlsOpts)
	for _, c := range []struct{ name, sql, table string }{
		{"source", readJob(addr, wrong), "table src"},
		{"sink", writeJob(addr, wrong), "table dst"},
	} {
		t.Run("wrong password "+c.name, func(t *testing.T) {
			err := runErr(t, c.sql)
			if err == nil || !strings.Contains(err.Error(), c.table) || !strings.Contains(err.Error(), "user alice with SCRAM-SHA-256") ||
				!strings.Contains(err.Error(), "properties.sasl.jaas.config") {
				t.Errorf("got %v", err)
			}
			noSecret(t, err)
		})
	}
	t.Run("user of another mechanism", func(t *testing.T) {
		opts := fmt.Sprintf(`'properties.security.protocol' = 'SASL_SSL', %s, %s`, jaasFor("SCRAM-SHA-512", "alice"), tlsOpts)
		err := runErr(t, copyJob(addr, opts))
		if err == nil || !strings.Contains(err.Error(), "properties.sasl.mechanism") {
			t.Errorf("got %v", err)
		}
		noSecret(t, err)
	})
	t.Run("no SASL", func(t *testing.T) {
		err := runErr(t, copyJob(addr, `'properties.security.protocol' = 'SSL', `+tlsOpts))
		if err == nil || !strings.Contains(err.Error(), "require SASL") || !strings.Contains(err.Error(), "properties.sasl.mechanism") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("unknown mechanism", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
		t.Setenv("AWS_SECRET_ACCESS_KEY", testPassword)
		err := runErr(t, copyJob(addr, `'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'AWS_MSK_IAM', `+tlsOpts))
		if err == nil || !strings.Contains(err.Error(), "do not accept SASL mechanism AWS_MSK_IAM") {
			t.Errorf("got %v", err)
		}
		noSecret(t, err)
	})
	t.Run("MSK IAM without credentials", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		err := runErr(t, readJob(addr, `'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'AWS_MSK_IAM', `+tlsOpts))
		if err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") || !strings.Contains(err.Error(), "table src") {
			t.Errorf("got %v", err)
		}
	})
	// A real broker answers wrong credentials with SASL_AUTHENTICATION_FAILED
	// and its reason (kfake closes the connection instead): the job says so,
	// with the broker's words.
	t.Run("broker's reason", func(t *testing.T) {
		c.ControlKey(int16(kmsg.SASLAuthenticate), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			resp := kreq.ResponseKind().(*kmsg.SASLAuthenticateResponse)
			resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
			resp.ErrorMessage = kmsg.StringPtr("Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256")
			return resp, nil, true
		})
		defer c.DropControl()
		for _, sql := range []string{readJob(addr, wrong), writeJob(addr, wrong)} {
			err := runErr(t, sql)
			if err == nil || !strings.Contains(err.Error(), "due to invalid credentials") || !strings.Contains(err.Error(), "properties.sasl.jaas.config") {
				t.Errorf("got %v", err)
			}
			noSecret(t, err)
		}
	})
}

// TestOAuthBearer: the client credentials are exchanged for a token at the
// token endpoint (over TLS, trusting the job's CA), and the token is what
// the client authenticates with. kfake does not take OAUTHBEARER, so the
// broker here takes the handshake, records what the client sends, and
// answers as a real broker does when it rejects a token; a broker without
// OAUTHBEARER fails the job saying it does not accept the mechanism; an
// endpoint that refuses the credentials fails the job with its reason.
func TestOAuthBearer(t *testing.T) {
	certs := conntest.NewCerts(t)
	c, addr := secureCluster(t, certs, false, []string{"in", "out"}, kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "x"))
	var calls atomic.Int32
	var gotID, gotSecret, gotGrant, gotScope atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		// RFC 6749 2.3.1: the credentials, form-encoded, in Basic
		// authentication or in the body.
		id, sec, basic := r.BasicAuth()
		_ = r.ParseForm()
		if basic {
			id, _ = url.QueryUnescape(id)
			sec, _ = url.QueryUnescape(sec)
		} else {
			id, sec = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		gotID.Store(id)
		gotSecret.Store(sec)
		gotGrant.Store(r.PostForm.Get("grant_type"))
		gotScope.Store(r.PostForm.Get("scope"))
		w.Header().Set("Content-Type", "application/json")
		if sec != testPassword {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error": "invalid_client", "error_description": "bad secret"}`)
			return
		}
		fmt.Fprint(w, `{"access_token": "tok-123", "token_type": "bearer", "expires_in": 3600}`)
	}))
	srv.TLS = certs.ServerTLS(t, false)
	srv.StartTLS()
	defer srv.Close()

	oauthJob := func(secretVar string) string {
		return readJob(addr, fmt.Sprintf(`'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'OAUTHBEARER',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="streamsql" clientSecret="${%s}" scope="kafka";',
  'properties.sasl.oauthbearer.token.endpoint.url' = '%s/token',
  'properties.sasl.login.callback.handler.class' = 'org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler',
  'properties.ssl.truststore.location' = '%s'`, secretVar, srv.URL, certs.CA))
	}
	t.Setenv("OAUTH_SECRET", testPassword)
	err := runErr(t, oauthJob("OAUTH_SECRET"))
	if err == nil || !strings.Contains(err.Error(), "do not accept SASL mechanism OAUTHBEARER") {
		t.Errorf("a broker without OAUTHBEARER: %v", err)
	}

	var sent atomic.Value
	c.ControlKey(int16(kmsg.SASLHandshake), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := kreq.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.SupportedMechanisms = []string{"OAUTHBEARER"}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		sent.Store(string(kreq.(*kmsg.SASLAuthenticateRequest).SASLAuthBytes))
		resp := kreq.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		resp.ErrorMessage = kmsg.StringPtr("invalid_token: the token is not for this cluster")
		return resp, nil, true
	})
	err = runErr(t, oauthJob("OAUTH_SECRET"))
	if err == nil || !strings.Contains(err.Error(), "invalid_token: the token is not for this cluster") ||
		!strings.Contains(err.Error(), "OAUTHBEARER") {
		t.Errorf("a broker that rejects the token: %v", err)
	}
	noSecret(t, err)
	if s, _ := sent.Load().(string); !strings.Contains(s, "auth=Bearer tok-123") {
		t.Errorf("the client sent %q, not the token", s)
	}
	if calls.Load() == 0 || gotID.Load() != "streamsql" || gotSecret.Load() != testPassword ||
		gotGrant.Load() != "client_credentials" || gotScope.Load() != "kafka" {
		t.Errorf("token endpoint: %d calls, client %v, grant %v, scope %v", calls.Load(), gotID.Load(), gotGrant.Load(), gotScope.Load())
	}

	t.Setenv("OAUTH_WRONG", "not-it")
	err = runErr(t, oauthJob("OAUTH_WRONG"))
	if err == nil || !strings.Contains(err.Error(), "refused client streamsql (HTTP 401: invalid_client") ||
		!strings.Contains(err.Error(), "clientSecret") {
		t.Errorf("got %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "not-it") {
		t.Errorf("the error shows the client secret: %v", err)
	}
}

// TestACLDenied: a principal denied each kind of access fails the job at
// start or at the first record, with the broker's error, what is needed,
// and what to change: reading a topic, writing a topic, the consumer group
// of 'group-offsets', and the producer id the idempotent producer needs.
func TestACLDenied(t *testing.T) {
	topic := func(name string, op kmsg.ACLOperation) kfake.ACL {
		return kfake.ACL{Resource: kmsg.ACLResourceTypeTopic, Name: name, Pattern: kmsg.ACLResourcePatternTypeLiteral, Operation: op, Allow: true}
	}
	group := kfake.ACL{Resource: kmsg.ACLResourceTypeGroup, Name: "jobs", Pattern: kmsg.ACLResourcePatternTypeLiteral,
		Operation: kmsg.ACLOperationRead, Allow: true}
	_, addr := secureCluster(t, nil, false, []string{"in", "out"},
		kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("SCRAM-SHA-256", "admin", testPassword),
		// reader: may describe 'in' but not read it.
		kfake.User("SCRAM-SHA-256", "reader", testPassword, topic("in", kmsg.ACLOperationDescribe)),
		// grouper: may read 'in' but not use its group.
		kfake.User("SCRAM-SHA-256", "grouper", testPassword, topic("in", kmsg.ACLOperationRead)),
		// writer: may write 'other' (so it gets a producer id) and only describe 'out'.
		kfake.User("SCRAM-SHA-256", "writer", testPassword, topic("other", kmsg.ACLOperationWrite), topic("out", kmsg.ACLOperationDescribe)),
		// idem: may describe 'out', write nothing: no producer id.
		kfake.User("SCRAM-SHA-256", "idem", testPassword, topic("out", kmsg.ACLOperationDescribe)),
		// hidden: may not even describe 'out'.
		kfake.User("SCRAM-SHA-256", "hidden", testPassword, group),
	)
	produceWith(t, admin(t, addr, nil, mechanism("SCRAM-SHA-256", "admin", testPassword)), "in", `{"id": 1, "name": "a"}`)
	t.Setenv("KAFKA_TEST_PASSWORD", testPassword)
	sasl := func(user string) string {
		return `'properties.security.protocol' = 'SASL_PLAINTEXT', ` + jaasFor("SCRAM-SHA-256", user)
	}
	reader := func(user, startup string) string {
		return readJob(addr, sasl(user)+", "+startup)
	}
	writer := func(user string) string { return writeJob(addr, sasl(user)) }
	for _, c := range []struct {
		name, sql string
		code      error
		want      []string
	}{
		{"read", reader("reader", "'scan.startup.mode' = 'earliest-offset'"), kerr.TopicAuthorizationFailed,
			[]string{"table src", "do not let User:reader read topic in", "Describe and Read", "properties.sasl.jaas.config"}},
		{"group", reader("grouper", `'scan.startup.mode' = 'group-offsets', 'properties.group.id' = 'jobs',
  'properties.auto.offset.reset' = 'earliest'`), kerr.GroupAuthorizationFailed,
			[]string{"table src", "User:grouper use consumer group jobs", "'properties.group.id'"}},
		{"write", writer("writer"), kerr.TopicAuthorizationFailed,
			[]string{"table dst", "do not let User:writer write topic out", "Describe and Write"}},
		{"describe", writer("hidden"), kerr.TopicAuthorizationFailed,
			[]string{"table dst", "do not let User:hidden write topic out"}},
		{"producer id", writer("idem"), kerr.ClusterAuthorizationFailed,
			[]string{"table dst", "IdempotentWrite", "'properties.enable.idempotence' = 'false'"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := runErr(t, c.sql)
			var ke *kerr.Error
			if !errors.As(c.code, &ke) || err == nil || !strings.Contains(err.Error(), ke.Message) {
				t.Fatalf("got %v, want %v", err, c.code)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			noSecret(t, err)
		})
	}
}
