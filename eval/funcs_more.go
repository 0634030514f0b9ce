package eval

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The functions of expr/funcs_more.go, with Flink's semantics (its
// SqlFunctionUtils and built-in function classes).
func init() {
	for name, f := range map[string]builtin{
		"POSITION":              locate,
		"OVERLAY":               overlay,
		"REGEXP":                regexpFunc,
		"CHR":                   chr,
		"ENCODE":                encodeFunc,
		"DECODE":                decodeFunc,
		"FROM_BASE64":           fromBase64,
		"PARSE_URL":             parseURL,
		"ELT":                   elt,
		"TRANSLATE":             translate,
		"SPLIT":                 splitFunc,
		"IS_ALPHA":              isTest1(isAlpha),
		"IS_DIGIT":              isTest1(isDigits),
		"IS_DECIMAL":            isTest1(isJavaNumber),
		"TRUNCATE":              truncateFunc,
		"CURRENT_ROW_TIMESTAMP": now,
	} {
		if _, dup := functions[name]; dup {
			panic("eval: function " + name + " registered twice")
		}
		functions[name] = f
	}
	volatile["CURRENT_ROW_TIMESTAMP"] = true
}

// trimChars is TRIM, LTRIM and RTRIM: of spaces, or with a second argument
// of any of its characters (TRIM(BOTH 'xy' FROM s), LTRIM(s, 'xy')).
func trimChars(left, right bool) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if len(args) < 1 || len(args) > 2 {
			return nil, fmt.Errorf("eval: %s takes 1 or 2 arguments", e.Fn)
		}
		return strict(args, func(xs []row.Value) (row.Value, error) {
			s, cut := xs[0].Str(), " "
			if len(xs) == 2 {
				cut = xs[1].Str()
			}
			if left {
				s = strings.TrimLeft(s, cut)
			}
			if right {
				s = strings.TrimRight(s, cut)
			}
			return row.StrValue(s), nil
		}), nil
	}
}

// overlay is OVERLAY(s PLACING r FROM pos [FOR len]), Flink's: a pos
// outside 1 .. CHAR_LENGTH(s) gives s; len defaults to r's length; the
// rest of s after the replaced characters is kept only when len > 0 and it
// is not past the end.
func overlay(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		s, r := xs[0].Str(), xs[1].Str()
		sr := []rune(s)
		n := int64(len(sr))
		start := xs[2].Int()
		length := int64(utf8.RuneCountInString(r))
		if len(xs) == 4 {
			length = xs[3].Int()
		}
		if start <= 0 || start > n {
			return row.StrValue(s), nil
		}
		var b strings.Builder
		b.WriteString(string(sr[:start-1]))
		b.WriteString(r)
		if length > 0 && length <= n-start {
			b.WriteString(string(sr[start-1+length:]))
		}
		return row.StrValue(b.String()), nil
	}), nil
}

// regexpFunc is REGEXP(s, regex): whether some part of s matches; an empty
// regex, or one Java refuses too (read at run time), is FALSE, as Flink's.
func regexpFunc(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if args[1].konst && !args[1].v.IsNull() && args[1].v.Str() == "" {
		return strict(args, func([]row.Value) (row.Value, error) { return row.BoolValue(false), nil }), nil
	}
	get, err := regexArg("REGEXP", args[1], false)
	if err != nil {
		return nil, err
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		if xs[1].Str() == "" {
			return row.BoolValue(false), nil
		}
		re, err := get(xs[1].Str())
		if re == nil {
			return row.BoolValue(false), err
		}
		return row.BoolValue(re.MatchString(xs[0].Str())), nil
	}), nil
}

// chr is CHR(n), Flink's: ” for a negative n, else the character of code
// n modulo 256 (Latin-1).
func chr(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return un(args[0], func(x row.Value) (row.Value, error) {
		n := x.Int()
		if n < 0 {
			return row.StrValue(""), nil
		}
		return row.StrValue(string(rune(n & 0xFF))), nil
	}), nil
}

// charsetArg returns the canonical charset of a charset argument: checked
// once when constant, per row otherwise.
func charsetArg(fn string, a node) (func(string) (string, error), error) {
	check := func(name string) (string, error) {
		c, ok := expr.CharsetOf(name)
		if !ok {
			return "", errorf(ErrInvalidArgument, "%s: unsupported charset '%s': use one of %s", fn, name, strings.Join(expr.Charsets, ", "))
		}
		return c, nil
	}
	if a.konst && !a.v.IsNull() {
		c, err := check(a.v.Str())
		if err != nil {
			return nil, err
		}
		return func(string) (string, error) { return c, nil }, nil
	}
	return check, nil
}

// encodeFunc is ENCODE(s, charset): Java's String.getBytes(charset), a
// character the charset lacks becoming '?'; UTF-16 writes the big-endian
// byte order mark first.
func encodeFunc(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	cs, err := charsetArg("ENCODE", args[1])
	if err != nil {
		return nil, err
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		c, err := cs(xs[1].Str())
		if err != nil {
			return row.NullValue, err
		}
		return row.StrValue(string(encodeCharset(xs[0].Str(), c))), nil
	}), nil
}

func encodeCharset(s, charset string) []byte {
	var out []byte
	switch charset {
	case "UTF-8":
		return []byte(s)
	case "US-ASCII", "ISO-8859-1":
		top := rune(0x7F)
		if charset == "ISO-8859-1" {
			top = 0xFF
		}
		for _, r := range s {
			if r > top {
				r = '?'
			}
			out = append(out, byte(r))
		}
		return out
	}
	if charset == "UTF-16" {
		out = append(out, 0xFE, 0xFF)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if charset == "UTF-16LE" {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	return out
}

// decodeFunc is DECODE(bytes, charset): Java's new String(bytes, charset),
// bytes that are no character becoming U+FFFD; UTF-16 reads a byte order
// mark, big-endian without one.
func decodeFunc(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	cs, err := charsetArg("DECODE", args[1])
	if err != nil {
		return nil, err
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		c, err := cs(xs[1].Str())
		if err != nil {
			return row.NullValue, err
		}
		return row.StrValue(decodeCharset([]byte(xs[0].Str()), c)), nil
	}), nil
}

func decodeCharset(b []byte, charset string) string {
	var sb strings.Builder
	switch charset {
	case "UTF-8":
		return validUTF8(string(b))
	case "US-ASCII", "ISO-8859-1":
		for _, c := range b {
			if c > 0x7F && charset == "US-ASCII" {
				sb.WriteRune(utf8.RuneError)
				continue
			}
			sb.WriteRune(rune(c))
		}
		return sb.String()
	}
	little := charset == "UTF-16LE"
	if charset == "UTF-16" && len(b) >= 2 {
		switch {
		case b[0] == 0xFE && b[1] == 0xFF:
			b = b[2:]
		case b[0] == 0xFF && b[1] == 0xFE:
			b, little = b[2:], true
		}
	}
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if little {
			units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
		} else {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		}
	}
	sb.WriteString(string(utf16.Decode(units)))
	if len(b)%2 == 1 {
		sb.WriteRune(utf8.RuneError)
	}
	return sb.String()
}

// validUTF8 replaces each byte that is not part of a UTF-8 character by
// U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		sb.WriteRune(r) // an invalid byte ranges as RuneError
	}
	return sb.String()
}

// fromBase64 is FROM_BASE64(s): Java's Base64 decoder (the basic alphabet,
// padding optional but complete when present, no line breaks); text that is
// not base64 is an error, as in Flink, refused by check when constant.
func fromBase64(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	dec := func(s string) (row.Value, error) {
		enc := base64.RawStdEncoding
		if strings.Contains(s, "=") {
			enc = base64.StdEncoding
		}
		var b []byte
		var err error
		if strings.ContainsAny(s, "\r\n") {
			err = fmt.Errorf("a line break")
		} else {
			b, err = enc.DecodeString(s)
		}
		if err != nil {
			return row.NullValue, errorf(ErrInvalidArgument, "FROM_BASE64: '%s' is not base64 text (%v)", s, err)
		}
		return row.StrValue(validUTF8(string(b))), nil
	}
	if args[0].konst && !args[0].v.IsNull() {
		if _, err := dec(args[0].v.Str()); err != nil {
			return nil, err
		}
	}
	return un(args[0], func(x row.Value) (row.Value, error) { return dec(x.Str()) }), nil
}

// javaURL is a URL as java.net.URL reads one (the parts Flink's PARSE_URL
// returns); ok is false where Java throws MalformedURLException.
type javaURL struct {
	protocol, authority, userInfo, host, path string
	query, ref                                *string
	hasAuthority                              bool
}

// urlProtocols are the protocols java.net.URL has a handler for (in a JVM
// without extra handlers); another is a MalformedURLException.
var urlProtocols = map[string]bool{"http": true, "https": true, "ftp": true, "file": true, "jar": true, "mailto": true}

var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

func parseJavaURL(spec string) (javaURL, bool) {
	var u javaURL
	spec = strings.TrimFunc(spec, func(r rune) bool { return r <= ' ' })
	if len(spec) >= 4 && strings.EqualFold(spec[:4], "url:") {
		spec = spec[4:]
	}
	m := schemeRE.FindString(spec)
	if m == "" {
		return u, false
	}
	u.protocol = strings.ToLower(m[:len(m)-1])
	if !urlProtocols[u.protocol] {
		return u, false
	}
	rest := spec[len(m):]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		ref := rest[i+1:]
		u.ref, rest = &ref, rest[:i]
	}
	if u.protocol == "jar" || u.protocol == "mailto" {
		// Their own parsers: the whole rest is the path (a jar URL needs
		// its "!/").
		u.path = rest
		return u, u.protocol == "mailto" || strings.Contains(rest, "!/")
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		q := rest[i+1:]
		u.query, rest = &q, rest[:i]
	}
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		u.authority, u.hasAuthority = rest[:end], true
		rest = rest[end:]
		hostPort := u.authority
		if i := strings.LastIndexByte(hostPort, '@'); i >= 0 {
			u.userInfo, hostPort = hostPort[:i], hostPort[i+1:]
		}
		if strings.HasPrefix(hostPort, "[") {
			i := strings.IndexByte(hostPort, ']')
			if i < 0 {
				return u, false
			}
			u.host, hostPort = hostPort[:i+1], hostPort[i+1:]
			if hostPort != "" && !strings.HasPrefix(hostPort, ":") {
				return u, false
			}
		} else if i := strings.IndexByte(hostPort, ':'); i >= 0 {
			u.host, hostPort = hostPort[:i], hostPort[i:]
		} else {
			u.host, hostPort = hostPort, ""
		}
		if port, ok := strings.CutPrefix(hostPort, ":"); ok {
			for _, c := range port {
				if c < '0' || c > '9' {
					return u, false
				}
			}
		}
	}
	u.path = rest
	return u, true
}

// parseURL is PARSE_URL(url, part [, key]), Flink's: the part of the URL as
// java.net.URL gives it (NULL when Java cannot read the URL, or the part is
// absent); with a key, part must be QUERY and the result is the value of
// the first key=value in the query.
func parseURL(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		u, ok := parseJavaURL(xs[0].Str())
		if !ok {
			return row.NullValue, nil
		}
		part := xs[1].Str()
		opt := func(p *string) (row.Value, error) {
			if p == nil {
				return row.NullValue, nil
			}
			return row.StrValue(*p), nil
		}
		if len(xs) == 3 {
			if part != "QUERY" || u.query == nil {
				return row.NullValue, nil
			}
			key := xs[2].Str()
			for _, kv := range strings.Split(*u.query, "&") {
				if v, ok := strings.CutPrefix(kv, key+"="); ok {
					return row.StrValue(v), nil
				}
			}
			return row.NullValue, nil
		}
		switch part {
		case "HOST":
			return row.StrValue(u.host), nil
		case "PATH":
			return row.StrValue(u.path), nil
		case "QUERY":
			return opt(u.query)
		case "REF":
			return opt(u.ref)
		case "PROTOCOL":
			return row.StrValue(u.protocol), nil
		case "FILE":
			if u.query != nil {
				return row.StrValue(u.path + "?" + *u.query), nil
			}
			return row.StrValue(u.path), nil
		case "AUTHORITY":
			if !u.hasAuthority {
				return row.NullValue, nil
			}
			return row.StrValue(u.authority), nil
		case "USERINFO":
			if !u.hasAuthority || !strings.Contains(u.authority, "@") {
				return row.NullValue, nil
			}
			return row.StrValue(u.userInfo), nil
		}
		return row.NullValue, nil
	}), nil
}

// elt is ELT(n, e1, e2, ...): the n-th value, NULL when n is NULL or out
// of range.
func elt(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	fs := funcsOf(args)
	return func(vals []row.Value) (row.Value, error) {
		n, err := fs[0](vals)
		if err != nil || n.IsNull() {
			return row.NullValue, err
		}
		if i := n.Int(); i >= 1 && i < int64(len(fs)) {
			return fs[i](vals)
		}
		return row.NullValue, nil
	}, nil
}

// translate is TRANSLATE(s, from, to), Flink's TranslateFunction: each
// character of s found in from (its first place there) becomes the
// character at that place of to, or is dropped when to is shorter. A NULL
// s is NULL; a NULL from leaves s as it is; a NULL to is ”.
func translate(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	fs := funcsOf(args)
	return func(vals []row.Value) (row.Value, error) {
		var xs [3]row.Value
		for i, f := range fs {
			x, err := f(vals)
			if err != nil {
				return row.NullValue, err
			}
			xs[i] = x
		}
		if xs[0].IsNull() || xs[1].IsNull() {
			return xs[0], nil
		}
		from, to := []rune(xs[1].Str()), []rune(xs[2].Str())
		var b strings.Builder
		for _, r := range xs[0].Str() {
			i := -1
			for j, f := range from {
				if f == r {
					i = j
					break
				}
			}
			switch {
			case i < 0:
				b.WriteRune(r)
			case i < len(to):
				b.WriteRune(to[i])
			}
		}
		return row.StrValue(b.String()), nil
	}, nil
}

// splitFunc is SPLIT(s, delimiter), Flink's SplitFunction: the pieces of s at
// every whole delimiter, empty ones kept (” gives an empty array); an
// empty delimiter gives each character.
func splitFunc(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		s, sep := xs[0].Str(), xs[1].Str()
		var parts []string
		switch {
		case sep == "":
			for _, r := range s {
				parts = append(parts, string(r))
			}
		case s != "":
			parts = strings.Split(s, sep)
		}
		vals := make([]row.Value, len(parts))
		for i, p := range parts {
			vals[i] = row.StrValue(p)
		}
		return row.ListValue(vals), nil
	}), nil
}

// isTest1 is IS_ALPHA, IS_DIGIT and IS_DECIMAL: FALSE for NULL, as
// Flink's.
func isTest1(f func(string) bool) builtin {
	return func(_ *compiler, _ *expr.Call, args []node) (Func, error) {
		a := args[0].f
		return func(vals []row.Value) (row.Value, error) {
			x, err := a(vals)
			if err != nil {
				return row.NullValue, err
			}
			return row.BoolValue(!x.IsNull() && f(x.Str())), nil
		}, nil
	}
}

// isAlpha is Apache Commons' StringUtils.isAlpha: not empty, every
// character a letter (Java's char: one beyond U+FFFF is two surrogates,
// no letters).
func isAlpha(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r > 0xFFFF || !unicode.IsLetter(r) }) < 0
}

// isDigits is StringUtils.isNumeric: not empty, every character a decimal
// digit (of any script).
func isDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r > 0xFFFF || !unicode.IsDigit(r) }) < 0
}

// javaDouble is what Java's Double.parseDouble reads (after trimming
// characters up to ' '): a decimal or hexadecimal floating-point number,
// NaN or Infinity, with an optional f, F, d or D suffix.
var javaDouble = regexp.MustCompile(`^[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|0[xX]([0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)$`)

// isJavaNumber is Flink's IS_DECIMAL of a string: Integer.parseInt,
// Long.parseLong (digits of any script, an optional sign, within a long)
// or Double.parseDouble accept it.
func isJavaNumber(s string) bool {
	if s == "" {
		return false
	}
	body := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if len(body) < len(s)-1 {
		body = ""
	}
	if body != "" && strings.IndexFunc(body, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		var n uint64
		ok := true
		for _, r := range body {
			d := uint64(digitValue(r))
			if n > (1<<63-d)/10 { // past -2^63 already
				ok = false
				break
			}
			n = n*10 + d
		}
		if ok && (n < 1<<63 || strings.HasPrefix(s, "-")) {
			return true
		}
	}
	return javaDouble.MatchString(strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }))
}

// digitValue is the value of a decimal digit of any script.
func digitValue(r rune) int {
	for _, rt := range unicode.Nd.R16 {
		if rune(rt.Lo) <= r && r <= rune(rt.Hi) {
			return int(r-rune(rt.Lo)) % 10
		}
	}
	for _, rt := range unicode.Nd.R32 {
		if rune(rt.Lo) <= r && r <= rune(rt.Hi) {
			return int(r-rune(rt.Lo)) % 10
		}
	}
	return 0
}

// truncateFunc is TRUNCATE(n [, d]): n cut toward zero to d decimal places
// (0 without d); a negative d zeroes digits left of the point. The result
// has the type the binder chose (ROUND's).
func truncateFunc(_ *compiler, e *expr.Call, args []node) (Func, error) {
	t := args[0].t
	if t.Kind == types.Null || len(args) == 2 && args[1].t.Kind == types.Null {
		return nullFunc, nil
	}
	digits := constNode(row.IntValue(0), types.New(types.Int))
	if len(args) == 2 {
		digits = args[1]
	}
	out := e.T
	return bin(args[0], digits, func(x, y row.Value) (row.Value, error) {
		d := y.Int()
		switch {
		case t.Kind == types.Decimal:
			u, s := x.Int(), int64(t.Scale)
			if cut := s - d; cut > 0 {
				if cut > MaxDecimalDigits {
					u = 0
				} else {
					u = u / pow10[cut] * pow10[cut]
				}
			}
			if drop := s - int64(out.Scale); drop > 0 {
				u /= pow10[drop]
			}
			return row.IntValue(u), nil
		case t.Kind.IsIntegral():
			u := x.Int()
			if d < 0 {
				if -d > MaxDecimalDigits {
					return row.IntValue(0), nil
				}
				u = u / pow10[-d] * pow10[-d]
			}
			return row.IntValue(u), nil
		}
		f := x.Float()
		bits := 64
		if t.Kind == types.Float {
			bits = 32
		}
		txt := strconv.FormatFloat(f, 'f', -1, bits)
		if strings.ContainsAny(txt, "NI") { // NaN, ±Inf
			return row.NullValue, errorf(ErrInvalidArgument, "TRUNCATE of %s", txt)
		}
		r, err := strconv.ParseFloat(truncateDecimalText(txt, d), 64)
		if err != nil {
			return row.NullValue, err
		}
		if bits == 32 {
			r = float64(float32(r))
		}
		return row.FloatValue(r), nil
	}), nil
}

// truncateDecimalText cuts a plain decimal text ("-12.345") to d places.
func truncateDecimalText(s string, d int64) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ip, fp, _ := strings.Cut(s, ".")
	switch {
	case d >= 0:
		if int64(len(fp)) > d {
			fp = fp[:d]
		}
	case -d >= int64(len(ip)):
		ip, fp = "0", ""
	default:
		n := int64(len(ip)) + d
		ip, fp = ip[:n]+strings.Repeat("0", int(-d)), ""
	}
	if fp != "" {
		ip += "." + fp
	}
	if neg {
		return "-" + ip
	}
	return ip
}
