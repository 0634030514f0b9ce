package catalog

import "github.com/streamsql/streamsql/connector"

// SourceColumns is the columns a source produces for the table: physical
// and metadata columns, in table order (computed columns are left out: the
// runtime adds them).
func (t *Table) SourceColumns() []connector.Column {
	var out []connector.Column
	for _, c := range t.Columns {
		if c.Expr != nil {
			continue
		}
		out = append(out, connector.Column{Name: c.Name, Type: c.Type, MetadataKey: c.MetadataKey})
	}
	return out
}

// SinkColumns is the columns a sink writes: the table's persisted columns.
func (t *Table) SinkColumns() []connector.Column {
	var out []connector.Column
	for _, c := range t.Columns {
		if c.Persisted() {
			out = append(out, connector.Column{Name: c.Name, Type: c.Type, MetadataKey: c.MetadataKey})
		}
	}
	return out
}

// ConnectorSpec returns a connector.Spec for the table with schema: its
// name, connector, format, options and primary key. The caller adds the
// job's settings, base directory and console writers.
func (t *Table) ConnectorSpec(schema []connector.Column) connector.Spec {
	s := connector.Spec{Table: t.Name, Connector: t.Connector(), Schema: schema}
	if t.Config != nil {
		// Only a non-nil Config: a nil *Config in the interface would not
		// compare equal to nil.
		s.Options = t.Config
		if t.Config.Format != nil {
			s.Format = t.Config.Format.Name
		}
	}
	for _, i := range t.PrimaryKey {
		s.PrimaryKey = append(s.PrimaryKey, t.Columns[i].Name)
	}
	if t.Connector() == "filesystem" {
		s.PartitionKeys = t.PartitionKeys
	}
	return s
}
