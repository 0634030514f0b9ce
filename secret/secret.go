package secret

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Mask is how a secret value is shown.
const Mask = "******"

// IsKey reports whether an option (or setting) named key holds a secret.
// Names are compared ignoring case.
func IsKey(key string) bool {
	k := strings.ToLower(key)
	for _, word := range []string{"password", "secret", "jaas", "user-info", "user.info", "credential"} {
		if strings.Contains(k, word) {
			return true
		}
	}
	// 'sasl.oauthbearer.token.endpoint.url' names where tokens come from,
	// not a token.
	if strings.Contains(k, "token") && !strings.HasSuffix(k, ".url") {
		return true
	}
	last := k[strings.LastIndexByte(k, '.')+1:]
	return last == "key"
}

// Show returns value as it may be printed for the option key: Mask for a
// secret, unless the value keeps its secrets elsewhere (Kept).
func Show(key, value string) string {
	if IsKey(key) && !Kept(value) {
		return Mask
	}
	return value
}

// assignRE finds the secret assignments inside a value such as a JAAS
// config: password="…", clientSecret='…', token=….
var assignRE = regexp.MustCompile(`(?i)[a-z_.-]*(?:password|secret|token|credential)[a-z_.-]*\s*=\s*("[^"]*"|'[^']*'|[^\s;]*)`)

// Kept reports whether a secret option's value holds no secret itself but
// refers to where it is kept: the value is nothing but references
// ('${KAFKA_PASSWORD}'), or it assigns secrets inside it (a JAAS config)
// and every such assignment is a reference
// ('… username="alice" password="${KAFKA_PASSWORD}";'). Anything else that
// a secret option holds is taken to be the secret.
func Kept(v string) bool {
	if !HasRefs(v) {
		return false
	}
	assigns := assignRE.FindAllStringSubmatch(v, -1)
	if len(assigns) == 0 {
		return OnlyRefs(v)
	}
	for _, m := range assigns {
		val := m[1]
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') {
			val = val[1 : len(val)-1]
		}
		if !OnlyRefs(val) {
			return false
		}
	}
	return true
}

// RefError is a reference that cannot be resolved, at bytes [Start, End) of
// the value.
type RefError struct {
	Start, End int
	Msg        string
	// Var is the environment variable that is not set, if that is the
	// problem.
	Var string
}

func (e *RefError) Error() string { return e.Msg }

// ref is one ${...} in a value: bytes [start, end), and its body.
type ref struct {
	start, end int
	body       string
	escaped    bool // $${: a literal "${"
}

// scan finds the references in v. An unterminated "${" is returned with
// end -1.
func scan(v string) []ref {
	var out []ref
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			continue
		}
		if strings.HasPrefix(v[i:], "$${") {
			out = append(out, ref{start: i, end: i + 3, escaped: true})
			i += 2
			continue
		}
		if !strings.HasPrefix(v[i:], "${") {
			continue
		}
		j := strings.IndexByte(v[i+2:], '}')
		if j < 0 {
			out = append(out, ref{start: i, end: -1})
			return out
		}
		out = append(out, ref{start: i, end: i + 2 + j + 1, body: v[i+2 : i+2+j]})
		i += 2 + j
	}
	return out
}

// HasRefs reports whether v holds a reference (or an escaped "$${").
func HasRefs(v string) bool { return len(scan(v)) > 0 }

// OnlyRefs reports whether v is made of references only, with nothing else
// around them but blanks: ${KAFKA_PASSWORD}.
func OnlyRefs(v string) bool {
	refs := scan(v)
	if len(refs) == 0 {
		return false
	}
	rest := v
	for k := len(refs) - 1; k >= 0; k-- {
		r := refs[k]
		if r.escaped || r.end < 0 {
			return false
		}
		rest = rest[:r.start] + rest[r.end:]
	}
	return strings.TrimSpace(rest) == ""
}

// Resolve replaces the references in v: ${NAME} by the environment
// variable NAME, ${file:PATH} by the file's contents less one trailing
// newline, $${ by "${". It returns every reference it could not resolve,
// each with its place in v; their messages never hold a resolved value.
func Resolve(v string) (string, []*RefError) {
	refs := scan(v)
	if len(refs) == 0 {
		return v, nil
	}
	var b strings.Builder
	var errs []*RefError
	at := 0
	for _, r := range refs {
		b.WriteString(v[at:r.start])
		if r.end < 0 {
			errs = append(errs, &RefError{Start: r.start, End: len(v),
				Msg: "'${' starts a reference that is not closed with '}' (write '$${' for a literal '${')"})
			at = len(v)
			break
		}
		at = r.end
		if r.escaped {
			b.WriteString("${")
			continue
		}
		val, err := lookup(r.body)
		if err != nil {
			e := &RefError{Start: r.start, End: r.end, Msg: err.Error()}
			if isName(r.body) {
				e.Var = r.body
			}
			errs = append(errs, e)
			continue
		}
		b.WriteString(val)
	}
	b.WriteString(v[at:])
	if len(errs) > 0 {
		return "", errs
	}
	return b.String(), nil
}

// lookup resolves the body of one reference.
func lookup(body string) (string, error) {
	if path, ok := strings.CutPrefix(body, "file:"); ok {
		if path == "" {
			return "", fmt.Errorf("${file:} names no file: write ${file:/path/to/secret}")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("${file:%s}: cannot read the file: %w", path, unwrapPath(err))
		}
		s := string(data)
		s = strings.TrimSuffix(s, "\n")
		s = strings.TrimSuffix(s, "\r")
		return s, nil
	}
	if !isName(body) {
		return "", fmt.Errorf("${%s} is not a reference: write ${NAME} for the environment variable NAME (letters, digits and '_'), or ${file:/path} for a file's contents", body)
	}
	val, ok := os.LookupEnv(body)
	if !ok {
		return "", fmt.Errorf("environment variable %s is not set", body)
	}
	return val, nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok { //nolint:errorlint // os.ReadFile returns *PathError itself
		return pe.Err
	}
	return err
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
