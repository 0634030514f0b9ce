package format

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
)

// debeziumDecoder is the debezium-json format: change events
//
//	{"before": {...}|null, "after": {...}|null, "op": "c"|"r"|"u"|"d", ...}
//
// optionally wrapped in {"schema": ..., "payload": {...}} when
// 'debezium-json.schema-include' is set. Other envelope fields (source,
// ts_ms, transaction) are ignored.
type debeziumDecoder struct {
	obj           *jsonObject
	schemaInclude bool
	before, after []row.Value
	slab          slab
}

func newDebeziumDecoder(schema []connector.Column, opts Options) (*debeziumDecoder, error) {
	o, err := newJSONObject(schema, false)
	if err != nil {
		return nil, err
	}
	return &debeziumDecoder{
		obj:           o,
		schemaInclude: strings.EqualFold(opts.Get(DebeziumJSON+".schema-include"), "true"),
		before:        make([]row.Value, len(schema)),
		after:         make([]row.Value, len(schema)),
		slab:          slab{n: len(schema)},
	}, nil
}

// envelope is where the parts of a change event are in the record text.
type envelope struct {
	before, after int // offsets of the images; -1 when absent or null
	op            string
	hasOp         bool
	payload       int // offset of "payload", -1 when absent
}

// scanEnvelope finds the fields of the object at s[i].
func scanEnvelope(s string, i int) (envelope, int, error) {
	env := envelope{before: -1, after: -1, payload: -1}
	if i >= len(s) || s[i] != '{' {
		return env, 0, synErr(i, "expected a JSON object")
	}
	j := skipWS(s, i+1)
	if j < len(s) && s[j] == '}' {
		return env, j + 1, nil
	}
	for {
		if j >= len(s) || s[j] != '"' {
			return env, 0, synErr(j, "expected a field name")
		}
		key, k, err := scanString(s, j)
		if err != nil {
			return env, 0, err
		}
		k = skipWS(s, k)
		if k >= len(s) || s[k] != ':' {
			return env, 0, synErr(k, "expected ':' after field name")
		}
		k = skipWS(s, k+1)
		start := k
		switch key {
		case "op":
			if k < len(s) && s[k] == '"' {
				env.op, k, err = scanString(s, k)
				env.hasOp = true
			} else if k, err = skipValue(s, k, 1); err == nil {
				// A non-string op (a number, true, an object) is kept as its
				// JSON text for the error message; null is no op.
				env.hasOp = s[start:k] != "null"
				env.op = s[start:k]
			}
		default:
			k, err = skipValue(s, k, 1)
			if err == nil && s[start:k] != "null" {
				switch key {
				case "before":
					env.before = start
				case "after":
					env.after = start
				case "payload":
					env.payload = start
				}
			}
		}
		if err != nil {
			return env, 0, err
		}
		k = skipWS(s, k)
		switch {
		case k < len(s) && s[k] == ',':
			j = skipWS(s, k+1)
		case k < len(s) && s[k] == '}':
			return env, k + 1, nil
		default:
			return env, 0, synErr(k, "expected ',' or '}'")
		}
	}
}

// Decode implements Decoder. An empty record (a Kafka tombstone) holds no
// change and decodes to no rows.
func (d *debeziumDecoder) Decode(dst row.Batch, data []byte) (row.Batch, error) {
	s := string(data)
	b, err := d.decode(dst, s)
	if err != nil {
		return dst, located(err, s)
	}
	return b, nil
}

func (d *debeziumDecoder) decode(dst row.Batch, s string) (row.Batch, error) {
	i := skipWS(s, 0)
	if i == len(s) {
		return dst, nil
	}
	env, j, err := scanEnvelope(s, i)
	if err != nil {
		return dst, err
	}
	if j = skipWS(s, j); j != len(s) {
		return dst, synErr(j, "unexpected text after the object")
	}
	if d.schemaInclude {
		if env.payload < 0 {
			return dst, errors.New("the change event has no 'payload', but 'debezium-json.schema-include' is 'true'")
		}
		if env, _, err = scanEnvelope(s, env.payload); err != nil {
			return dst, err
		}
	} else if env.payload >= 0 && !env.hasOp {
		return dst, errors.New("the change event has a 'schema'/'payload' envelope: set 'debezium-json.schema-include' = 'true'")
	}
	image := func(off int, vals []row.Value, what string) error {
		if off < 0 {
			return fmt.Errorf("a change event with op '%s' needs an '%s' image, but it is null or missing", env.op, what)
		}
		clear(vals)
		if _, err := d.obj.read(s, off, vals); err != nil {
			return fmt.Errorf("'%s': %w", what, err)
		}
		return nil
	}
	switch env.op {
	case "c", "r":
		if err := image(env.after, d.after, "after"); err != nil {
			return dst, err
		}
		return append(dst, row.Row{Kind: changelogmode.Insert, Vals: d.slab.keep(d.after)}), nil
	case "u":
		if env.before < 0 {
			return dst, errors.New("an update event (op 'u') has no 'before' image: configure Debezium to capture " +
				"full before images (for PostgreSQL, REPLICA IDENTITY FULL)")
		}
		if err := image(env.before, d.before, "before"); err != nil {
			return dst, err
		}
		if err := image(env.after, d.after, "after"); err != nil {
			return dst, err
		}
		return append(dst,
			row.Row{Kind: changelogmode.UpdateBefore, Vals: d.slab.keep(d.before)},
			row.Row{Kind: changelogmode.UpdateAfter, Vals: d.slab.keep(d.after)}), nil
	case "d":
		if err := image(env.before, d.before, "before"); err != nil {
			return dst, err
		}
		return append(dst, row.Row{Kind: changelogmode.Delete, Vals: d.slab.keep(d.before)}), nil
	}
	if !env.hasOp {
		return dst, errors.New("the change event has no 'op' field (want 'c', 'r', 'u' or 'd')")
	}
	return dst, fmt.Errorf("unknown op %s in the change event (want 'c', 'r', 'u' or 'd')", clip(fmt.Sprintf("%q", env.op)))
}

// debeziumEncoder writes rows as Flink's DebeziumJsonSerializationSchema
// does: +I and +U as {"before":null,"after":ROW,"op":"c"}, -U and -D as
// {"before":ROW,"after":null,"op":"d"}.
type debeziumEncoder struct{ f *jsonFields }

func newDebeziumEncoder(schema []connector.Column, opts Options) (*debeziumEncoder, error) {
	if strings.EqualFold(opts.Get(DebeziumJSON+".schema-include"), "true") {
		// As Flink: a writer has no Debezium schema to put in the envelope,
		// and records without one would not read back with the option set.
		return nil, errors.New("'debezium-json.schema-include' = 'true' is for reading only: streamsql writes change events without the schema envelope, as Flink does")
	}
	f, err := newJSONFields(schema, opts, DebeziumJSON)
	if err != nil {
		return nil, err
	}
	return &debeziumEncoder{f: f}, nil
}

// Encode implements Encoder.
func (e *debeziumEncoder) Encode(buf []byte, r row.Row) ([]byte, error) {
	var out []byte
	var err error
	switch r.Kind {
	case changelogmode.Insert, changelogmode.UpdateAfter:
		out = append(buf, `{"before":null,"after":`...)
		out, err = e.f.appendObject(out, r.Vals)
		out = append(out, `,"op":"c"}`...)
	case changelogmode.UpdateBefore, changelogmode.Delete:
		out = append(buf, `{"before":`...)
		out, err = e.f.appendObject(out, r.Vals)
		out = append(out, `,"after":null,"op":"d"}`...)
	default:
		err = fmt.Errorf("cannot write a row of kind %s", r.Kind)
	}
	if err != nil {
		return buf, err
	}
	return out, nil
}
