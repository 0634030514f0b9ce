package exec

import (
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/planner"
)

// ConnectorError is a table that its connector's runtime refuses to read
// (Source) or to write.
type ConnectorError struct {
	Table  *catalog.Table
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
	msg = strings.TrimPrefix(msg, e.Table.Connector()+": ")
	msg = strings.TrimPrefix(msg, "table "+e.Table.Name+": ")
	return fmt.Sprintf("table %s cannot be %s: %s", e.Table.Name, verb, msg)
}

// ReportConnectors adds what CheckConnectors finds to l, as errors
// (diag.SinkNotWritable) at each table's name. `streamsql check`, `run`
// and the shell call it after the planner's checks, with the job file's
// directory in opts.BaseDir.
func ReportConnectors(plans []*planner.Plan, opts Options, l *diag.List) {
	for _, e := range CheckConnectors(plans, opts) {
		var sp diag.Span
		if e.Table.Def != nil {
			sp = e.Table.Def.Name.S
		}
		d := l.Errorf(diag.SinkNotWritable, sp, "%s", e.Error())
		if e.Table.Source != nil && e.Table.Source != l.Source {
			d.Source = e.Table.Source
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
func CheckConnectors(plans []*planner.Plan, opts Options) []*ConnectorError {
	var out []*ConnectorError
	b := &builder{opts: opts}
	type key struct {
		t      *catalog.Table
		source bool
	}
	seen := map[key]bool{}
	try := func(t *catalog.Table, source bool) {
		if t == nil || t.Invalid || seen[key{t, source}] {
			return
		}
		seen[key{t, source}] = true
		var err error
		if source {
			f, ok := connector.LookupSource(t.Connector())
			if !ok {
				err = fmt.Errorf("connector '%s' cannot be read by this build of streamsql", t.Connector())
			} else {
				_, err = f(b.spec(t, t.SourceColumns()))
			}
		} else {
			f, ok := connector.LookupSink(t.Connector())
			if !ok {
				err = fmt.Errorf("connector '%s' cannot be written by this build of streamsql", t.Connector())
			} else {
				_, err = f(b.spec(t, t.SinkColumns()))
			}
		}
		if err != nil {
			out = append(out, &ConnectorError{Table: t, Source: source, Err: err})
		}
	}
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		switch x := n.(type) {
		case *logical.Scan:
			try(x.Table, true)
		case *logical.Sink:
			try(x.Table, false)
		}
		for _, c := range logical.Children(n) {
			walk(c)
		}
	}
	for _, p := range plans {
		if p.Explain == nil && p.Root != nil {
			walk(p.Root)
		}
	}
	return out
}
