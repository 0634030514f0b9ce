package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/streamsql/streamsql/connectors/conntest"
)

// devPassword is the SCRAM password of the secured development broker; no
// command may print it.
const devPassword = "Dev-pw-7f3!never-shown"

// secureJob reads topic 'in' and writes 'out' over SASL_SSL with SCRAM and
// a private CA, the password from $KAFKA_PASSWORD.
func secureJob(addr, ca string) string {
	sec := fmt.Sprintf(`'properties.bootstrap.servers' = '%s',
  'properties.security.protocol' = 'SASL_SSL',
  'properties.sasl.mechanism' = 'SCRAM-SHA-512',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${KAFKA_PASSWORD}";',
  'properties.ssl.truststore.location' = '%s'`, addr, ca)
	return fmt.Sprintf(`CREATE TABLE orders (id BIGINT, customer STRING, amount BIGINT) WITH (
  'connector' = 'kafka', 'topic' = 'in', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  %[1]s);

CREATE TABLE big (id BIGINT, customer STRING) WITH (
  'connector' = 'kafka', 'topic' = 'out', 'format' = 'json',
  %[1]s);

INSERT INTO big SELECT id, customer FROM orders WHERE amount >= 100;
`, sec)
}

// TestSecureDevKafka is the "done when": a job reads from and
// writes to the development broker with SASL_SSL, SCRAM and a private CA,
// the password from an environment variable; kcat, an independent client,
// writes its input and reads its output over the same security; and no
// command (dev kafka, check in every format, explain, run, a run that
// fails) prints the password.
func TestSecureDevKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	kcat, err := osexec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not on PATH: install the Debian package kcat (.ci/run does) to run the Kafka interop test")
	}
	certs := conntest.NewCerts(t)
	t.Setenv("DEV_ALICE_PASSWORD", devPassword)
	bin := buildBinary(t)
	addr, _, printed := startDevLog(t, bin, "--topics", "in:2,out:1", "--tls", certs.Server+","+certs.ServerKey,
		"--sasl", "scram-sha-512:alice:${DEV_ALICE_PASSWORD}")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.Join(printed(), "\n"), "Ctrl-C stops it") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	banner := strings.Join(printed(), "\n")
	for _, want := range []string{"'properties.security.protocol' = 'SASL_SSL'", "SASL user alice: SCRAM-SHA-512"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the broker's banner does not say %q:\n%s", want, banner)
		}
	}

	kc := func(stdin string, args ...string) string {
		t.Helper()
		base := []string{"-b", addr, "-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanisms=SCRAM-SHA-512",
			"-X", "sasl.username=alice", "-X", "sasl.password=" + devPassword, "-X", "ssl.ca.location=" + certs.CA}
		cmd := osexec.Command(kcat, append(base, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kcat %v: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}
	var in strings.Builder
	var want []string
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&in, "{\"id\": %d, \"customer\": \"c%d\", \"amount\": %d}\n", i, i%4, i*7)
		if i*7 >= 100 {
			want = append(want, fmt.Sprintf(`{"id":%d,"customer":"c%d"}`, i, i%4))
		}
	}
	kc(in.String(), "-t", "in", "-P")

	dir := t.TempDir()
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(secureJob(addr, certs.CA)), 0o644); err != nil {
		t.Fatal(err)
	}
	var printedAll []string
	noPassword := func(what, out string) {
		t.Helper()
		printedAll = append(printedAll, out)
		if strings.Contains(out, devPassword) {
			t.Errorf("%s prints the password:\n%s", what, out)
		}
	}

	// Without the variable, check refuses the job at the reference.
	if r := invoke("check", job); r.code != 1 || !strings.Contains(r.stdout, "environment variable KAFKA_PASSWORD is not set") ||
		!strings.Contains(r.stdout, "job.sql:7:128:") || !strings.Contains(r.stdout, "[SQL219]") {
		t.Errorf("check without KAFKA_PASSWORD:\n%s", r)
	}
	t.Setenv("KAFKA_PASSWORD", devPassword)
	for _, format := range []string{"text", "json", "github"} {
		r := invoke("check", "--format", format, job)
		if r.code != 0 {
			t.Errorf("check --format %s:\n%s", format, r)
		}
		noPassword("check --format "+format, r.stdout+r.stderr)
	}
	r := invoke("explain", job)
	if r.code != 0 {
		t.Errorf("explain:\n%s", r)
	}
	noPassword("explain", r.stdout+r.stderr)

	run := osexec.Command(bin, "run", job)
	out, err := run.CombinedOutput()
	noPassword("run", string(out))
	if err != nil {
		t.Fatalf("streamsql run: %v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSpace(kc("", "-t", "out", "-C", "-e", "-q")), "\n")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("topic out:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A wrong password fails the run at start, saying what to change.
	wrong := osexec.Command(bin, "run", job)
	wrong.Env = append(os.Environ(), "KAFKA_PASSWORD=not-"+devPassword)
	out, err = wrong.CombinedOutput()
	noPassword("a failed run", string(out))
	if err == nil || !strings.Contains(string(out), "properties.sasl.jaas.config") || !strings.Contains(string(out), "alice") {
		t.Errorf("run with a wrong password: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "not-Dev-pw") {
		t.Errorf("a failed run prints the wrong password:\n%s", out)
	}
	noPassword("dev kafka", strings.Join(printed(), "\n"))
	if len(printedAll) < 6 {
		t.Errorf("only %d outputs looked at", len(printedAll))
	}
}

// TestRedaction: a job file that writes secrets inline (which it should
// not, but people do) never has them printed: not by check in any format,
// not by explain, not in the source lines under diagnostics, not by the
// shell's DESCRIBE and SET, and not in error messages about the secret
// options themselves.
func TestRedaction(t *testing.T) {
	const pw = "Inline-pw-Q9"
	job := writeJob(t, "inline.sql", fmt.Sprintf(`CREATE TABLE orders (id BIGINT) WITH (
  'connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json',
  'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'SCRAM-SHA-256',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="%[1]s"',
  'properties.ssl.endpoint.identification.algorithm' = '', 'properties.ssl.key.password' = '%[1]s'
);
CREATE TABLE out (id BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT id FROM orders;
`, pw))
	var outputs []string
	for _, format := range []string{"text", "json", "github"} {
		r := invoke("check", "--format", format, job)
		if r.code != 1 {
			t.Errorf("check --format %s: want errors (an unterminated JAAS config, a key password):\n%s", format, r)
		}
		outputs = append(outputs, r.stdout+r.stderr)
		if format == "json" {
			var diags []map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &diags); err != nil || len(diags) < 3 {
				t.Errorf("check --format json: %v\n%s", err, r.stdout)
			}
		}
	}
	text := outputs[0]
	for _, want := range []string{"'properties.sasl.jaas.config' = '******'", "invalid value '******' for option 'properties.sasl.jaas.config'",
		"invalid value '******' for option 'properties.ssl.key.password'", "turns off host name verification", "[SQL220]"} {
		if !strings.Contains(text, want) {
			t.Errorf("check does not say %q:\n%s", want, text)
		}
	}
	r := invoke("explain", job)
	outputs = append(outputs, r.stdout+r.stderr)
	if !strings.Contains(r.stderr, "turns off host name verification") {
		t.Errorf("explain does not warn about host name checks:\n%s", r)
	}

	// The shell, fed statements on stdin.
	shellIn := fmt.Sprintf(`CREATE TABLE t (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json',
  'properties.bootstrap.servers' = 'localhost:9092', 'properties.security.protocol' = 'SASL_SSL',
  'properties.sasl.mechanism' = 'PLAIN',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="%[1]s";');
DESCRIBE t;
SET 'properties.sasl.jaas.config' = '%[1]s';
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json',
  'properties.bootstrap.servers' = 'localhost:9092', 'properties.security.protocol' = 'SSL', 'properties.ssl.keystore.password' = '%[1]s');
`, pw)
	shr := invokeShell(t, shellIn)
	sh := shr.stdout + shr.stderr
	outputs = append(outputs, sh)
	if !strings.Contains(sh, "'properties.sasl.jaas.config' = '******'") {
		t.Errorf("the shell's DESCRIBE does not mask the JAAS config:\n%s", sh)
	}
	for i, out := range outputs {
		if strings.Contains(out, pw) {
			t.Errorf("output %d shows the password:\n%s", i, out)
		}
	}
}

// TestDevKafkaSecurityFlags: --sasl, --acl and --tls are checked before
// the broker starts (a usage error, exit 2, that never shows a password),
// and the ACLs given are the ones the broker enforces.
func TestDevKafkaSecurityFlags(t *testing.T) {
	const pw = "flag-pw-never-shown"
	t.Setenv("DEV_FLAG_PW", pw)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sasl", "md5:alice:" + pw}, `mechanism "md5"`},
		{[]string{"--sasl", "alice"}, "want MECHANISM:USER:PASSWORD"},
		{[]string{"--sasl", "plain:alice:${DEV_FLAG_UNSET_PW}"}, "environment variable DEV_FLAG_UNSET_PW is not set"},
		{[]string{"--sasl", "plain:alice:" + pw, "--acl", "bob:read:topic:x"}, "bob is not a user given with --sasl"},
		{[]string{"--sasl", "plain:alice:" + pw, "--acl", "alice:peek:topic:x"}, `operation "peek"`},
		{[]string{"--sasl", "plain:alice:" + pw, "--acl", "alice:read:table:x"}, `resource "table"`},
		{[]string{"--sasl", "plain:alice:" + pw, "--acl", "alice:read"}, "want USER:OPERATION:RESOURCE:NAME"},
		{[]string{"--tls", "/nonexistent/cert.pem"}, "want CERT.pem,KEY.pem"},
		{[]string{"--tls", "/nonexistent/cert.pem,/nonexistent/key.pem"}, "no such file"},
	} {
		r := invoke(append([]string{"dev", "kafka", "--listen", "127.0.0.1:0"}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stdout+r.stderr, pw) {
			t.Errorf("%v: want exit 2 saying %q, without the password:\n%s", c.args, c.want, r)
		}
	}

	sec, err := parseDevSecurity([]string{"scram-sha-256:alice:${DEV_FLAG_PW}", "plain:bob:" + pw},
		[]string{"alice:read:topic:in", "alice:write:topic:out-*", "alice:describe:group:jobs", "bob:all:topic:*", "bob:write:topic:in:deny"}, "")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := startDevKafka("127.0.0.1:0", map[string]int32{"in": 1, "out-1": 1}, sec)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, l := range sec.describe() {
		if strings.Contains(l, pw) {
			t.Errorf("the banner shows a password: %s", l)
		}
	}
	produce := func(m sasl.Mechanism, topic string) error {
		c, err := kgo.NewClient(kgo.SeedBrokers(cl.ListenAddrs()...), kgo.SASL(m))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return c.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("x")}).FirstErr()
	}
	alice := scram.Auth{User: "alice", Pass: pw}.AsSha256Mechanism()
	bob := plain.Auth{User: "bob", Pass: pw}.AsMechanism()
	for _, c := range []struct {
		who   string
		m     sasl.Mechanism
		topic string
		want  error
	}{
		{"alice", alice, "out-1", nil},                        // prefixed Write
		{"alice", alice, "in", kerr.TopicAuthorizationFailed}, // Read only
		{"bob", bob, "out-1", nil},                            // All
		{"bob", bob, "in", kerr.TopicAuthorizationFailed},     // All, but Write denied
	} {
		if err := produce(c.m, c.topic); !errors.Is(err, c.want) && (c.want != nil || err != nil) {
			t.Errorf("%s producing to %s: %v, want %v", c.who, c.topic, err, c.want)
		}
	}
}

// TestShellHistoryKeepsNoSecret: a statement typed in the shell that gives
// a secret option a value is not saved in the history file, and DESCRIBE
// masks it; one that reads it with ${VAR} is saved.
func TestShellHistoryKeepsNoSecret(t *testing.T) {
	const pw = "typed-pw-Zk2"
	t.Setenv("SHELL_TEST_PW", pw) // startShell passes the test's environment on
	s := startShell(t)
	s.waitText(0, "interactive shell")
	kafka := `CREATE TABLE %s (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json',
  'properties.bootstrap.servers' = 'localhost:9092', 'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'PLAIN',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="%s";');`
	at := s.enter(fmt.Sprintf(kafka, "inline", pw))
	s.waitText(at, "[INFO] Table inline created.")
	at = s.enter(fmt.Sprintf(kafka, "fromenv", "${SHELL_TEST_PW}"))
	s.waitText(at, "[INFO] Table fromenv created.")
	at = s.enter("DESCRIBE inline;")
	s.waitText(at, "'properties.sasl.jaas.config' = '******'")
	at = s.enter("QUIT;")
	s.waitText(at, "Bye.")
	s.waitExit()
	b, err := os.ReadFile(s.hist)
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	if strings.Contains(string(b), pw) || strings.Contains(string(b), "CREATE TABLE inline") {
		t.Errorf("the history file keeps the statement with the password:\n%s", b)
	}
	if !strings.Contains(string(b), "CREATE TABLE fromenv") || !strings.Contains(string(b), "DESCRIBE inline;") {
		t.Errorf("the history file lacks the other statements:\n%s", b)
	}
}
