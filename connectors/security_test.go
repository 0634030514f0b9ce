package connectors

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/diag"
)

// The secret every case uses; no diagnostic may contain it.
const pw = "s3cr3t-Xy!"

func kafkaWith(kv ...string) []string {
	return append([]string{"connector", "kafka", "topic", "t", "properties.bootstrap.servers", "localhost:9092", "format", "json"}, kv...)
}

func scramJAAS(pass string) string {
	return `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + pass + `";`
}

// testPEM returns a self-signed certificate and its key, in PEM.
func testPEM(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "x"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))
}

// validate checks a clause and returns its diagnostics rendered, failing
// the test if any shows pw.
func validate(t *testing.T, kv []string) (*Config, []string, *diag.List) {
	t.Helper()
	c := with(kv...)
	var l diag.List
	cfg, _ := Validate(c.opts, c.with, &l)
	var got []string
	for _, d := range l.Items {
		r := c.render(d)
		got = append(got, r)
		all := d.Msg + strings.Join(d.Hints, " ")
		for _, n := range d.Notes {
			all += n.Msg
		}
		if strings.Contains(all, pw) {
			t.Errorf("a diagnostic shows the secret: %s %v", r, d.Hints)
		}
	}
	return cfg, got, &l
}

func TestSecurityValid(t *testing.T) {
	cert, key := testPEM(t)
	t.Setenv("KAFKA_PASSWORD", pw)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		kv   []string
	}{
		{"SCRAM over TLS, password from the environment", kafkaWith("properties.security.protocol", "sasl_ssl",
			"properties.sasl.mechanism", "scram-sha-512", "properties.sasl.jaas.config", scramJAAS("${KAFKA_PASSWORD}"),
			"properties.ssl.truststore.location", "/etc/ca.pem")},
		{"PLAIN, Flink's shaded class, single quotes", kafkaWith("properties.security.protocol", "SASL_SSL",
			"properties.sasl.mechanism", "PLAIN", "properties.sasl.jaas.config",
			`org.apache.flink.kafka.shaded.org.apache.kafka.common.security.plain.PlainLoginModule required username='k' password='${KAFKA_PASSWORD}';`)},
		{"OAUTHBEARER", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "OAUTHBEARER",
			"properties.sasl.jaas.config", `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="c" clientSecret="x";`,
			"properties.sasl.oauthbearer.token.endpoint.url", "https://login.example.com/token",
			"properties.sasl.login.callback.handler.class", "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler")},
		{"MSK IAM", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "AWS_MSK_IAM",
			"properties.sasl.jaas.config", "software.amazon.msk.auth.iam.IAMLoginModule required;",
			"properties.sasl.client.callback.handler.class", "software.amazon.msk.auth.iam.IAMClientCallbackHandler")},
		{"inline PEM on one line, key from a file", kafkaWith("properties.security.protocol", "SSL",
			"properties.ssl.truststore.type", "PEM", "properties.ssl.truststore.certificates", strings.ReplaceAll(cert, "\n", " "),
			"properties.ssl.keystore.certificate.chain", cert, "properties.ssl.keystore.key", "${file:"+keyFile+"}")},
		{"keystore file", []string{"connector", "upsert-kafka", "topic", "t", "properties.bootstrap.servers", "localhost:9092",
			"key.format", "json", "value.format", "json", "properties.security.protocol", "SSL",
			"properties.ssl.keystore.type", "pem", "properties.ssl.keystore.location", "/etc/client.pem"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, got, _ := validate(t, tt.kv)
			if len(got) > 0 {
				t.Fatalf("diagnostics: %v", got)
			}
			if strings.Contains(strings.Join(tt.kv, " "), "${KAFKA_PASSWORD}") && !strings.Contains(cfg.Get("properties.sasl.jaas.config"), pw) {
				t.Errorf("the reference was not resolved: the config holds %q", cfg.Get("properties.sasl.jaas.config"))
			}
		})
	}
	// The key file's contents, less the newline, are the value.
	cfg, _, _ := validate(t, kafkaWith("properties.security.protocol", "SSL", "properties.ssl.keystore.certificate.chain", cert,
		"properties.ssl.keystore.key", "${file:"+keyFile+"}"))
	if cfg.Get("properties.ssl.keystore.key") != key[:len(key)-1] && cfg.Get("properties.ssl.keystore.key") != key {
		t.Errorf("key read from the file: %q", cfg.Get("properties.ssl.keystore.key"))
	}
}

func TestSecurityErrors(t *testing.T) {
	t.Setenv("KAFKA_PASSWORD", pw)
	os.Unsetenv("STREAMSQL_TEST_UNSET")
	for _, tt := range []struct {
		name string
		kv   []string
		want []string
	}{
		{"SASL without a mechanism", kafkaWith("properties.security.protocol", "SASL_SSL"),
			[]string{"SQL203 error WITH: 'properties.security.protocol' = 'SASL_SSL' needs option 'properties.sasl.mechanism'"}},
		{"mechanism without SASL", kafkaWith("properties.sasl.mechanism", "PLAIN", "properties.sasl.jaas.config", scramJAAS(pw)),
			[]string{
				"SQL205 error 'properties.sasl.mechanism': option 'properties.sasl.mechanism' has no effect: 'properties.security.protocol' = 'PLAINTEXT' (the default), without SASL",
				"SQL205 error 'properties.sasl.jaas.config': option 'properties.sasl.jaas.config' has no effect: 'properties.security.protocol' = 'PLAINTEXT' (the default), without SASL",
			}},
		{"TLS options without TLS", kafkaWith("properties.security.protocol", "SASL_PLAINTEXT", "properties.sasl.mechanism", "SCRAM-SHA-256",
			"properties.sasl.jaas.config", scramJAAS(pw), "properties.ssl.truststore.location", "/ca.pem"),
			[]string{"SQL205 error 'properties.ssl.truststore.location': option 'properties.ssl.truststore.location' has no effect: 'properties.security.protocol' = 'SASL_PLAINTEXT', without TLS"}},
		{"GSSAPI", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "GSSAPI"),
			[]string{"SQL205 error 'GSSAPI': invalid value 'GSSAPI' for option 'properties.sasl.mechanism': must be one of 'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER', 'AWS_MSK_IAM'"}},
		{"JAAS that does not parse", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "SCRAM-SHA-256",
			"properties.sasl.jaas.config", `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="`+pw),
			[]string{"SQL205 error '" + strings.Repeat("x", 0) + `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + pw + "': invalid value '******' for option 'properties.sasl.jaas.config': the value of option password starts with \" but has no closing \""}},
		{"JAAS of another mechanism", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "PLAIN",
			"properties.sasl.jaas.config", scramJAAS("${KAFKA_PASSWORD}")),
			[]string{"SQL205 error '" + scramJAAS("${KAFKA_PASSWORD}") + "': 'properties.sasl.jaas.config' names the login module ScramLoginModule, but mechanism PLAIN needs PlainLoginModule"}},
		{"JAAS without a password", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "SCRAM-SHA-256",
			"properties.sasl.jaas.config", `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice";`),
			[]string{"SQL205 error 'org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\";': 'properties.sasl.jaas.config' has no password: SCRAM-SHA-256 needs username and password"}},
		{"no JAAS", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "SCRAM-SHA-256"),
			[]string{"SQL203 error WITH: 'properties.sasl.mechanism' = 'SCRAM-SHA-256' needs option 'properties.sasl.jaas.config' with the credentials"}},
		{"OAUTHBEARER without an endpoint", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "OAUTHBEARER",
			"properties.sasl.jaas.config", `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="c" clientSecret="`+pw+`";`),
			[]string{"SQL203 error WITH: 'properties.sasl.mechanism' = 'OAUTHBEARER' needs option 'properties.sasl.oauthbearer.token.endpoint.url', where the client credentials get a token"}},
		{"MSK IAM with a profile, in the clear", kafkaWith("properties.security.protocol", "SASL_PLAINTEXT", "properties.sasl.mechanism", "AWS_MSK_IAM",
			"properties.sasl.jaas.config", `software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="prod";`),
			[]string{
				"SQL205 error 'software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName=\"prod\";': 'properties.sasl.jaas.config': option awsProfileName of IAMLoginModule is not supported yet: streamsql signs with the credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN",
				"SQL205 error 'SASL_PLAINTEXT': 'properties.sasl.mechanism' = 'AWS_MSK_IAM' works over TLS only",
			}},
		{"PLAIN in the clear", kafkaWith("properties.security.protocol", "SASL_PLAINTEXT", "properties.sasl.mechanism", "PLAIN",
			"properties.sasl.jaas.config", `org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="${KAFKA_PASSWORD}";`),
			[]string{"SQL220 warning 'SASL_PLAINTEXT': 'properties.sasl.mechanism' = 'PLAIN' over SASL_PLAINTEXT sends the password unencrypted to the brokers and anyone on the way"}},
		{"no host name checks", kafkaWith("properties.security.protocol", "SSL", "properties.ssl.endpoint.identification.algorithm", ""),
			[]string{"SQL220 warning '': 'properties.ssl.endpoint.identification.algorithm' = '' turns off host name verification: any certificate the trusted CAs signed is accepted for any broker, so a server that holds one can pose as the cluster"}},
		{"JKS truststore, key password", kafkaWith("properties.security.protocol", "SSL", "properties.ssl.truststore.type", "JKS",
			"properties.ssl.key.password", pw),
			[]string{
				"SQL205 error 'JKS': invalid value 'JKS' for option 'properties.ssl.truststore.type': only PEM truststores are supported; convert a JKS or PKCS12 store to PEM (e.g. 'keytool -exportcert -rfc' for certificates, 'openssl pkcs12 -nodes' for a key)",
				"SQL205 error '" + pw + "': invalid value '******' for option 'properties.ssl.key.password': encrypted private keys are not supported yet: give the key unencrypted ('openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-plain.pem'), kept out of the job file with ${file:...}, and remove this option",
			}},
		{"a certificate that is not one", kafkaWith("properties.security.protocol", "SSL", "properties.ssl.truststore.certificates", "-----BEGIN CERTIFICATE----- aGVsbG8= -----END CERTIFICATE-----"),
			[]string{"SQL205 error '-----BEGIN CERTIFICATE----- aGVsbG8= -----END CERTIFICATE-----': invalid value '-----BEGIN CERTIFICATE----- aGVsbG8= -----END CERTIFICATE-----' for option 'properties.ssl.truststore.certificates': certificate 1 does not parse: x509: malformed certificate"}},
		{"a key that is not one", kafkaWith("properties.security.protocol", "SSL", "properties.ssl.keystore.key", pw,
			"properties.ssl.keystore.certificate.chain", "${file:/nonexistent/chain.pem}"),
			[]string{
				"SQL205 error '" + pw + "': invalid value '******' for option 'properties.ssl.keystore.key': holds no PEM private key (-----BEGIN PRIVATE KEY----- ...)",
				"SQL219 error ${file:/nonexistent/chain.pem}: option 'properties.ssl.keystore.certificate.chain': ${file:/nonexistent/chain.pem}: cannot read the file: no such file or directory",
			}},
		{"two truststores, chain without key", kafkaWith("properties.security.protocol", "SSL", "properties.ssl.truststore.location", "/a.pem",
			"properties.ssl.truststore.certificates", "${file:/nonexistent/ca.pem}"),
			[]string{"SQL219 error ${file:/nonexistent/ca.pem}: option 'properties.ssl.truststore.certificates': ${file:/nonexistent/ca.pem}: cannot read the file: no such file or directory",
				"SQL205 error 'properties.ssl.truststore.certificates': options 'properties.ssl.truststore.location' and 'properties.ssl.truststore.certificates' cannot both be set"}},
		{"unset variable, at its place in the value", kafkaWith("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "SCRAM-SHA-256",
			"properties.sasl.jaas.config", scramJAAS("${STREAMSQL_TEST_UNSET}")),
			[]string{"SQL219 error ${STREAMSQL_TEST_UNSET}: option 'properties.sasl.jaas.config': environment variable STREAMSQL_TEST_UNSET is not set"}},
		{"unclosed reference", kafkaWith("properties.group.id", "g-${X"),
			[]string{"SQL219 error ${X: option 'properties.group.id': '${' starts a reference that is not closed with '}' (write '$${' for a literal '${')"}},
		{"not a name", kafkaWith("properties.group.id", "${my-group}"),
			[]string{"SQL219 error ${my-group}: option 'properties.group.id': ${my-group} is not a reference: write ${NAME} for the environment variable NAME (letters, digits and '_'), or ${file:/path} for a file's contents"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, got, _ := validate(t, tt.kv)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("diagnostics:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

// TestReferencePositions: the span of an unresolved reference is where it
// is in the text, quotes doubled in the literal included.
func TestReferencePositions(t *testing.T) {
	c := with(kafkaWith("properties.client.id", "it''s ${NOPE_UNSET_1} and ${NOPE_UNSET_2}")...)
	var l diag.List
	Validate(c.opts, c.with, &l)
	var at []string
	for _, d := range l.Items {
		at = append(at, c.at(d.Span))
	}
	if strings.Join(at, " ") != "${NOPE_UNSET_1} ${NOPE_UNSET_2}" {
		t.Errorf("spans cover %q", at)
	}
}

func TestLiteralDollar(t *testing.T) {
	t.Setenv("GROUP", "g1")
	cfg, got, _ := validate(t, kafkaWith("properties.group.id", "$${GROUP}-${GROUP}-$5"))
	if len(got) > 0 || cfg.Get("properties.group.id") != "${GROUP}-g1-$5" {
		t.Errorf("got %q, %v", cfg.Get("properties.group.id"), got)
	}
}

func TestParseJAAS(t *testing.T) {
	j, err := ParseJAAS(`  org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED
  username="al\"ice"   password='p w;=' /* a comment */ tokenauth=true ; `)
	if err != nil {
		t.Fatal(err)
	}
	if j.Module() != ScramLoginModule || j.Flag != "required" || j.Options["username"] != `al"ice` ||
		j.Options["password"] != "p w;=" || j.Options["tokenauth"] != "true" {
		t.Errorf("%+v", j)
	}
	for _, bad := range []struct{ text, want string }{
		{``, "must start with a login module class"},
		{`x.Y`, "must be followed by a control flag"},
		{`x.Y maybe;`, `not "maybe"`},
		{`x.Y required password="` + pw + `"`, "must end with ';'"},
		{`x.Y required password "` + pw + `";`, `option password must be written password="value"`},
		{`x.Y required a="1" a="2";`, "option a is given twice"},
		{`x.Y required; z.W required;`, "more than one login module"},
		{`x.Y required password="` + pw + `;`, "the value of option password starts with \" but has no closing \""},
	} {
		_, err := ParseJAAS(bad.text)
		if err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), pw) {
			t.Errorf("%q: %v", bad.text, err)
		}
	}
}
