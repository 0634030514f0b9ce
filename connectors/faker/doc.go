// Package faker is the runtime of the 'faker' connector: a source that
// generates rows from Java Faker expressions, as the flink-faker connector
// does (the Flink SQL cookbook's tables use it), on the gofakeit library.
//
// Every column has 'fields.<column>.expression': literal text and calls
// #{Provider.method 'arg', ...} (expr.go: Parse, the providers, Supported).
// Providers that are lists of names (harry_potter.characters, Space.star)
// read lists.txt, a data file of our own, by Java method or YAML key
// (lists.go). An ARRAY column has 'fields.<column>.length' elements, a MAP
// column that many entries from its key and value expressions. Options
// naming a computed column are the catalog's to warn about
// (connectors.checkFakerColumns); the source sees physical columns only.
// A call of an unknown provider is an *UnknownError, which `check` reports
// as SQL221 with the supported list (connectors.checkFaker); a call with
// wrong arguments is a plain error (SQL205). A value becomes the column's
// type as CAST reads text (eval.ParseValue); date.past and date.future give
// times, which temporal columns take directly.
//
// Row k depends only on the seed ('seed', else a random one) and k: the
// random source is re-seeded (seed, k) before each row. So the position of
// a checkpoint (connector.Positioner) is the rows made, the rows left and
// the seed, and a resumed source makes the rows the original would have
// made next. 'rows-per-second' and 'number-of-rows' work as datagen's; the
// clock (Clock) gives both the rate and the dates' now, so tests neither
// sleep nor read the time.
package faker
