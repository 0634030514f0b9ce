package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/secret"
)

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// devSecurity is what --sasl, --tls and --acl ask of the development
// broker.
type devSecurity struct {
	users     []devUser
	acls      []devACL
	tls       *tls.Config
	clientCAs bool // client certificates are required
}

type devUser struct{ mech, name, pass string }

type devACL struct {
	user string
	acl  kfake.ACL
	text string // as given, for the banner
}

// parseDevSecurity reads the flags' values.
func parseDevSecurity(sasl, acls []string, tlsSpec string) (*devSecurity, error) {
	sec := &devSecurity{}
	for _, s := range sasl {
		u, err := parseDevUser(s)
		if err != nil {
			return nil, fmt.Errorf("--sasl %s: %w", shownUserSpec(s), err)
		}
		sec.users = append(sec.users, u)
	}
	for _, s := range acls {
		a, err := parseDevACL(s)
		if err != nil {
			return nil, fmt.Errorf("--acl %s: %w", s, err)
		}
		if !slices.ContainsFunc(sec.users, func(u devUser) bool { return u.name == a.user }) {
			return nil, fmt.Errorf("--acl %s: %s is not a user given with --sasl (ACLs name SASL users)", s, a.user)
		}
		sec.acls = append(sec.acls, a)
	}
	if tlsSpec != "" {
		cfg, clientCA, err := parseDevTLS(tlsSpec)
		if err != nil {
			return nil, fmt.Errorf("--tls %s: %w", tlsSpec, err)
		}
		sec.tls, sec.clientCAs = cfg, clientCA
	}
	return sec, nil
}

// shownUserSpec is a --sasl value without its password.
func shownUserSpec(s string) string {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) == 3 {
		parts[2] = secret.Show("password", parts[2])
	}
	return strings.Join(parts, ":")
}

// parseDevUser reads MECH:USER:PASS. PASS may be a reference, ${VAR} or
// ${file:/path}, so that it need not be on the command line.
func parseDevUser(s string) (devUser, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[1] == "" {
		return devUser{}, errors.New("want MECHANISM:USER:PASSWORD, e.g. scram-sha-256:alice:${ALICE_PASSWORD}")
	}
	mech := strings.ToUpper(parts[0])
	switch mech {
	case connectors.MechPlain, connectors.MechScram256, connectors.MechScram512:
	default:
		return devUser{}, fmt.Errorf("mechanism %q: the development broker speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", parts[0])
	}
	pass, errs := secret.Resolve(parts[2])
	if len(errs) > 0 {
		return devUser{}, errs[0]
	}
	if pass == "" {
		return devUser{}, errors.New("the password is empty")
	}
	return devUser{mech: mech, name: parts[1], pass: pass}, nil
}

var (
	devOps = map[string]kmsg.ACLOperation{
		"all": kmsg.ACLOperationAll, "read": kmsg.ACLOperationRead, "write": kmsg.ACLOperationWrite,
		"create": kmsg.ACLOperationCreate, "delete": kmsg.ACLOperationDelete, "alter": kmsg.ACLOperationAlter,
		"describe": kmsg.ACLOperationDescribe, "describe-configs": kmsg.ACLOperationDescribeConfigs,
		"alter-configs": kmsg.ACLOperationAlterConfigs, "idempotent-write": kmsg.ACLOperationIdempotentWrite,
		"cluster-action": kmsg.ACLOperationClusterAction,
	}
	devResources = map[string]kmsg.ACLResourceType{
		"topic": kmsg.ACLResourceTypeTopic, "group": kmsg.ACLResourceTypeGroup,
		"cluster": kmsg.ACLResourceTypeCluster, "transactional-id": kmsg.ACLResourceTypeTransactionalId,
	}
)

// parseDevACL reads USER:OPERATION:RESOURCE:NAME[:deny]. NAME is a literal
// name, * for every name, or a prefix ending in *.
func parseDevACL(s string) (devACL, error) {
	parts := strings.Split(s, ":")
	allow := true
	if len(parts) == 5 && parts[4] == "deny" {
		allow = false
		parts = parts[:4]
	}
	if len(parts) != 4 || parts[0] == "" || parts[3] == "" {
		return devACL{}, errors.New("want USER:OPERATION:RESOURCE:NAME[:deny], e.g. alice:read:topic:orders")
	}
	op, ok := devOps[strings.ToLower(parts[1])]
	if !ok {
		return devACL{}, fmt.Errorf("operation %q: want one of %s", parts[1], strings.Join(sortedMapKeys(devOps), ", "))
	}
	res, ok := devResources[strings.ToLower(parts[2])]
	if !ok {
		return devACL{}, fmt.Errorf("resource %q: want one of %s", parts[2], strings.Join(sortedMapKeys(devResources), ", "))
	}
	a := kfake.ACL{Resource: res, Name: parts[3], Pattern: kmsg.ACLResourcePatternTypeLiteral, Operation: op, Allow: allow}
	switch {
	case res == kmsg.ACLResourceTypeCluster:
		a.Name = "kafka-cluster"
	case len(a.Name) > 1 && strings.HasSuffix(a.Name, "*"):
		a.Name, a.Pattern = strings.TrimSuffix(a.Name, "*"), kmsg.ACLResourcePatternTypePrefixed
	}
	return devACL{user: parts[0], acl: a, text: s}, nil
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// parseDevTLS reads CERT,KEY[,CLIENT_CA]: the broker's certificate chain and
// key (PEM files), and, to require client certificates, the CA that signs
// them.
func parseDevTLS(spec string) (*tls.Config, bool, error) {
	parts := strings.Split(spec, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, false, errors.New("want CERT.pem,KEY.pem[,CLIENT-CA.pem]")
	}
	cert, err := tls.LoadX509KeyPair(parts[0], parts[1])
	if err != nil {
		return nil, false, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if len(parts) == 3 {
		data, err := os.ReadFile(parts[2])
		if err != nil {
			return nil, false, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(data) {
			return nil, false, fmt.Errorf("%s holds no PEM certificate", parts[2])
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, len(parts) == 3, nil
}

// options are the kfake options for sec.
func (sec *devSecurity) options() []kfake.Opt {
	var opts []kfake.Opt
	if sec.tls != nil {
		opts = append(opts, kfake.TLS(sec.tls))
	}
	if len(sec.users) > 0 {
		opts = append(opts, kfake.EnableSASL())
	}
	if len(sec.acls) > 0 {
		opts = append(opts, kfake.EnableACLs())
	}
	for _, u := range sec.users {
		var acls []kfake.ACL
		for _, a := range sec.acls {
			if a.user == u.name {
				acls = append(acls, a.acl)
			}
		}
		opts = append(opts, kfake.User(u.mech, u.name, u.pass, acls...))
	}
	return opts
}

// describe says how to connect, without a password.
func (sec *devSecurity) describe() []string {
	var out []string
	proto := "PLAINTEXT"
	switch {
	case sec.tls != nil && len(sec.users) > 0:
		proto = "SASL_SSL"
	case sec.tls != nil:
		proto = "SSL"
	case len(sec.users) > 0:
		proto = "SASL_PLAINTEXT"
	}
	if proto != "PLAINTEXT" {
		out = append(out, fmt.Sprintf("security: 'properties.security.protocol' = '%s'", proto))
	}
	if sec.tls != nil {
		s := "  TLS: clients need the CA that signed the certificate ('properties.ssl.truststore.location')"
		if sec.clientCAs {
			s += "; client certificates are required ('properties.ssl.keystore.location')"
		}
		out = append(out, s)
	}
	for _, u := range sec.users {
		out = append(out, fmt.Sprintf("  SASL user %s: %s", u.name, u.mech))
	}
	if len(sec.acls) > 0 {
		out = append(out, "  ACLs on: each user may do only what an --acl allows")
		for _, a := range sec.acls {
			out = append(out, "    "+a.text)
		}
	}
	return out
}

// olderSASLClients makes the broker advertise SaslHandshake from version 0,
// as Kafka did before 4.0. kfake, like Kafka 4.0 (KIP-896), advertises it
// from version 1 only, and librdkafka before 2.10 (kcat's, in Debian 12)
// then refuses to authenticate at all ("SASL Handshake not supported by
// broker"), although it would use version 1. The answer to ApiVersions is
// taken once from the broker itself, through a client of the first SASL
// user, and given back with that one change.
func (sec *devSecurity) olderSASLClients(cl *kfake.Cluster) error {
	if len(sec.users) == 0 {
		return nil
	}
	u := sec.users[0]
	var m sasl.Mechanism
	switch u.mech {
	case connectors.MechPlain:
		m = plain.Auth{User: u.name, Pass: u.pass}.AsMechanism()
	case connectors.MechScram256:
		m = scram.Auth{User: u.name, Pass: u.pass}.AsSha256Mechanism()
	default:
		m = scram.Auth{User: u.name, Pass: u.pass}.AsSha512Mechanism()
	}
	opts := []kgo.Opt{kgo.SeedBrokers(cl.ListenAddrs()...), kgo.SASL(m)}
	if sec.tls != nil {
		// The broker's own certificate, trusted as is: this client only
		// talks to the broker it is part of.
		opts = append(opts, kgo.DialTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true, //nolint:gosec // see above
			Certificates: sec.tls.Certificates}))
	}
	c, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	req.ClientSoftwareName, req.ClientSoftwareVersion = "streamsql", "dev"
	resp, err := req.RequestWith(ctx, c)
	if err != nil {
		return fmt.Errorf("asking the broker for its API versions: %w", err)
	}
	for i := range resp.ApiKeys {
		if resp.ApiKeys[i].ApiKey == int16(kmsg.SASLHandshake) {
			resp.ApiKeys[i].MinVersion = 0
		}
	}
	cl.ControlKey(int16(kmsg.ApiVersions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		cl.KeepControl()
		r := kreq.(*kmsg.ApiVersionsRequest) //nolint:forcetypeassert // ControlKey(ApiVersions) gets only these
		if r.Version > 3 {
			return nil, nil, false // kfake answers what it does not know to be the same
		}
		out := *resp
		out.ApiKeys = slices.Clone(resp.ApiKeys)
		out.Version = r.Version
		return &out, nil, true
	})
	return nil
}
