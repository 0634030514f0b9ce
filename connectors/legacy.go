package connectors

import (
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// Flink's legacy connector options. Before Flink 1.11 (FLIP-122) a table
// named its connector with 'connector.type' and its format with
// 'format.type', and every other option carried the prefix 'connector.' or
// 'format.'. Flink still sends a WITH clause that has 'connector.type' to
// its legacy table factories (TableFactoryUtil.isLegacyConnectorOptions),
// and job files written then, Nexmark's q13 among them, still use them.
// streamsql reads such a clause as the current options it stands for,
// warning (diag.DeprecatedOption) at each legacy key with its current
// spelling; a legacy key with no current counterpart stays as written and
// is reported as an unknown option.
//
// Only a clause without 'connector' and with 'connector.type' is legacy, as
// in Flink; 'connector.type' beside 'connector' is an unknown option.

// legacyKeys maps legacy keys to current ones, for every connector.
var legacyKeys = map[string]string{
	"connector.type":  "connector",
	"connector.path":  "path",
	"connector.topic": "topic",
	"format.type":     "format",
	// Kafka's scan.startup.mode took the same values as
	// 'connector.startup-mode'.
	"connector.startup-mode":                 "scan.startup.mode",
	"connector.specific-offsets":             "scan.startup.specific-offsets",
	"connector.startup-timestamp-millis":     "scan.startup.timestamp-millis",
	"connector.sink-partitioner":             "sink.partitioner",
	"connector.properties.zookeeper.connect": "",
	"connector.version":                      "",
	"connector.property-version":             "",
	"format.property-version":                "",
	"format.derive-schema":                   "",
	"update-mode":                            "",
}

// legacyIgnored says why a legacy key that has no current counterpart can be
// dropped, and which values it may take ("" for any).
var legacyIgnored = map[string]struct{ value, why string }{
	"connector.version":                      {"", "the Kafka client version; streamsql's client speaks to every broker version"},
	"connector.property-version":             {"", "a version of the legacy option keys"},
	"format.property-version":                {"", "a version of the legacy option keys"},
	"format.derive-schema":                   {"true", "the format's fields are the table's columns, which is what 'true' asked for"},
	"update-mode":                            {"append", "an append-only table is what the connector's insert-only format gives"},
	"connector.properties.zookeeper.connect": {"", "Kafka clients no longer connect to ZooKeeper"},
}

// translateLegacy returns opts with legacy keys replaced by current ones
// (the options keep their positions), warning at each; opts as given when
// the clause is not legacy.
func translateLegacy(opts []*ast.Option, l *diag.List) []*ast.Option {
	var legacy bool
	format := ""
	for _, o := range opts {
		switch o.Key.Value {
		case "connector":
			return opts
		case "connector.type":
			legacy = true
		case "format.type":
			format = o.Value.Value
		}
	}
	if !legacy {
		return opts
	}
	f, _ := LookupFormat(format)
	out := make([]*ast.Option, 0, len(opts))
	for _, o := range opts {
		key := o.Key.Value
		cur, ok := legacyKeys[key]
		if !ok {
			// 'format.<option>' is '<format>.<option>' when the format has
			// that option; 'connector.properties.<p>' is 'properties.<p>'.
			if rest, isFormat := strings.CutPrefix(key, "format."); isFormat && f != nil && findOption(f.Options, f.Name+"."+rest) != nil {
				cur, ok = f.Name+"."+rest, true
			} else if rest, isProp := strings.CutPrefix(key, "connector.properties."); isProp && rest != "" {
				cur, ok = "properties."+rest, true
			}
		}
		if !ok {
			out = append(out, o)
			continue
		}
		if cur == "" {
			ig := legacyIgnored[key]
			if ig.value != "" && !strings.EqualFold(o.Value.Value, ig.value) {
				l.Errorf(diag.InvalidOptionValue, o.Value.Span(), "invalid value '%s' for Flink's legacy option '%s': streamsql takes only '%s' (%s)", o.Value.Value, key, ig.value, ig.why).
					WithHint("remove the option")
				continue
			}
			l.Warnf(diag.DeprecatedOption, o.Key.Span(), "'%s' is one of Flink's legacy (pre-1.11) options; it has no effect: %s", key, ig.why).
				WithHint("remove it")
			continue
		}
		l.Warnf(diag.DeprecatedOption, o.Key.Span(), "'%s' is Flink's legacy (pre-1.11) spelling of '%s'", key, cur).
			WithHint("write '%s' = '%s'", cur, o.Value.Value)
		k := *o.Key
		k.Value = cur
		n := *o
		n.Key = &k
		out = append(out, &n)
	}
	return out
}
