package connectors

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/streamsql/streamsql/diag"
)

// Kafka security settings, with Kafka's (and so Flink's) property names.
// The runtime (package connectors/kafka) maps them onto franz-go; the rules
// between them are checked here, when the job is checked.
const (
	propProtocol      = "properties.security.protocol"
	propMechanism     = "properties.sasl.mechanism"
	propJAAS          = "properties.sasl.jaas.config"
	propTokenURL      = "properties.sasl.oauthbearer.token.endpoint.url"
	propLoginHandler  = "properties.sasl.login.callback.handler.class"
	propClientHandler = "properties.sasl.client.callback.handler.class"
	propTrustType     = "properties.ssl.truststore.type"
	propTrustLocation = "properties.ssl.truststore.location"
	propTrustCerts    = "properties.ssl.truststore.certificates"
	propTrustPassword = "properties.ssl.truststore.password"
	propKeyType       = "properties.ssl.keystore.type"
	propKeyLocation   = "properties.ssl.keystore.location"
	propKeyChain      = "properties.ssl.keystore.certificate.chain"
	propKeyKey        = "properties.ssl.keystore.key"
	propKeyPassword   = "properties.ssl.keystore.password"
	propKeyKeyPass    = "properties.ssl.key.password"
	propEndpointID    = "properties.ssl.endpoint.identification.algorithm"
)

// SASL mechanisms streamsql speaks (through franz-go's pkg/sasl).
const (
	MechPlain       = "PLAIN"
	MechScram256    = "SCRAM-SHA-256"
	MechScram512    = "SCRAM-SHA-512"
	MechOAuthBearer = "OAUTHBEARER"
	MechMSKIAM      = "AWS_MSK_IAM"
)

// kafkaSecurity are the security options of kafka and upsert-kafka.
func kafkaSecurity() []OptionSpec {
	notSupportedPassword := func(what string) func(string) error {
		return func(string) error {
			return errors.New(what)
		}
	}
	return []OptionSpec{
		{Key: propProtocol, Default: "PLAINTEXT", Choices: []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"},
			Doc: "How the client talks to the brokers: in the clear, over TLS (SSL), and with SASL authentication (SASL_PLAINTEXT, SASL_SSL)."},
		{Key: propMechanism, Choices: []string{MechPlain, MechScram256, MechScram512, MechOAuthBearer, MechMSKIAM},
			Example: MechScram512,
			Doc:     "SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER (client credentials from a token endpoint) or AWS_MSK_IAM."},
		{Key: propJAAS, Validate: func(v string) error { _, err := ParseJAAS(v); return err },
			Example: `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${KAFKA_PASSWORD}";`,
			Doc:     "The login module and its options: username and password (PLAIN, SCRAM), clientId, clientSecret and scope (OAUTHBEARER)."},
		{Key: propTokenURL, Validate: httpURL, Example: "https://login.example.com/oauth2/token",
			Doc: "OAUTHBEARER: the token endpoint the client credentials are exchanged at."},
		{Key: propLoginHandler, Validate: className("OAuthBearerLoginCallbackHandler"),
			Doc: "Accepted for compatibility: OAUTHBEARER's client credentials handler, which streamsql has built in."},
		{Key: propClientHandler, Validate: className("IAMClientCallbackHandler"),
			Doc: "Accepted for compatibility: AWS_MSK_IAM's callback handler, which streamsql has built in."},
		{Key: propTrustType, Default: "PEM", Validate: pemType("truststore"),
			Doc: "Format of the trusted certificates: PEM only."},
		{Key: propTrustLocation, Validate: nonEmpty, Example: "/etc/kafka/ca.pem",
			Doc: "A PEM file of the CA certificates to trust instead of the system's."},
		{Key: propTrustCerts, Validate: pemCertificates, Example: "${file:/etc/kafka/ca.pem}",
			Doc: "The CA certificates to trust, in PEM, instead of the system's."},
		{Key: propTrustPassword, Validate: notSupportedPassword("a PEM truststore has no password; remove this option"),
			Doc: "Not supported: PEM truststores have no password."},
		{Key: propKeyType, Default: "PEM", Validate: pemType("keystore"),
			Doc: "Format of the client certificate and key: PEM only."},
		{Key: propKeyLocation, Validate: nonEmpty, Example: "/etc/kafka/client.pem",
			Doc: "A PEM file with the client's private key and certificate chain, for brokers that authenticate clients by certificate."},
		{Key: propKeyChain, Validate: pemCertificates, Example: "${file:/etc/kafka/client-cert.pem}",
			Doc: "The client's certificate chain in PEM (with 'properties.ssl.keystore.key')."},
		{Key: propKeyKey, Validate: pemPrivateKey, Example: "${file:/run/secrets/client-key.pem}",
			Doc: "The client's private key in PEM, unencrypted (with 'properties.ssl.keystore.certificate.chain')."},
		{Key: propKeyPassword, Validate: notSupportedPassword("encrypted private keys are not supported yet: give the key unencrypted " +
			"('openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-plain.pem'), kept out of the job file with ${file:...}, and remove this option"),
			Doc: "Not supported: keys are read unencrypted."},
		{Key: propKeyKeyPass, Validate: notSupportedPassword("encrypted private keys are not supported yet: give the key unencrypted " +
			"('openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-plain.pem'), kept out of the job file with ${file:...}, and remove this option"),
			Doc: "Not supported: keys are read unencrypted."},
		{Key: propEndpointID, Default: "https", Choices: []string{"https", ""},
			Doc: "'https' checks that a broker's certificate names the host connected to; '' turns that check off (with a warning)."},
	}
}

func httpURL(v string) error {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("must be an http or https URL, e.g. 'https://login.example.com/oauth2/token'")
	}
	return nil
}

// className accepts a Java class whose simple name is name (any package:
// Flink shades Kafka's classes).
func className(name string) func(string) error {
	return func(v string) error {
		v = strings.TrimSpace(v)
		if v[strings.LastIndexByte(v, '.')+1:] != name {
			return fmt.Errorf("streamsql has the handler built in and accepts only its class, %s", name)
		}
		return nil
	}
}

func pemType(what string) func(string) error {
	return func(v string) error {
		if strings.EqualFold(strings.TrimSpace(v), "PEM") {
			return nil
		}
		return fmt.Errorf("only PEM %ss are supported; convert a JKS or PKCS12 store to PEM "+
			"(e.g. 'keytool -exportcert -rfc' for certificates, 'openssl pkcs12 -nodes' for a key)", what)
	}
}

func pemCertificates(v string) error {
	certs, err := PEMCertificates([]byte(v))
	if err != nil {
		return err
	}
	if len(certs) == 0 {
		return errors.New("holds no PEM certificate (-----BEGIN CERTIFICATE----- ...)")
	}
	return nil
}

func pemPrivateKey(v string) error {
	return CheckPEMKey(NormalizePEM([]byte(v)))
}

// pemBlockRE matches a PEM block whose line breaks may have been turned
// into spaces, as happens when a certificate is pasted into one line of a
// job file.
var pemBlockRE = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END ([A-Z0-9 ]+)-----`)

// NormalizePEM returns PEM text with its line breaks restored: a block
// written on one line (base64 separated by spaces, or not at all) is
// rewritten in the form encoding/pem reads. Blocks with headers
// (Proc-Type, as in legacy encrypted keys) are left as they are.
func NormalizePEM(b []byte) []byte {
	return pemBlockRE.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := pemBlockRE.FindSubmatch(m)
		if strings.Contains(string(sub[2]), ":") {
			return m // headers: leave alone
		}
		body := strings.Join(strings.Fields(string(sub[2])), "")
		raw, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return m
		}
		return pem.EncodeToMemory(&pem.Block{Type: string(sub[1]), Bytes: raw})
	})
}

// PEMCertificates parses the CERTIFICATE blocks of PEM text (other blocks
// are skipped). It fails on a certificate that does not parse.
func PEMCertificates(b []byte) ([]*x509.Certificate, error) {
	rest := NormalizePEM(b)
	var out []*x509.Certificate
	for {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return out, nil
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d does not parse: %w", len(out)+1, err)
		}
		out = append(out, c)
	}
}

// CheckPEMKey checks that PEM text holds an unencrypted private key that
// Go's TLS can use. Its errors never quote the key.
func CheckPEMKey(b []byte) error {
	rest := b
	for {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return errors.New("holds no PEM private key (-----BEGIN PRIVATE KEY----- ...)")
		}
		switch {
		case blk.Type == "ENCRYPTED PRIVATE KEY" || blk.Headers["Proc-Type"] != "":
			return errors.New("holds an encrypted private key, which streamsql cannot read yet; decrypt it " +
				"('openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-plain.pem') and keep it out of the job file with ${file:...}")
		case blk.Type == "PRIVATE KEY":
			if _, err := x509.ParsePKCS8PrivateKey(blk.Bytes); err != nil {
				return errors.New("holds a PKCS #8 private key that does not parse")
			}
			return nil
		case blk.Type == "RSA PRIVATE KEY":
			if _, err := x509.ParsePKCS1PrivateKey(blk.Bytes); err != nil {
				return errors.New("holds an RSA private key that does not parse")
			}
			return nil
		case blk.Type == "EC PRIVATE KEY":
			if _, err := x509.ParseECPrivateKey(blk.Bytes); err != nil {
				return errors.New("holds an EC private key that does not parse")
			}
			return nil
		}
	}
}

// SecurityProtocol is the table's 'properties.security.protocol'.
func (c *Config) SecurityProtocol() string { return c.Get(propProtocol) }

// checkKafkaSecurity applies the rules between Kafka's security options.
// A setting that would have no effect is an error, not a warning: a
// credential or certificate that is silently not used leaves a job talking
// to a broker in a way nobody intended.
func checkKafkaSecurity(c *Config, l *diag.List) {
	if c.Option(propProtocol) != nil && !c.Has(propProtocol) {
		return // invalid, reported
	}
	proto := c.Get(propProtocol)
	useSASL := strings.HasPrefix(proto, "SASL_")
	useTLS := proto == "SSL" || proto == "SASL_SSL"
	protoIs := mode(c, propProtocol)
	for _, k := range []string{propMechanism, propJAAS, propTokenURL, propLoginHandler, propClientHandler} {
		if !useSASL && c.Option(k) != nil {
			l.Errorf(diag.InvalidOptionValue, c.Option(k).Key.Span(), "option '%s' has no effect: %s, without SASL", k, protoIs).
				WithHint("set '%s' = 'SASL_SSL' (or 'SASL_PLAINTEXT') to authenticate with SASL", propProtocol)
		}
	}
	for _, k := range c.Keys() {
		if strings.HasPrefix(k, "properties.ssl.") && !useTLS && c.Option(k) != nil {
			l.Errorf(diag.InvalidOptionValue, c.Option(k).Key.Span(), "option '%s' has no effect: %s, without TLS", k, protoIs).
				WithHint("set '%s' = 'SSL' (or 'SASL_SSL') to connect over TLS", propProtocol)
		}
	}
	if useTLS {
		checkTLSOptions(c, l)
	}
	if useSASL {
		checkSASLOptions(c, l, proto)
	}
}

func checkTLSOptions(c *Config, l *diag.List) {
	if c.Option(propTrustLocation) != nil && c.Option(propTrustCerts) != nil {
		l.Errorf(diag.InvalidOptionValue, c.Option(propTrustCerts).Key.Span(),
			"options '%s' and '%s' cannot both be set", propTrustLocation, propTrustCerts).
			WithHint("keep the file ('%s') or the certificates ('%s')", propTrustLocation, propTrustCerts)
	}
	chain, key := c.Option(propKeyChain) != nil, c.Option(propKeyKey) != nil
	switch {
	case c.Option(propKeyLocation) != nil && (chain || key):
		k := propKeyChain
		if !chain {
			k = propKeyKey
		}
		l.Errorf(diag.InvalidOptionValue, c.Option(k).Key.Span(),
			"options '%s' and '%s' cannot both be set", propKeyLocation, k).
			WithHint("give the client's key and certificates in one PEM file ('%s') or as '%s' and '%s'", propKeyLocation, propKeyChain, propKeyKey)
	case chain && !key:
		missing(c, l, propKeyKey, "'"+propKeyChain+"' needs option '"+propKeyKey+"', the certificate's private key", "${file:/run/secrets/client-key.pem}")
	case key && !chain:
		missing(c, l, propKeyChain, "'"+propKeyKey+"' needs option '"+propKeyChain+"', the client's certificate", "${file:/etc/kafka/client-cert.pem}")
	}
	if c.Has(propEndpointID) && c.Get(propEndpointID) == "" {
		l.Warnf(diag.InsecureOption, c.Option(propEndpointID).Value.Span(),
			"'%s' = '' turns off host name verification: any certificate the trusted CAs signed is accepted for any broker, so a server that holds one can pose as the cluster", propEndpointID).
			WithHint("remove the option (the default, 'https', checks that a broker's certificate names the host connected to)")
	}
}

func checkSASLOptions(c *Config, l *diag.List, proto string) {
	if c.Option(propMechanism) == nil {
		missing(c, l, propMechanism, "'"+propProtocol+"' = '"+proto+"' needs option '"+propMechanism+"'", MechScram512).
			WithHint("Kafka's default mechanism, GSSAPI (Kerberos), is not supported; PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER and AWS_MSK_IAM are")
		return
	}
	if !c.Has(propMechanism) {
		return // invalid, reported
	}
	mech := c.Get(propMechanism)
	var j *JAAS
	if c.Has(propJAAS) {
		j, _ = ParseJAAS(c.Get(propJAAS))
	}
	want := map[string]string{MechPlain: PlainLoginModule, MechScram256: ScramLoginModule, MechScram512: ScramLoginModule,
		MechOAuthBearer: OAuthBearerLoginModule, MechMSKIAM: IAMLoginModule}[mech]
	examples := map[string]string{
		MechPlain:       `org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="${KAFKA_PASSWORD}";`,
		MechScram256:    `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${KAFKA_PASSWORD}";`,
		MechScram512:    `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${KAFKA_PASSWORD}";`,
		MechOAuthBearer: `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="streamsql" clientSecret="${OAUTH_CLIENT_SECRET}";`,
		MechMSKIAM:      `software.amazon.msk.auth.iam.IAMLoginModule required;`,
	}
	if c.Option(propJAAS) == nil {
		if mech != MechMSKIAM {
			missing(c, l, propJAAS, "'"+propMechanism+"' = '"+mech+"' needs option '"+propJAAS+"' with the credentials", examples[mech])
		}
	} else if j != nil {
		at := c.Option(propJAAS).Value.Span()
		if j.Module() != want {
			l.Errorf(diag.InvalidOptionValue, at, "'%s' names the login module %s, but mechanism %s needs %s", propJAAS, j.Module(), mech, want).
				WithHint("write '%s' = '%s'", propJAAS, examples[mech])
		} else {
			var need []string
			switch mech {
			case MechPlain, MechScram256, MechScram512:
				need = []string{"username", "password"}
			case MechOAuthBearer:
				need = []string{"clientId", "clientSecret"}
			case MechMSKIAM:
				for _, k := range []string{"awsProfileName", "awsRoleArn", "awsStsRegion", "awsRoleSessionName", "awsDebugCreds"} {
					if _, ok := j.Options[k]; ok {
						l.Errorf(diag.InvalidOptionValue, at, "'%s': option %s of IAMLoginModule is not supported yet: streamsql signs with the credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN", propJAAS, k).
							WithHint("remove %s and give the role's credentials in those environment variables", k)
					}
				}
			}
			for _, k := range need {
				if _, ok := j.Options[k]; !ok {
					l.Errorf(diag.InvalidOptionValue, at, "'%s' has no %s: %s needs %s", propJAAS, k, mech, strings.Join(need, " and ")).
						WithHint("write '%s' = '%s'", propJAAS, examples[mech])
				}
			}
		}
	}
	if mech == MechOAuthBearer && c.Option(propTokenURL) == nil {
		missing(c, l, propTokenURL, "'"+propMechanism+"' = 'OAUTHBEARER' needs option '"+propTokenURL+"', where the client credentials get a token", "https://login.example.com/oauth2/token")
	}
	if mech != MechOAuthBearer && c.Option(propTokenURL) != nil {
		l.Errorf(diag.InvalidOptionValue, c.Option(propTokenURL).Key.Span(), "option '%s' has no effect: %s", propTokenURL, mode(c, propMechanism)).
			WithHint("remove it, or set '%s' = 'OAUTHBEARER'", propMechanism)
	}
	if mech == MechMSKIAM && proto != "SASL_SSL" {
		l.Errorf(diag.InvalidOptionValue, c.Option(propProtocol).Value.Span(), "'%s' = 'AWS_MSK_IAM' works over TLS only", propMechanism).
			WithHint("set '%s' = 'SASL_SSL'", propProtocol)
	}
	if mech == MechPlain && proto == "SASL_PLAINTEXT" {
		l.Warnf(diag.InsecureOption, c.Option(propProtocol).Value.Span(),
			"'%s' = 'PLAIN' over SASL_PLAINTEXT sends the password unencrypted to the brokers and anyone on the way", propMechanism).
			WithHint("use 'SASL_SSL', or a SCRAM mechanism, which never sends the password")
	}
}
