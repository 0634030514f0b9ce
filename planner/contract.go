package planner

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// CheckContracts checks the contracts between jobs that meet at a Kafka
// topic or a file: every table a job writes (the sink of an INSERT) is
// matched with every table a job reads (a scan in one of its plans; the
// same job counts) that names the same resource — the same 'topic' on the
// same Kafka cluster (bootstrap server lists that share a broker), or the
// same filesystem 'path' — and the reader must be able to interpret what
// the writer emits:
//
//   - a topic or file written as a changelog ('debezium-json', or by
//     'upsert-kafka') and read with an insert-only format reads retractions
//     as rows: diag.ChangelogNotInterpreted;
//   - writer and reader that encode it differently (upsert-kafka and
//     debezium-json, plain rows read as debezium-json, json read as csv):
//     diag.EncodingMismatch;
//   - an upsert topic read by 'upsert-kafka' keyed by other columns:
//     diag.ContractKeyMismatch;
//   - a physical column of the reader that the writer does not write into
//     the records: diag.ContractMissingColumn; one whose type differs
//     (nullability aside): diag.ContractColumnType.
//
// An append-only topic read by 'upsert-kafka', and a reader that declares
// fewer columns than the writer writes, are fine. The writer's declared
// format is the contract: a debezium-json or upsert-kafka sink is taken to
// write a changelog whether or not its query ever updates.
//
// Each diagnostic is reported in the reader's file (its Source is the
// reader job's) at the reader's table, and names the writer's file and line
// in its message, so that it reads the same in every output format.
// Tables with errors of their own are skipped. The list is sorted.
func CheckContracts(jobs []*Job) *diag.List {
	l := &diag.List{}
	var writers, readers []*contractEnd
	for _, j := range jobs {
		if j == nil || j.Session == nil {
			continue
		}
		wrote := map[*catalog.Table]bool{}
		read := map[*catalog.Table]bool{}
		for _, p := range j.Session.Plans {
			if p.Explain != nil || p.Root == nil {
				continue // EXPLAIN neither writes nor reads
			}
			if s, ok := p.Root.(*logical.Sink); ok && !wrote[s.Table] {
				wrote[s.Table] = true
				if e := newContractEnd(j, s.Table, p.Stmt); e != nil {
					writers = append(writers, e)
				}
			}
			contractScans(p.Root, func(sc *logical.Scan) {
				if read[sc.Table] {
					return
				}
				read[sc.Table] = true
				if e := newContractEnd(j, sc.Table, nil); e != nil {
					readers = append(readers, e)
				}
			})
		}
	}
	for _, r := range readers {
		for _, w := range writers {
			if w.table == r.table || !w.res.meets(r.res) {
				continue
			}
			c := &contract{l: l, w: w, r: r}
			c.checkEncoding()
			c.checkColumns()
		}
	}
	l.Sort()
	return l
}

// contractScans calls f for every scan under n.
func contractScans(n logical.Node, f func(*logical.Scan)) {
	if n == nil {
		return
	}
	if s, ok := n.(*logical.Scan); ok {
		f(s)
	}
	for _, c := range logical.Children(n) {
		contractScans(c, f)
	}
}

// contractEnd is a table that a job writes or reads, with the resource it
// names and how it encodes rows there.
type contractEnd struct {
	job   *Job
	table *catalog.Table
	// insert is the INSERT that writes the table; nil for a reader.
	insert ast.Stmt
	res    contractResource
	enc    contractEncoding
}

func newContractEnd(j *Job, t *catalog.Table, insert ast.Stmt) *contractEnd {
	if t == nil || t.Invalid || t.Config == nil || t.Config.Spec == nil || t.Def == nil {
		return nil
	}
	res, ok := contractResourceOf(t, filepath.Dir(j.Source.Name))
	if !ok {
		return nil
	}
	return &contractEnd{job: j, table: t, insert: insert, res: res, enc: contractEncodingOf(t)}
}

// where is FILE:LINE of a position in the job of e.
func (e *contractEnd) where(p diag.Pos) string {
	line, _ := e.job.Source.Position(p)
	return fmt.Sprintf("%s:%d", jobName(e.job.Source), line)
}

func jobName(s *diag.Source) string {
	if s == nil || s.Name == "" {
		return "<input>"
	}
	return s.Name
}

// ref names the writer's INSERT: "a.sql:12".
func (e *contractEnd) ref() string { return e.where(e.insert.Span().Start) }

// option returns the span of the first of keys the table's WITH clause
// gives, or of its name.
func (e *contractEnd) option(keys ...string) diag.Span {
	for _, k := range keys {
		if o := e.table.Config.Option(k); o != nil {
			return o.S
		}
	}
	return e.table.Def.Name.S
}

// formatKey is the option that names the value format as written:
// 'format' or 'value.format'.
func (e *contractEnd) formatKey() string {
	if e.table.Config.Option("format") == nil && e.table.Config.Option("value.format") != nil {
		return "value.format"
	}
	if e.table.Connector() == "upsert-kafka" {
		return "value.format"
	}
	return "format"
}

// contractResource is what a table names outside the engine: a file, or
// topics on a Kafka cluster.
type contractResource struct {
	// file is the 'path' of a filesystem table, resolved as the runtime
	// opens it (from the job file's directory) with its links followed;
	// fileText is the path as written, cleaned.
	file, fileText string
	// topics are the topics named by 'topic' (a source may name several,
	// separated by ';'); pattern is 'topic-pattern', matched in full.
	topics  []string
	pattern *regexp.Regexp
	// servers are 'properties.bootstrap.servers', trimmed and lower-cased.
	servers []string
}

func contractResourceOf(t *catalog.Table, baseDir string) (contractResource, bool) {
	c := t.Config
	switch c.Spec.Name {
	case "filesystem":
		p, err := connectors.ResolvePath(c.Get("path"), baseDir)
		if err != nil {
			return contractResource{}, false
		}
		text, _ := connectors.LocalPath(c.Get("path"))
		return contractResource{file: followLinks(p), fileText: filepath.Clean(text)}, true
	case "kafka", "upsert-kafka":
		var r contractResource
		for _, s := range strings.Split(c.Get("properties.bootstrap.servers"), ",") {
			if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
				r.servers = append(r.servers, s)
			}
		}
		for _, tp := range strings.Split(c.Get("topic"), ";") {
			if tp = strings.TrimSpace(tp); tp != "" {
				r.topics = append(r.topics, tp)
			}
		}
		if p := c.Get("topic-pattern"); p != "" {
			r.pattern, _ = regexp.Compile("^(?:" + p + ")$")
		}
		if len(r.servers) == 0 || len(r.topics) == 0 && r.pattern == nil {
			return contractResource{}, false
		}
		return r, true
	}
	return contractResource{}, false
}

// meets reports whether a writer's resource w is read through r: the same
// file, or a topic of w that r names (or matches) on a cluster they share.
// Server lists are compared as sets, and two lists that share a broker name
// the same cluster.
func (w contractResource) meets(r contractResource) bool {
	if w.file != "" || r.file != "" {
		return w.file == r.file
	}
	shared := false
	for _, s := range w.servers {
		if slices.Contains(r.servers, s) {
			shared = true
			break
		}
	}
	if !shared {
		return false
	}
	for _, tp := range w.topics {
		if slices.Contains(r.topics, tp) || r.pattern != nil && r.pattern.MatchString(tp) {
			return true
		}
	}
	return false
}

// describe names the resource for a message: topic 'orders', file '/x.json'.
func (w contractResource) describe() string {
	if w.file != "" {
		return fmt.Sprintf("file '%s'", w.fileText)
	}
	return fmt.Sprintf("topic '%s'", strings.Join(w.topics, ";"))
}

// contractEncodingKind is how rows are laid out on a topic or in a file.
type contractEncodingKind int

const (
	// plainRows: one row per record, insert-only (json, csv, raw).
	plainRows contractEncodingKind = iota
	// changeEvents: one change event per record with its kind
	// (debezium-json): a full changelog.
	changeEvents
	// upsertRecords: the key in the record key, the row in the value, a
	// tombstone for a delete (upsert-kafka).
	upsertRecords
)

type contractEncoding struct {
	kind contractEncodingKind
	// format is the (value) format, keyFormat the key format; "" when
	// unknown.
	format, keyFormat string
	// key is the primary key of an upsert-kafka table, by column name.
	key []string
}

func contractEncodingOf(t *catalog.Table) contractEncoding {
	c := t.Config
	var e contractEncoding
	if c.Format != nil {
		e.format = c.Format.Name
	}
	if c.KeyFormat != nil {
		e.keyFormat = c.KeyFormat.Name
	}
	switch {
	case c.Spec.Name == "upsert-kafka":
		e.kind = upsertRecords
		for _, i := range t.PrimaryKey {
			e.key = append(e.key, t.Columns[i].Name)
		}
	case c.Format != nil && c.Format.Changelog:
		e.kind = changeEvents
	}
	return e
}

// written says how the writer writes: "as 'debezium-json' (a changelog:
// updates and deletes)".
func (e contractEncoding) written() string {
	switch e.kind {
	case changeEvents:
		return fmt.Sprintf("as '%s' (a changelog: updates and deletes)", e.format)
	case upsertRecords:
		return fmt.Sprintf("through 'upsert-kafka', keyed by %s (a changelog: updates, and deletes as tombstones)", strings.Join(e.key, ", "))
	case plainRows:
	}
	return fmt.Sprintf("as plain '%s' rows", e.format)
}

// contract is one writer and one reader of the same resource.
type contract struct {
	l    *diag.List
	w, r *contractEnd
}

// errorf reports in the reader's file, and notes where the writer is.
func (c *contract) errorf(code diag.Code, span diag.Span, format string, args ...any) *diag.Diagnostic {
	d := c.l.Errorf(code, span, format, args...)
	d.Source = c.r.job.Source
	w := c.w
	ins := w.insert.Span()
	if ii, ok := w.insert.(*ast.Insert); ok && ii.Table != nil {
		ins = ii.Table.S
	}
	if w.job == c.r.job {
		d.WithNote(ins, "written here")
		return d
	}
	d.WithNote(diag.NoSpan, "%s: INSERT INTO %s writes it; %s is declared at %s (%s)",
		w.where(ins.Start), w.table.Name, w.table.Name, w.where(w.table.Def.Name.S.Start), w.options())
	return d
}

// options lists the options that make the contract of e.
func (e *contractEnd) options() string {
	var parts []string
	for _, k := range []string{"connector", "format", "key.format", "value.format", "topic", "path"} {
		if o := e.table.Config.Option(k); o != nil && o.Value != nil {
			parts = append(parts, fmt.Sprintf("'%s' = '%s'", k, o.Value.Value))
		}
	}
	return strings.Join(parts, ", ")
}

// upsertHint tells how to read an upsert topic.
func (c *contract) upsertHint(d *diag.Diagnostic) {
	we := c.w.enc
	d.WithHint("read it the way it is written: 'connector' = 'upsert-kafka' with PRIMARY KEY (%s) NOT ENFORCED, the writer's key, 'key.format' = '%s' and 'value.format' = '%s'",
		strings.Join(we.key, ", "), we.keyFormat, we.format)
}

func (c *contract) checkEncoding() {
	we, re := c.w.enc, c.r.enc
	if we.format == "" || re.format == "" {
		return // a missing format was reported with the table
	}
	written := fmt.Sprintf("%s is written by %s %s", c.w.res.describe(), c.w.ref(), we.written())
	switch {
	case we.kind != plainRows && re.kind == plainRows:
		what := "would read retractions as rows"
		if we.kind == upsertRecords {
			what = "would read every update of a key as one more row and miss its deletes"
		}
		d := c.errorf(diag.ChangelogNotInterpreted, c.r.option(c.r.formatKey(), "connector"),
			"%s; reading it as '%s' %s", written, re.format, what)
		if we.kind == upsertRecords {
			c.upsertHint(d)
		} else {
			d.WithHint("read it as a changelog: '%s' = '%s'", c.r.formatKey(), we.format)
			d.WithHint("or, if the query of %s only ever inserts rows, have it write plain rows ('format' = '%s' there)", c.w.ref(), re.format)
		}

	case we.kind == plainRows && re.kind == changeEvents:
		d := c.errorf(diag.EncodingMismatch, c.r.option(c.r.formatKey(), "connector"),
			"%s; reading it as '%s' expects a change event (before, after, op) in every record and would fail on each: the encodings differ",
			written, re.format)
		d.WithHint("read it as it is written: '%s' = '%s'", c.r.formatKey(), we.format)

	case we.kind == changeEvents && re.kind == upsertRecords:
		d := c.errorf(diag.EncodingMismatch, c.r.option("connector"),
			"%s; 'upsert-kafka' expects the key in the record key and a delete as a tombstone, not change events: the encodings differ",
			written)
		d.WithHint("read it as a changelog: 'connector' = 'kafka' with 'format' = '%s'", we.format)

	case we.kind == upsertRecords && re.kind == changeEvents:
		d := c.errorf(diag.EncodingMismatch, c.r.option(c.r.formatKey(), "connector"),
			"%s; reading it as '%s' expects a change event (before, after, op) in every record, not upsert records: the encodings differ",
			written, re.format)
		c.upsertHint(d)

	default:
		// The same layout, or plain rows read as upserts: the formats of
		// the values (and keys) must agree.
		if contractFormatsDiffer(we.format, re.format) {
			d := c.errorf(diag.EncodingMismatch, c.r.option(c.r.formatKey(), "connector"),
				"%s; reading its records as '%s' would fail on every one: the formats differ", written, re.format)
			d.WithHint("read it as it is written: '%s' = '%s'", c.r.formatKey(), we.format)
		}
		if we.kind == upsertRecords && re.kind == upsertRecords {
			if contractFormatsDiffer(we.keyFormat, re.keyFormat) {
				d := c.errorf(diag.EncodingMismatch, c.r.option("key.format", "connector"),
					"%s, with record keys in '%s'; reading the keys as '%s' would fail on every record: the formats differ",
					written, we.keyFormat, re.keyFormat)
				d.WithHint("read the keys as they are written: 'key.format' = '%s'", we.keyFormat)
			}
			if !sameColumnSet(we.key, re.key) {
				d := c.errorf(diag.ContractKeyMismatch, c.r.primaryKeySpan(),
					"%s, but %s reads it keyed by %s: updates and deletes would apply to the wrong rows",
					written, c.r.table.Name, strings.Join(re.key, ", "))
				d.WithHint("declare the writer's key: PRIMARY KEY (%s) NOT ENFORCED", strings.Join(we.key, ", "))
			}
		}
	}
}

// contractFormatsDiffer reports whether records written in format w cannot be read
// in format r. 'raw' reads any record as text, and may hold text of any
// format, so it differs from none.
func contractFormatsDiffer(w, r string) bool {
	return w != "" && r != "" && w != r && w != "raw" && r != "raw"
}

func sameColumnSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x string) bool { return !slices.Contains(b, x) })
}

func (e *contractEnd) primaryKeySpan() diag.Span {
	if pks := e.table.Def.PrimaryKeys; len(pks) > 0 {
		return pks[0].S
	}
	return e.table.Def.Name.S
}

// checkColumns compares the reader's physical columns, which it reads from
// the records, with the columns the writer writes into them. The reader
// may leave columns out; it must not declare more, nor other types.
func (c *contract) checkColumns() {
	w, r := c.w.table, c.r.table
	if c.w.enc.format == "raw" || c.r.enc.format == "raw" {
		return // a raw record is one value, whatever the columns are called
	}
	var written []string
	for _, col := range w.Columns {
		if col.Kind == ast.PhysicalColumn {
			written = append(written, col.Name)
		}
	}
	for _, rc := range r.Columns {
		if rc.Kind != ast.PhysicalColumn {
			continue
		}
		i := w.Column(rc.Name)
		var wc *catalog.Column
		if i >= 0 {
			wc = &w.Columns[i]
		}
		switch {
		case wc != nil && wc.Kind == ast.PhysicalColumn:
			if rc.Type.Kind != types.Invalid && wc.Type.Kind != types.Invalid && !types.SameIgnoringNull(rc.Type, wc.Type) {
				wt, rt := withoutNotNull(wc.Type), withoutNotNull(rc.Type)
				d := c.errorf(diag.ContractColumnType, rc.Span,
					"column %s is %s here, but %s is written by %s with %s %s",
					rc.Name, rt, c.w.res.describe(), c.w.ref(), rc.Name, wt)
				d.WithHint("declare it as %s here, or declare %s.%s as %s in %s", wt, w.Name, rc.Name, rt, c.w.where(w.Def.Name.S.Start))
			}
		case wc != nil && wc.Persisted():
			d := c.errorf(diag.ContractMissingColumn, rc.Span,
				"column %s is not in the records of %s: %s writes it as metadata '%s', not as a field",
				rc.Name, c.w.res.describe(), c.w.ref(), wc.MetadataKey)
			d.WithHint("read it as metadata too: %s %s METADATA FROM '%s'", rc.Name, withoutNotNull(wc.Type), wc.MetadataKey)
		default:
			d := c.errorf(diag.ContractMissingColumn, rc.Span,
				"column %s is not written: %s is written by %s with the columns %s",
				rc.Name, c.w.res.describe(), c.w.ref(), strings.Join(written, ", "))
			if sg := diag.Suggest(rc.Name, written); sg != "" {
				d.WithHint("did you mean %s?", sg)
			}
			d.WithHint("a reader may declare fewer columns than its writer writes, not more: remove %s here, or add it to %s in %s", rc.Name, w.Name, c.w.where(w.Def.Name.S.Start))
		}
	}
}

// withoutNotNull is t without NOT NULL, which contracts ignore.
func withoutNotNull(t types.T) types.T { return t.WithNullable(true) }
