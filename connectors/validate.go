package connectors

import (
	"strings"
	"time"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/secret"
)

// Config is a checked WITH clause: the connector and formats it names, and
// its options. Values of options with Choices are stored in their canonical
// spelling.
type Config struct {
	// Spec is the connector named by 'connector'.
	Spec *ConnectorSpec
	// Format is the format of the rows (Kafka: of record values), named by
	// 'format' or 'value.format'; nil when the connector takes none or it is
	// missing or unknown.
	Format *FormatSpec
	// KeyFormat is the format of Kafka record keys, named by 'key.format';
	// nil when not set.
	KeyFormat *FormatSpec
	// With is the span of the WITH clause, where errors about missing
	// options point.
	With diag.Span
	// Keyed is set when the table declares a PRIMARY KEY (the catalog sets
	// it): a sink whose spec has KeyedSinkAccepts then accepts that.
	Keyed bool

	opts    map[string]*ast.Option
	values  map[string]string
	formats map[string]*FormatSpec // by the option naming it
}

// Has reports whether the option was given.
func (c *Config) Has(key string) bool {
	_, ok := c.values[key]
	return ok
}

// Get returns the option's value, or its default when it was not given, or
// "" when it has neither.
func (c *Config) Get(key string) string {
	if v, ok := c.values[key]; ok {
		return v
	}
	if o := c.spec(key); o != nil {
		return o.Default
	}
	return ""
}

// Option returns the option as written (for positions), or nil when it was
// not given.
func (c *Config) Option(key string) *ast.Option { return c.opts[key] }

// Duration returns a duration option (given or default), and false when it
// has no value.
func (c *Config) Duration(key string) (time.Duration, bool) {
	v := c.Get(key)
	if v == "" {
		return 0, false
	}
	d, err := ParseDuration(v)
	return d, err == nil
}

// FormatOption returns an option of the table's (value) format by the part
// after the format's name ("ignore-parse-errors"): 'json.ignore-parse-errors',
// or 'value.json.ignore-parse-errors' when the table names its format with
// 'value.format' (Kafka), as Flink spells them. "" without a format.
func (c *Config) FormatOption(name string) string {
	if c.Format == nil {
		return ""
	}
	key := c.Format.Name + "." + name
	if c.Has("value.format") {
		key = "value." + key
	}
	return c.Get(key)
}

// Prefixed returns the options given under prefix, keyed by the rest of
// their key: Prefixed("properties.") gives the Kafka client properties.
func (c *Config) Prefixed(prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range c.values {
		if rest, ok := strings.CutPrefix(k, prefix); ok && rest != "" {
			out[rest] = v
		}
	}
	return out
}

// Keys returns the keys of the options given, sorted.
func (c *Config) Keys() []string { return sortedKeys(c.values) }

// Bounded reports whether a source with this configuration ends.
func (c *Config) Bounded() bool { return c.Spec.Bounded != nil && c.Spec.Bounded(c) }

// ValidateSource applies the rules that hold when the table is read (see
// ConnectorSpec.CheckSource) and reports whether they found no error. It
// does not check that the connector can be read at all: that is
// Spec.Source, which the caller reports at the place the table is used.
func (c *Config) ValidateSource(l *diag.List) bool {
	errs := l.Errors()
	if c.Spec.CheckSource != nil {
		c.Spec.CheckSource(c, l)
	}
	return l.Errors() == errs
}

// ValidateSink applies the rules that hold when the table is written (see
// ConnectorSpec.CheckSink) and reports whether they found no error. The
// caller checks Spec.Sink.
func (c *Config) ValidateSink(l *diag.List) bool {
	errs := l.Errors()
	if c.Spec.CheckSink != nil {
		c.Spec.CheckSink(c, l)
	}
	return l.Errors() == errs
}

// SourceMode is SourceModeName for this connector and format.
func (c *Config) SourceMode() string { return SourceModeName(c.Spec.Name, c.formatName()) }

// SinkMode is SinkModeName for this connector and format, or the spec's
// KeyedSinkAccepts for a table with a primary key.
func (c *Config) SinkMode() string {
	if c.Keyed && c.Spec.Sink && c.Spec.KeyedSinkAccepts != "" {
		return c.Spec.KeyedSinkAccepts
	}
	return SinkModeName(c.Spec.Name, c.formatName())
}

func (c *Config) formatName() string {
	if c.Format == nil {
		return ""
	}
	return c.Format.Name
}

// spec returns the spec of a key: the connector's, or the format's for
// format options.
func (c *Config) spec(key string) *OptionSpec {
	if o := c.Spec.option(key); o != nil {
		return o
	}
	for _, fk := range c.Spec.FormatOptions {
		f := c.formats[fk]
		if f == nil {
			continue
		}
		if rest, ok := strings.CutPrefix(key, formatKeyPrefix(fk)); ok {
			if o := findOption(f.Options, rest); o != nil {
				return o
			}
		}
	}
	return nil
}

// formatKeyPrefix is what precedes "<format>.<option>" for a format named by
// the option fk: "" for 'format', "key." for 'key.format'.
func formatKeyPrefix(fk string) string {
	return strings.TrimSuffix(fk, "format")
}

// Validate checks the options of a WITH clause and reports, with positions,
// everything wrong with them:
//
//   - Flink's legacy (pre-1.11) keys, 'connector.type' and the like (a
//     warning, diag.DeprecatedOption, at each; see translateLegacy), which
//     are then checked as the current keys they stand for;
//   - a missing 'connector' (diag.MissingOption at with), an unknown one
//     (diag.UnknownConnector at its value, with a suggestion);
//   - an option given twice (diag.DuplicateOption at the second key);
//   - an unknown format (diag.UnknownFormat at the value);
//   - an option the connector or its formats do not take
//     (diag.UnknownOption at the key, with a suggestion or the valid keys);
//   - a value that is not allowed (diag.InvalidOptionValue at the value);
//   - a missing required option (diag.MissingOption at with, with an example
//     to add), and the connector's cross-option rules.
//
// with is the span of the WITH clause, or of the statement when it has none.
// Validate returns the configuration whenever the connector is known, so
// that the caller can go on checking (the primary key, key.fields against
// the columns), and reports whether it found no error. Warnings, for options
// that have no effect, do not count as errors.
func Validate(opts []*ast.Option, with diag.Span, l *diag.List) (*Config, bool) {
	errs := l.Errors()
	opts = translateLegacy(opts, l)
	byKey := map[string]*ast.Option{}
	for _, o := range opts {
		k := o.Key.Value
		if first, dup := byKey[k]; dup {
			l.Errorf(diag.DuplicateOption, o.Key.Span(), "option '%s' is given twice", k).
				WithNote(first.Key.Span(), "first given here").
				WithHint("remove one of them")
			continue
		}
		byKey[k] = o
	}

	co, ok := byKey["connector"]
	if !ok {
		l.Errorf(diag.MissingOption, with, "missing option 'connector': the WITH clause must name the connector that reads or writes the table").
			WithHint("add 'connector' = '...', one of %s", quoteList(Names()))
		return nil, false
	}
	spec, ok := Lookup(co.Value.Value)
	if !ok {
		d := l.Errorf(diag.UnknownConnector, co.Value.Span(), "unknown connector '%s'", co.Value.Value)
		if s := diag.Suggest(co.Value.Value, Names()); s != "" {
			d.WithHint("did you mean '%s'?", s)
		}
		d.WithHint("known connectors: %s", strings.Join(Names(), ", "))
		return nil, false
	}

	c := &Config{Spec: spec, With: with, opts: byKey, values: map[string]string{}, formats: map[string]*FormatSpec{}}
	for _, fk := range spec.FormatOptions {
		o, ok := byKey[fk]
		if !ok {
			continue
		}
		f, ok := LookupFormat(o.Value.Value)
		if !ok {
			d := l.Errorf(diag.UnknownFormat, o.Value.Span(), "unknown format '%s'", o.Value.Value)
			if s := diag.Suggest(o.Value.Value, FormatNames()); s != "" {
				d.WithHint("did you mean '%s'?", s)
			}
			d.WithHint("known formats: %s", strings.Join(FormatNames(), ", "))
			continue
		}
		c.formats[fk] = f
		if fk == "key.format" {
			c.KeyFormat = f
		} else {
			c.Format = f
		}
		c.values[fk] = f.Name
	}

	for _, o := range opts {
		if byKey[o.Key.Value] == o && o != co && !hasString(spec.FormatOptions, o.Key.Value) {
			checkOption(c, o, l)
		}
	}
	c.values["connector"] = spec.Name

	for i := range spec.Options {
		o := &spec.Options[i]
		if o.Required && c.Option(o.Key) == nil {
			missing(c, l, o.Key, "connector '"+spec.Name+"' needs option '"+o.Key+"'", o.Example)
		}
	}
	if spec.Source {
		checkWatermarkOptions(c, l)
	}
	if spec.Check != nil {
		spec.Check(c, l)
	}
	return c, l.Errors() == errs
}

// checkOption checks one option that is neither 'connector' nor a format
// name, and records its value.
func checkOption(c *Config, o *ast.Option, l *diag.List) {
	key := o.Key.Value
	if spec := c.Spec.option(key); spec != nil {
		checkValue(c, spec, o, l)
		return
	}
	for _, fk := range c.Spec.FormatOptions {
		f := c.formats[fk]
		if f == nil {
			continue
		}
		p := formatKeyPrefix(fk)
		rest, ok := strings.CutPrefix(key, p+f.Name+".")
		if !ok {
			continue
		}
		if spec := findOption(f.Options, f.Name+"."+rest); spec != nil {
			checkValue(c, spec, o, l)
			return
		}
		cands := make([]string, 0, len(f.Options))
		for _, fo := range f.Options {
			cands = append(cands, p+fo.Key)
		}
		d := l.Errorf(diag.UnknownOption, o.Key.Span(), "unknown option '%s' for format '%s'", key, f.Name)
		if s := diag.Suggest(key, cands); s != "" {
			d.WithHint("did you mean '%s'?", s)
		} else {
			d.WithHint("options of format '%s': %s", f.Name, strings.Join(cands, ", "))
		}
		return
	}

	d := l.Errorf(diag.UnknownOption, o.Key.Span(), "unknown option '%s' for connector '%s'", key, c.Spec.Name)
	// An option of a format other than the one chosen.
	for _, fk := range c.Spec.FormatOptions {
		p := formatKeyPrefix(fk)
		for _, name := range FormatNames() {
			if !strings.HasPrefix(key, p+name+".") {
				continue
			}
			if f := c.formats[fk]; f != nil {
				d.WithHint("'%s' is an option of format '%s', but '%s' is '%s'", key, name, fk, f.Name)
			} else {
				d.WithHint("'%s' is an option of format '%s', which is only used with '%s' = '%s'", key, name, fk, name)
			}
			return
		}
	}
	if key == "format" || strings.HasSuffix(key, ".format") {
		if len(c.Spec.FormatOptions) == 0 {
			d.WithHint("connector '%s' takes no format", c.Spec.Name)
		} else {
			d.WithHint("connector '%s' names its formats with %s", c.Spec.Name, quoteList(c.Spec.FormatOptions))
		}
		return
	}
	if s := diag.Suggest(key, candidates(c, key)); s != "" {
		d.WithHint("did you mean '%s'?", s)
		return
	}
	if c.Spec.option("properties.x") != nil && !strings.HasPrefix(key, "properties.") {
		d.WithHint("if '%s' is a Kafka client setting, write it as 'properties.%s'", key, key)
	}
	d.WithHint("options of connector '%s': %s", c.Spec.Name, strings.Join(optionKeys(c.Spec.Options), ", "))
}

// candidates are the keys an unknown key may be a misspelling of: the
// connector's keys (patterns filled in with the column the key names), and
// the options of its formats.
func candidates(c *Config, key string) []string {
	var out []string
	for _, o := range c.Spec.Options {
		switch {
		case o.Prefix:
		case strings.Contains(o.Key, "#"):
			pre, suf, _ := strings.Cut(o.Key, "#")
			if rest, ok := strings.CutPrefix(key, pre); ok {
				if i := strings.LastIndexByte(rest, '.'); i > 0 {
					out = append(out, pre+rest[:i]+suf)
				}
			}
		default:
			out = append(out, o.Key)
		}
	}
	for _, fk := range c.Spec.FormatOptions {
		f := c.formats[fk]
		if f == nil {
			continue
		}
		for _, fo := range f.Options {
			out = append(out, formatKeyPrefix(fk)+fo.Key)
		}
	}
	return out
}

// checkValue resolves an option's references (${VAR}, ${file:...}),
// checks the value against its spec and records it. A secret's value is
// never repeated in a message.
func checkValue(c *Config, spec *OptionSpec, o *ast.Option, l *diag.List) {
	key := o.Key.Value
	v, errs := secret.Resolve(o.Value.Value)
	for _, e := range errs {
		d := l.Errorf(diag.UnresolvedReference, valueSpan(o.Value, e.Start, e.End), "option '%s': %s", key, e.Msg)
		if e.Var != "" {
			d.WithHint("set it where streamsql runs (export %s=...), or read the value from a file with ${file:/path}", e.Var)
		}
	}
	if len(errs) > 0 {
		return
	}
	shown := secret.Show(key, v)
	if len(spec.Choices) > 0 {
		for _, ch := range spec.Choices {
			if strings.EqualFold(v, ch) {
				c.values[key] = ch
				return
			}
		}
		d := l.Errorf(diag.InvalidOptionValue, o.Value.Span(), "invalid value '%s' for option '%s': must be one of %s", shown, key, quoteList(spec.Choices))
		if s := diag.Suggest(v, spec.Choices); s != "" {
			d.WithHint("did you mean '%s'?", s)
		}
		return
	}
	if spec.Validate != nil {
		if err := spec.Validate(v); err != nil {
			l.Errorf(diag.InvalidOptionValue, o.Value.Span(), "invalid value '%s' for option '%s': %v", shown, key, err)
			return
		}
	}
	c.values[key] = v
}

// valueSpan is the span of bytes [from, to) of a string literal's value:
// the literal's span starts at its opening quote, and each quote in the
// value was written twice.
func valueSpan(lit *ast.StringLit, from, to int) diag.Span {
	at := func(i int) diag.Pos {
		return lit.S.Start + 1 + diag.Pos(i+strings.Count(lit.Value[:i], "'"))
	}
	if !lit.S.IsValid() {
		return lit.S
	}
	return diag.Span{Start: at(from), End: at(to)}
}

// missing reports a missing option at the WITH clause, with an example to
// add, and a note at a given key that looks like a misspelling of it.
func missing(c *Config, l *diag.List, key, msg, example string) *diag.Diagnostic {
	if example == "" {
		example = "..."
	}
	d := l.Errorf(diag.MissingOption, c.With, "%s", msg).WithHint("add '%s' = '%s'", key, example)
	given := make([]string, 0, len(c.opts))
	for k := range c.opts {
		given = append(given, k)
	}
	if s := diag.Suggest(key, sortedStrings(given)); s != "" && isPassThrough(c, s) {
		d.WithNote(c.opts[s].Key.Span(), "'%s' is given here; is it a misspelling of '%s'?", s, key)
	}
	return d
}

// isPassThrough reports whether a given key is not an option of its own:
// unknown, or accepted only under a prefix such as 'properties.'.
func isPassThrough(c *Config, key string) bool {
	o := c.spec(key)
	return o == nil || o.Prefix
}

func sortedStrings(xs []string) []string {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return sortedKeys(m)
}

// invalid reports an invalid value of a given option at its value.
func invalid(c *Config, l *diag.List, key, format string, args ...any) *diag.Diagnostic {
	return l.Errorf(diag.InvalidOptionValue, c.Option(key).Value.Span(), format, args...)
}

// ineffective warns that a given option has no effect.
func ineffective(c *Config, l *diag.List, key, format string, args ...any) *diag.Diagnostic {
	return l.Warnf(diag.InvalidOptionValue, c.Option(key).Key.Span(), format, args...)
}
