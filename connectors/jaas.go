package connectors

import (
	"errors"
	"fmt"
	"strings"
)

// JAAS is a parsed 'properties.sasl.jaas.config': one login module, as
// Kafka's clients read it:
//
//	org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="…";
//
// Flink's shaded class names (org.apache.flink.kafka.shaded.org.apache.kafka…)
// are the same modules.
type JAAS struct {
	// LoginModule is the class as written.
	LoginModule string
	// Flag is required, requisite, sufficient or optional, lower-cased.
	Flag string
	// Options are the module's options: username, password, clientId, ….
	Options map[string]string
}

// Login modules by the last part of their class name, and the SASL
// mechanisms they serve.
const (
	PlainLoginModule       = "PlainLoginModule"
	ScramLoginModule       = "ScramLoginModule"
	OAuthBearerLoginModule = "OAuthBearerLoginModule"
	IAMLoginModule         = "IAMLoginModule"
)

// Module is the last part of the login module's class name, such as
// "ScramLoginModule".
func (j *JAAS) Module() string {
	return j.LoginModule[strings.LastIndexByte(j.LoginModule, '.')+1:]
}

// ParseJAAS reads a JAAS configuration of one login module. Its errors say
// where the text goes wrong, but never repeat an option's value: the value
// may be a password.
func ParseJAAS(v string) (*JAAS, error) {
	toks, err := jaasTokens(v)
	if err != nil {
		return nil, err
	}
	word := func(i int) (string, bool) {
		if i < len(toks) && !toks[i].quoted && !toks[i].punct {
			return toks[i].text, true
		}
		return "", false
	}
	j := &JAAS{Options: map[string]string{}}
	var ok bool
	if j.LoginModule, ok = word(0); !ok {
		return nil, errors.New("must start with a login module class, e.g. org.apache.kafka.common.security.scram.ScramLoginModule")
	}
	flag, ok := word(1)
	switch f := strings.ToLower(flag); {
	case !ok:
		return nil, fmt.Errorf("the login module %s must be followed by a control flag, usually 'required'", j.LoginModule)
	case f == "required" || f == "requisite" || f == "sufficient" || f == "optional":
		j.Flag = f
	default:
		return nil, fmt.Errorf("the login module %s must be followed by a control flag (required, requisite, sufficient or optional), not %q", j.LoginModule, flag)
	}
	i := 2
	for {
		if i >= len(toks) {
			return nil, errors.New("must end with ';'")
		}
		if toks[i].punct && toks[i].text == ";" {
			i++
			break
		}
		key, ok := word(i)
		if !ok {
			return nil, fmt.Errorf("expected an option name after the module's flag or after an option, in the form name=\"value\"")
		}
		if i+2 >= len(toks) || !toks[i+1].punct || toks[i+1].text != "=" || toks[i+2].punct {
			return nil, fmt.Errorf("option %s must be written %s=\"value\"", key, key)
		}
		if _, dup := j.Options[key]; dup {
			return nil, fmt.Errorf("option %s is given twice", key)
		}
		j.Options[key] = toks[i+2].text
		i += 3
	}
	if i < len(toks) {
		return nil, errors.New("holds more than one login module; Kafka takes exactly one")
	}
	return j, nil
}

type jaasToken struct {
	text   string
	quoted bool
	punct  bool // '=' or ';'
}

// jaasTokens splits a JAAS text into words, quoted strings ("…" or '…',
// with backslash escapes), '=' and ';'. Comments (// and /* */) are
// skipped, as Kafka's parser does.
func jaasTokens(v string) ([]jaasToken, error) {
	var out []jaasToken
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(v[i:], "//"):
			j := strings.IndexByte(v[i:], '\n')
			if j < 0 {
				i = len(v)
			} else {
				i += j
			}
		case strings.HasPrefix(v[i:], "/*"):
			j := strings.Index(v[i+2:], "*/")
			if j < 0 {
				return nil, errors.New("a comment /* is not closed")
			}
			i += 2 + j + 2
		case c == '=' || c == ';':
			out = append(out, jaasToken{text: string(c), punct: true})
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(v) && v[j] != c; j++ {
				if v[j] == '\\' && j+1 < len(v) {
					j++
				}
				b.WriteByte(v[j])
			}
			if j >= len(v) {
				what := "a value"
				if n := len(out); n >= 2 && out[n-1].punct && out[n-1].text == "=" {
					what = "the value of option " + out[n-2].text
				}
				return nil, fmt.Errorf("%s starts with %c but has no closing %c", what, c, c)
			}
			out = append(out, jaasToken{text: b.String(), quoted: true})
			i = j + 1
		default:
			j := i
			for j < len(v) && !strings.ContainsRune(" \t\r\n=;\"'", rune(v[j])) {
				j++
			}
			out = append(out, jaasToken{text: v[i:j]})
			i = j
		}
	}
	return out, nil
}
