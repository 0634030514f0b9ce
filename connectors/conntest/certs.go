package conntest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// Certs are a private CA made for one test, and certificates it signed, as
// PEM files in a temporary directory (and as PEM text).
type Certs struct {
	Dir string
	// CA is the CA's certificate; CAPEM its text.
	CA, CAPEM string
	// Server and ServerKey are the broker's certificate and key, for
	// 127.0.0.1 and localhost (or the names given to NewCerts).
	Server, ServerKey string
	// Client and ClientKey are a client certificate (CN=streamsql-client)
	// and its key; ClientBundle holds both in one file (key first, as
	// Kafka's PEM keystores do); ClientPEM and ClientKeyPEM are their text.
	Client, ClientKey, ClientBundle string
	ClientPEM, ClientKeyPEM         string
	// Other is the certificate of a second CA, which signed none of these.
	Other string

	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
}

// NewCerts makes a CA and a server certificate for hosts (default:
// 127.0.0.1 and localhost) and a client certificate.
func NewCerts(t testing.TB, hosts ...string) *Certs {
	t.Helper()
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "localhost"}
	}
	c := &Certs{Dir: t.TempDir()}
	var caDER []byte
	c.caCert, c.caKey, caDER = newCA(t, "streamsql test CA")
	c.CAPEM = string(pemCert(caDER))
	c.CA = c.write(t, "ca.pem", c.CAPEM)
	_, _, otherDER := newCA(t, "some other CA")
	c.Other = c.write(t, "other-ca.pem", string(pemCert(otherDER)))

	srv, srvKey := c.leaf(t, "broker", hosts, x509.ExtKeyUsageServerAuth)
	c.Server = c.write(t, "server.pem", srv)
	c.ServerKey = c.write(t, "server-key.pem", srvKey)
	c.ClientPEM, c.ClientKeyPEM = c.leaf(t, "streamsql-client", nil, x509.ExtKeyUsageClientAuth)
	c.Client = c.write(t, "client.pem", c.ClientPEM)
	c.ClientKey = c.write(t, "client-key.pem", c.ClientKeyPEM)
	c.ClientBundle = c.write(t, "client-bundle.pem", c.ClientKeyPEM+c.ClientPEM)
	return c
}

// ServerTLS is the broker's TLS configuration; with clientAuth, clients
// must present a certificate the CA signed.
func (c *Certs) ServerTLS(t testing.TB, clientAuth bool) *tls.Config {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(c.Server, c.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if clientAuth {
		pool := x509.NewCertPool()
		pool.AddCert(c.caCert)
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg
}

// ClientTLS is a client configuration trusting the CA.
func (c *Certs) ClientTLS() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(c.caCert)
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
}

func (c *Certs) write(t testing.TB, name, text string) string {
	t.Helper()
	p := filepath.Join(c.Dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var serial atomic.Int64

func nextSerial() *big.Int { return big.NewInt(serial.Add(1)) }

func newCA(t testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: nextSerial(), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key, der
}

// leaf returns a certificate the CA signed and its key, as PEM.
func (c *Certs) leaf(t testing.TB, cn string, hosts []string, usage x509.ExtKeyUsage) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: nextSerial(), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.caCert, &key.PublicKey, c.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pemCert(der)), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
