package secret

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsKey(t *testing.T) {
	for key, want := range map[string]bool{
		"password":                                  true,
		"properties.sasl.jaas.config":               true,
		"properties.ssl.keystore.password":          true,
		"properties.ssl.key.password":               true,
		"properties.ssl.keystore.key":               true,
		"PROPERTIES.SSL.KEYSTORE.KEY":               true,
		"avro-confluent.basic-auth.user-info":       true,
		"properties.sasl.oauthbearer.client.secret": true,
		"token": true,
		"properties.sasl.oauthbearer.token.endpoint.url": false,
		"key.format":                                false,
		"key.fields":                                false,
		"key.fields-prefix":                         false,
		"properties.ssl.keystore.location":          false,
		"properties.ssl.keystore.certificate.chain": false,
		"properties.ssl.truststore.certificates":    false,
		"topic":                                     false,
		"username":                                  false,
	} {
		if IsKey(key) != want {
			t.Errorf("IsKey(%q) = %v", key, !want)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Setenv("SECRET_TEST_A", "alpha")
	t.Setenv("SECRET_TEST_EMPTY", "")
	os.Unsetenv("SECRET_TEST_UNSET")
	dir := t.TempDir()
	f := filepath.Join(dir, "s")
	if err := os.WriteFile(f, []byte("from file\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"plain":                              "plain",
		"${SECRET_TEST_A}":                   "alpha",
		"x${SECRET_TEST_A}y${SECRET_TEST_A}": "xalphayalpha",
		"[${SECRET_TEST_EMPTY}]":             "[]",
		"${file:" + f + "}":                  "from file",
		"$${SECRET_TEST_A}":                  "${SECRET_TEST_A}",
		"$5 and $":                           "$5 and $",
	} {
		got, errs := Resolve(in)
		if len(errs) > 0 || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, errs, want)
		}
	}
	for in, want := range map[string]struct {
		start, end int
		msg        string
	}{
		"a ${SECRET_TEST_UNSET} b": {2, 22, "environment variable SECRET_TEST_UNSET is not set"},
		"${file:" + dir + "/none}": {0, len("${file:" + dir + "/none}"), "cannot read the file: no such file or directory"},
		"x ${A":                    {2, 5, "not closed"},
		"${}":                      {0, 3, "is not a reference"},
		"${1A}":                    {0, 5, "is not a reference"},
	} {
		got, errs := Resolve(in)
		if len(errs) != 1 || got != "" || errs[0].Start != want.start || errs[0].End != want.end || !strings.Contains(errs[0].Msg, want.msg) {
			t.Errorf("Resolve(%q) = %q, %+v; want [%d,%d) %q", in, got, errs, want.start, want.end, want.msg)
		}
	}
}

func TestShow(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"properties.sasl.jaas.config", `x required password="p";`, Mask},
		{"properties.sasl.jaas.config", " ${JAAS} ", " ${JAAS} "},
		{"password", "${file:/run/secrets/p}", "${file:/run/secrets/p}"},
		{"password", "pre-${P}", Mask},
		{"password", "$${P}", Mask},
		{"properties.sasl.jaas.config", `m required username="alice" password="${P}";`, `m required username="alice" password="${P}";`},
		{"properties.sasl.jaas.config", `m required clientId='c' clientSecret='${S}' scope=x;`, `m required clientId='c' clientSecret='${S}' scope=x;`},
		{"properties.sasl.jaas.config", `m required username="${U}" password="inline";`, Mask},
		{"properties.sasl.jaas.config", `m required username="${U}" password=inline;`, Mask},
		{"properties.sasl.jaas.config", `m required username="${U}" password="${P}" token="t";`, Mask},
		{"topic", "orders", "orders"},
	} {
		if got := Show(c.key, c.value); got != c.want {
			t.Errorf("Show(%q, %q) = %q, want %q", c.key, c.value, got, c.want)
		}
	}
}

func TestRedact(t *testing.T) {
	in := `-- it's a comment with 'password' = 'in-comment'
CREATE TABLE t (a INT, "we'ird" INT) WITH (
  'connector' = 'kafka', 'properties.sasl.jaas.config' = 'm required password="it''s";',
  'password'='p1', 'properties.ssl.keystore.key'
    = 'KEY', 'x.password' = '${P}', 'topic' = 'password', 'username' = 'u', 'secret' = ''
);
SET 'client.secret' = 'p2';`
	want := `-- it's a comment with 'password' = 'in-comment'
CREATE TABLE t (a INT, "we'ird" INT) WITH (
  'connector' = 'kafka', 'properties.sasl.jaas.config' = '******',
  'password'='******', 'properties.ssl.keystore.key'
    = '******', 'x.password' = '${P}', 'topic' = 'password', 'username' = 'u', 'secret' = ''
);
SET 'client.secret' = '******';`
	if got := Redact(in); got != want {
		t.Errorf("Redact:\n%s\nwant:\n%s", got, want)
	}
}
