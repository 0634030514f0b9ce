package faker

import (
	"fmt"
	mrand "math/rand/v2"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// Expr is a parsed 'fields.<column>.expression': literal text and
// #{Provider.method 'arg', ...} calls, as Java Faker's expression() reads
// them.
type Expr struct {
	Text  string
	parts []part
}

type part struct {
	lit  string
	call *call
}

type call struct {
	text string // as written, for messages
	p    *provider
	args []string
}

// gen is what a provider draws from: the row's faker and random numbers
// (one source), and the clock.
type gen struct {
	f   *gofakeit.Faker
	r   *mrand.Rand
	now int64 // milliseconds
}

// result is a provider's value: text, or a time (milliseconds) from the
// date providers.
type result struct {
	s      string
	ms     int64
	isTime bool
}

type provider struct {
	name       string // as documented
	usage      string
	minA, maxA int
	// check validates the arguments when the expression is parsed.
	check func(args []string) error
	run   func(g *gen, args []string) result
}

func text(f func(g *gen) string) func(*gen, []string) result {
	return func(g *gen, _ []string) result { return result{s: f(g)} }
}

var providers = map[string]*provider{}

func reg(name, usage string, minA, maxA int, check func([]string) error, run func(*gen, []string) result) {
	providers[normalize(name)] = &provider{name: name, usage: usage, minA: minA, maxA: maxA, check: check, run: run}
}

// normalize is how Java Faker matches names: case and underscores do not
// matter (Name.full_name is Name.fullName).
func normalize(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

func ints(args []string) error {
	for _, a := range args {
		if _, err := strconv.ParseInt(a, 10, 64); err != nil {
			return fmt.Errorf("'%s' is not a whole number", a)
		}
	}
	return nil
}

func atoi(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

// timeUnits are Java's TimeUnit names, in milliseconds.
var timeUnits = map[string]int64{"MILLISECONDS": 1, "SECONDS": 1000, "MINUTES": 60_000, "HOURS": 3_600_000, "DAYS": 86_400_000}

func dateArgs(args []string) error {
	if err := ints(args[:len(args)-1]); err != nil {
		return err
	}
	if _, ok := timeUnits[strings.ToUpper(args[len(args)-1])]; !ok {
		return fmt.Errorf("the unit '%s' is none of MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS", args[len(args)-1])
	}
	if len(args) == 3 && atoi(args[1]) > atoi(args[0]) {
		return fmt.Errorf("the minimum %s is above the maximum %s", args[1], args[0])
	}
	if atoi(args[0]) < 1 {
		return fmt.Errorf("the maximum must be at least 1")
	}
	return nil
}

// dateSpan is Java Faker's: past(atMost, [minimum,] unit) is a time more
// than minimum (default 0) and less than atMost units before now;
// future(...) the same after now.
func dateSpan(future bool) func(*gen, []string) result {
	return func(g *gen, args []string) result {
		unit := timeUnits[strings.ToUpper(args[len(args)-1])]
		hi, lo := atoi(args[0])*unit, int64(0)
		if len(args) == 3 {
			lo = atoi(args[1]) * unit
		}
		d := lo
		if hi-lo > 1 {
			d = lo + 1 + g.r.Int64N(hi-lo-1)
		}
		if future {
			return result{ms: g.now + d, isTime: true}
		}
		return result{ms: g.now - d, isTime: true}
	}
}

func init() {
	reg("Name.firstName", "", 0, 0, nil, text(func(g *gen) string { return g.f.FirstName() }))
	reg("Name.lastName", "", 0, 0, nil, text(func(g *gen) string { return g.f.LastName() }))
	reg("Name.fullName", "", 0, 0, nil, text(func(g *gen) string { return g.f.FirstName() + " " + g.f.LastName() }))
	reg("Name.name", "", 0, 0, nil, text(func(g *gen) string { return g.f.FirstName() + " " + g.f.LastName() }))
	reg("Name.username", "", 0, 0, nil, text(func(g *gen) string { return g.f.Username() }))
	reg("Name.nameWithMiddle", "", 0, 0, nil, text(func(g *gen) string {
		return g.f.FirstName() + " " + g.f.MiddleName() + " " + g.f.LastName()
	}))
	reg("Name.prefix", "", 0, 0, nil, text(func(g *gen) string { return g.f.NamePrefix() }))
	reg("Name.suffix", "", 0, 0, nil, text(func(g *gen) string { return g.f.NameSuffix() }))
	// Java Faker's title is a descriptor, a level and a job: "Lead
	// Branding Agent".
	reg("Name.title", "", 0, 0, nil, text(func(g *gen) string {
		return g.f.JobDescriptor() + " " + g.f.JobLevel() + " " + g.f.JobTitle()
	}))
	reg("Internet.publicIpV4Address", "", 0, 0, nil, text(publicIPv4))
	reg("Internet.ipV4Address", "", 0, 0, nil, text(func(g *gen) string { return g.f.IPv4Address() }))
	reg("Internet.userAgentAny", "", 0, 0, nil, text(func(g *gen) string { return g.f.UserAgent() }))
	reg("Internet.uuid", "", 0, 0, nil, text(func(g *gen) string { return g.f.UUID() }))
	reg("Internet.emailAddress", "", 0, 0, nil, text(func(g *gen) string { return g.f.Email() }))
	reg("Internet.domainName", "", 0, 0, nil, text(func(g *gen) string { return g.f.DomainName() }))
	reg("Internet.url", "", 0, 0, nil, text(func(g *gen) string { return g.f.URL() }))
	reg("Address.city", "", 0, 0, nil, text(func(g *gen) string { return g.f.City() }))
	reg("Address.country", "", 0, 0, nil, text(func(g *gen) string { return g.f.Country() }))
	reg("Address.state", "", 0, 0, nil, text(func(g *gen) string { return g.f.State() }))
	reg("Address.zipCode", "", 0, 0, nil, text(func(g *gen) string { return g.f.Zip() }))
	reg("Address.streetAddress", "", 0, 0, nil, text(func(g *gen) string { return g.f.Street() }))
	reg("Address.buildingNumber", "", 0, 0, nil, text(func(g *gen) string { return g.f.StreetNumber() }))
	// Java Faker's street suffix is gofakeit's street name (Avenue,
	// Bridge, …); its street name a last name and one: "Kuhn Avenue".
	reg("Address.streetName", "", 0, 0, nil, text(func(g *gen) string { return g.f.LastName() + " " + g.f.StreetName() }))
	reg("Address.streetSuffix", "", 0, 0, nil, text(func(g *gen) string { return g.f.StreetName() }))
	reg("Address.stateAbbr", "", 0, 0, nil, text(func(g *gen) string { return g.f.StateAbr() }))
	reg("Address.countryCode", "", 0, 0, nil, text(func(g *gen) string { return g.f.CountryAbr() }))
	reg("Address.fullAddress", "", 0, 0, nil, text(func(g *gen) string {
		a := g.f.Address()
		return fmt.Sprintf("%s, %s, %s %s", a.Street, a.City, a.State, a.Zip)
	}))
	reg("Currency.code", "", 0, 0, nil, text(func(g *gen) string { return g.f.CurrencyShort() }))
	reg("Commerce.productName", "", 0, 0, nil, text(func(g *gen) string { return g.f.ProductName() }))
	reg("Company.name", "", 0, 0, nil, text(func(g *gen) string { return g.f.Company() }))
	reg("Job.title", "", 0, 0, nil, text(func(g *gen) string { return g.f.JobTitle() }))
	reg("Color.name", "", 0, 0, nil, text(func(g *gen) string { return g.f.Color() }))
	reg("Lorem.word", "", 0, 0, nil, text(func(g *gen) string { return g.f.LoremIpsumWord() }))
	reg("Lorem.sentence", "", 0, 0, nil, text(func(g *gen) string { return g.f.LoremIpsumSentence(6) }))
	reg("PhoneNumber.cellPhone", "", 0, 0, nil, text(func(g *gen) string { return g.f.Phone() }))
	reg("Bool.bool", "", 0, 0, nil, text(func(g *gen) string { return strconv.FormatBool(g.f.Bool()) }))
	reg("Number.randomDigit", "", 0, 0, nil, text(func(g *gen) string { return strconv.Itoa(g.r.IntN(10)) }))
	reg("Number.digits", "'n'", 1, 1, func(a []string) error {
		if err := ints(a); err != nil || atoi(a[0]) < 1 || atoi(a[0]) > 18 {
			return fmt.Errorf("the number of digits must be 1 to 18")
		}
		return nil
	}, func(g *gen, a []string) result {
		n := atoi(a[0])
		lo := int64(1)
		for range n - 1 {
			lo *= 10
		}
		return result{s: strconv.FormatInt(lo+g.r.Int64N(lo*9), 10)}
	})
	reg("Number.numberBetween", "'min', 'max' (max excluded)", 2, 2, func(a []string) error {
		if err := ints(a); err != nil {
			return err
		}
		if atoi(a[1]) < atoi(a[0]) {
			return fmt.Errorf("the maximum %s is below the minimum %s", a[1], a[0])
		}
		return nil
	}, func(g *gen, a []string) result {
		lo, hi := atoi(a[0]), atoi(a[1])
		if hi <= lo {
			return result{s: a[0]}
		}
		return result{s: strconv.FormatInt(lo+g.r.Int64N(hi-lo), 10)}
	})
	reg("Number.randomDouble", "'decimals', 'min', 'max'", 3, 3, func(a []string) error {
		if err := ints(a); err != nil {
			return err
		}
		if atoi(a[2]) < atoi(a[1]) {
			return fmt.Errorf("the maximum %s is below the minimum %s", a[2], a[1])
		}
		if atoi(a[0]) < 0 || atoi(a[0]) > 15 {
			return fmt.Errorf("the number of decimals must be 0 to 15")
		}
		return nil
	}, func(g *gen, a []string) result {
		lo, hi := float64(atoi(a[1])), float64(atoi(a[2]))
		return result{s: strconv.FormatFloat(lo+g.r.Float64()*(hi-lo), 'f', int(atoi(a[0])), 64)}
	})
	reg("date.past", "'atMost', ['minimum',] 'UNIT'", 2, 3, dateArgs, dateSpan(false))
	reg("date.future", "'atMost', ['minimum',] 'UNIT'", 2, 3, dateArgs, dateSpan(true))
	reg("regexify", "'regular expression'", 1, 1, func(a []string) error {
		re, err := syntax.Parse(a[0], syntax.Perl)
		if err != nil {
			return fmt.Errorf("the regular expression '%s' does not parse: %w", a[0], err)
		}
		if hasUnbounded(re) {
			return fmt.Errorf("the regular expression '%s' repeats without bound (*, + or {n,}): give a bound, e.g. {1,5}", a[0])
		}
		return nil
	}, func(g *gen, a []string) result { return result{s: g.f.Regex(a[0])} })
	reg("Options.option", "'a', 'b', ...", 1, -1, nil, func(g *gen, a []string) result { return result{s: a[g.r.IntN(len(a))]} })
	registerLists()
}

// hasUnbounded reports whether re repeats something without an upper
// bound, which a generator has to cut off somewhere of its own choosing.
func hasUnbounded(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus:
		return true
	case syntax.OpRepeat:
		if re.Max < 0 {
			return true
		}
	default:
	}
	for _, s := range re.Sub {
		if hasUnbounded(s) {
			return true
		}
	}
	return false
}

// publicIPv4 draws IPv4 addresses until one is public (not private,
// loopback, link-local, multicast, reserved or 0/8), as Java Faker's
// publicIpV4Address promises.
func publicIPv4(g *gen) string {
	for {
		a, b := g.r.IntN(256), g.r.IntN(256)
		switch {
		case a == 0, a == 10, a == 127, a >= 224, a == 169 && b == 254, a == 172 && b >= 16 && b < 32, a == 192 && b == 168,
			a == 100 && b >= 64 && b < 128:
			continue
		}
		return fmt.Sprintf("%d.%d.%d.%d", a, b, g.r.IntN(256), g.r.IntN(256))
	}
}

// Supported lists the supported expressions, for messages and docs.
func Supported() []string {
	var out []string
	for _, p := range providers {
		s := "#{" + p.name
		if p.usage != "" {
			s += " " + p.usage
		}
		out = append(out, s+"}")
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

// Parse reads an expression. Its error names the call that is not
// supported or is called wrongly.
func Parse(s string) (*Expr, error) {
	e := &Expr{Text: s}
	rest := s
	for rest != "" {
		i := strings.Index(rest, "#{")
		if i < 0 {
			e.parts = append(e.parts, part{lit: rest})
			break
		}
		if i > 0 {
			e.parts = append(e.parts, part{lit: rest[:i]})
		}
		c, n, err := parseCall(rest[i:])
		if err != nil {
			return nil, err
		}
		e.parts = append(e.parts, part{call: c})
		rest = rest[i+n:]
	}
	if len(e.parts) == 0 {
		return nil, fmt.Errorf("the expression is empty")
	}
	return e, nil
}

// parseCall reads #{name 'arg', 'arg'} at the start of s and returns its
// length.
func parseCall(s string) (*call, int, error) {
	i := 2
	for i < len(s) && s[i] != ' ' && s[i] != '}' {
		i++
	}
	name := s[2:i]
	var args []string
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			return nil, 0, fmt.Errorf("'%s' has no closing }", s)
		}
		if s[i] == '}' {
			break
		}
		if s[i] != '\'' {
			return nil, 0, fmt.Errorf("in '#{%s ...}', the arguments must be in single quotes", name)
		}
		// An argument runs to the next quote; two quotes are one.
		var b strings.Builder
		j := i + 1
		for ; j < len(s); j++ {
			if s[j] == '\'' {
				if j+1 < len(s) && s[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				break
			}
			b.WriteByte(s[j])
		}
		if j >= len(s) {
			return nil, 0, fmt.Errorf("in '#{%s ...}', an argument has no closing quote", name)
		}
		args = append(args, b.String())
		i = j + 1
	}
	text := s[:i+1]
	p, ok := providers[normalize(name)]
	if !ok {
		return nil, 0, &UnknownError{Call: text}
	}
	if len(args) < p.minA || p.maxA >= 0 && len(args) > p.maxA {
		return nil, 0, fmt.Errorf("%s takes %s, as in #{%s %s}", text, arity(p), p.name, p.usage)
	}
	if p.check != nil {
		if err := p.check(args); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", text, err)
		}
	}
	return &call{text: text, p: p, args: args}, i + 1, nil
}

func arity(p *provider) string {
	switch {
	case p.minA == p.maxA:
		return fmt.Sprintf("%d arguments", p.minA)
	case p.maxA < 0:
		return fmt.Sprintf("at least %d arguments", p.minA)
	}
	return fmt.Sprintf("%d to %d arguments", p.minA, p.maxA)
}

// UnknownError is an expression that names no supported provider.
type UnknownError struct{ Call string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("%s is not a supported faker expression", e.Call)
}

// eval computes the expression for one row: its text, or the time of a
// lone date call.
func (e *Expr) eval(g *gen) result {
	if len(e.parts) == 1 && e.parts[0].call != nil {
		c := e.parts[0].call
		return c.p.run(g, c.args)
	}
	var b strings.Builder
	for _, p := range e.parts {
		if p.call == nil {
			b.WriteString(p.lit)
			continue
		}
		r := p.call.p.run(g, p.call.args)
		if r.isTime {
			b.WriteString(time.UnixMilli(r.ms).UTC().Format("2006-01-02 15:04:05.000"))
		} else {
			b.WriteString(r.s)
		}
	}
	return result{s: b.String()}
}
