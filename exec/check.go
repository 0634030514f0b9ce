package exec

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/physical"
)

// ConnectorError is a table that its connector's runtime refuses to read
// (Source) or to write.
type ConnectorError struct {
	// Table and Connector name the table and its connector.
	Table, Connector string
	// At is where the table is declared, in Text (nil: the job's own).
	At     diag.Span
	Text   *diag.Source
	Source bool
	Err    error
}

func (e *ConnectorError) Error() string {
	verb := "written"
	if e.Source {
		verb = "read"
	}
	// Factories say "kafka: table t: ..."; the table is named already.
	msg := e.Err.Error()
	msg = strings.TrimPrefix(msg, e.Connector+": ")
	msg = strings.TrimPrefix(msg, "table "+e.Table+": ")
	return fmt.Sprintf("table %s cannot be %s: %s", e.Table, verb, msg)
}

// ReportConnectors adds what CheckConnectors finds to l, as errors
// (diag.SinkNotWritable) at each table's name. `streamsql check`, `run`
// and the shell call it after the planner's checks, with the job file's
// directory in opts.BaseDir.
func ReportConnectors(plans []*physical.Plan, opts Options, l *diag.List) {
	for _, e := range CheckConnectors(plans, opts) {
		d := l.Errorf(diag.SinkNotWritable, e.At, "%s", e.Error())
		if e.Text != nil && e.Text != l.Source {
			d.Source = e.Text
		}
	}
}

// CheckConnectors makes the source of every table the plans read and the
// sink of every table they write, with the specs Build would give them,
// without opening any, and returns what the factories refuse (a format the
// runtime lacks, a column type a format cannot hold, an option that is
// declared but not implemented), each table once per direction. `check`
// reports these, so that a job check accepts can start: what Build would
// refuse, check refuses first. Factories allocate nothing that needs
// closing (see SourceFactory), so the sources and sinks made here are
// dropped.
func CheckConnectors(plans []*physical.Plan, opts Options) []*ConnectorError {
	var out []*ConnectorError
	b := &builder{opts: opts}
	type key struct {
		table   string
		options connector.Options // one name may be dropped and declared again
		source  bool
	}
	seen := map[key]bool{}
	try := func(at diag.Span, text *diag.Source, source bool, spec connector.Spec) {
		name, conn := spec.Table, spec.Connector
		if seen[key{name, spec.Options, source}] {
			return
		}
		seen[key{name, spec.Options, source}] = true
		var err error
		if source {
			f, ok := connector.LookupSource(conn)
			if !ok {
				err = fmt.Errorf("connector '%s' cannot be read by this build of streamsql", conn)
			} else {
				_, err = f(spec)
			}
		} else {
			f, ok := connector.LookupSink(conn)
			if !ok {
				err = fmt.Errorf("connector '%s' cannot be written by this build of streamsql", conn)
			} else {
				_, err = f(spec)
			}
		}
		if err != nil {
			out = append(out, &ConnectorError{Table: name, Connector: conn, At: at, Text: text, Source: source, Err: err})
		}
	}
	for _, p := range plans {
		physical.Walk(p.Root, func(n physical.Node) {
			switch x := n.(type) {
			case *physical.Source:
				if !x.Invalid {
					try(x.TableSpan, x.TableSource, true, b.spec(x.Spec))
				}
			case *physical.LookupJoin:
				if d := x.Dim; !d.Invalid {
					var err error
					if f, ok := connector.FindLookup(d.Spec.Connector); !ok {
						err = fmt.Errorf("connector '%s' cannot be looked up by this build of streamsql", d.Spec.Connector)
					} else {
						_, err = f(b.spec(d.Spec), x.DimKeys)
					}
					if err != nil {
						out = append(out, &ConnectorError{Table: d.TableName, Connector: d.Spec.Connector, At: d.TableSpan, Text: d.TableSource, Source: true, Err: err})
					}
				}
			case *physical.Sink:
				if !x.Query && !x.Invalid {
					try(x.TableSpan, x.TableSource, false, b.spec(x.Spec))
				}
			}
		})
	}
	return out
}
