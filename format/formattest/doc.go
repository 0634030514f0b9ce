// Package formattest helps test the formats and the connectors that use
// them: a schema with a column of every type the formats read, a generator
// of valid rows over it driven by a fuzzer's bytes (edge values included),
// and the domain of each type, which a decoded value must lie in.
//
// The fuzz targets of package format and of the filesystem connector
// share it, so that "every column type" means the same list everywhere.
package formattest
