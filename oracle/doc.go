// Package oracle checks streamsql's answers against PostgreSQL's: a
// randomized differential test. It generates input tables and a query over
// them, runs the query in streamsql over bounded files at parallelism 1
// and 4, applies the changelog the query emits to get its final table, and
// compares that table with what PostgreSQL answers over the final contents
// of the same tables.
//
//	Generate(seed) ─► Case: tables (rows; debezium-json changelogs) + query (model AST, typed)
//	                     │
//	      ┌──────────────┴───────────────┐
//	      ▼                              ▼
//	job.sql + t*.json (temp dir)     temporary tables + the query rewritten for
//	frontend.CheckJob, exec.Build,    PostgreSQL (pg.go, Node.pg): final contents,
//	Job.Run at parallelism 1 and 4   every column as text
//	      │ changelog (+I -U +U -D)      │
//	      ▼                              ▼
//	apply: a multiset; a retraction  rows of cells ──► diff (exact numbers as
//	of an absent row is a failure    fractions, DOUBLE within a tolerance)
//
// A failure is shrunk (fewer rows, changes and columns, a simpler query,
// while it fails the same way) and printed as a job file, its input files
// and the PostgreSQL script, with the seed that makes it again:
//
//	go test ./oracle -run 'TestOracle$' -oracle.seed=N -oracle.cases=1
//
// `make test` runs a fixed set of cases from seed 1 (a few seconds);
// `make oracle` runs ORACLE_CASES (default 20000) from a fresh seed.
// -oracle.dump=DIR writes each failing case's files into DIR/seed-N.
// PostgreSQL is found at 127.0.0.1:5432 as user postgres (ORACLE_PG, a
// postgres:// URL, points elsewhere); the oracle works in its own database,
// streamsql_oracle, created with the C collation. Without PostgreSQL the
// test fails when CI is set and skips otherwise, and `make test` then
// ends with a message saying the oracle did not run (go test hides a
// passing package's output; -oracle.probe only connects).
//
// # What is generated
//
// Tables of INT, BIGINT, DECIMAL(p, s) (p <= 10), DOUBLE, STRING and
// TIMESTAMP(3) columns with NULLs and duplicates, each with a narrow key
// column k (a handful of values, so that joins and groups collide); some
// read as debezium-json changelogs with inserts, updates (which may change
// the key) and deletes; time tables with a watermark. Queries: inner, LEFT,
// RIGHT and FULL joins on one or two equalities (= or the null-safe IS NOT
// DISTINCT FROM; plus other conditions),
// self-joins, subqueries in FROM (aggregated or filtered), [NOT] IN and
// [NOT] EXISTS subqueries in WHERE (correlated or not, by = or IS NOT
// DISTINCT FROM), filters with comparisons and IS [NOT] DISTINCT FROM,
// projections with arithmetic, CASE, IF, COALESCE, IFNULL, NULLIF, ABS,
// FLOOR, CEIL, ROUND, CAST, string functions (UPPER, LOWER, SUBSTRING,
// REPLACE, TRIM, CONCAT_WS, CHAR_LENGTH, ||), HOUR, MINUTE, SECOND,
// EXTRACT and timestamp + interval, GROUP BY with COUNT, SUM, AVG, MIN
// and MAX (with DISTINCT) and HAVING, global aggregates, SELECT DISTINCT,
// UNION ALL (GROUPING SETS, ROLLUP and CUBE are checked by
// grouping_test.go, Top-N and windows by rank_test.go, null-safe keys of
// every join kind by nullsafe_test.go); interval joins of two time tables (inner and outer, BETWEEN
// or >=/<= bounds) and TUMBLE, HOP and CUMULATE window aggregates.
//
// Each generated expression is typed by the oracle's own model of Flink's
// type rules (model.go), written from Flink's LogicalTypeMerging and not
// from package types, so that a type streamsql derives differently shows
// up: every output column's type is checked (integer kinds as one family;
// DECIMAL with its scale, which every sink writes).
//
// # Features switched off
//
// Features (features.go) lists the parts of SQL the generator may use. One
// is off only while a known bug in it is open, and DefaultFeatures says
// which; the short run in `make test` then stays green and the switch goes
// on as soon as the fix lands. The shrinker never brings a switched-off
// feature back (a condition a.x = b.y added to a join is a join key,
// whatever made it). -oracle.features=+name,-name or all overrides them.
//
// # SQL differences the generator accounts for
//
// Flink is the reference for what a query means; PostgreSQL computes the
// answer. Where the two disagree on meaning, the PostgreSQL text is
// written to give Flink's answer, or the generator stays out of the way:
//
//   - Integer arithmetic. INT / INT is integer division truncating toward
//     zero and % takes the dividend's sign, in Flink (Java) and in
//     PostgreSQL alike. Integer results are bounded so that nothing
//     overflows (Flink's INT wraps, PostgreSQL fails), and so are DECIMAL
//     ones (streamsql keeps a DECIMAL in 64 bits and fails past 18 digits).
//   - Division by zero is never generated: a divisor is a nonzero literal or
//     NULLIF(x, 0). (Flink fails on an integer, gives Infinity on a DOUBLE;
//     PostgreSQL fails on both.)
//   - DECIMAL result types follow Flink: + and - keep the larger scale, *
//     adds scales, / has scale max(6, s1 + p2 + 1), AVG(DECIMAL(p, s)) is
//     DECIMAL(38, max(6, s)), SUM is DECIMAL(38, s). PostgreSQL computes with
//     numeric without a typmod and rounds every DECIMAL operation to the
//     model's scale with ROUND (half away from zero, Java's HALF_UP).
//     Multiplication's precision is p1 + p2 as in streamsql and FLINK-34376
//     (Flink 1.x has p1 + p2 + 1); the two differ only past 38 digits, where
//     Flink also gives up scale differently than streamsql (see
//     CappedDecimals). DECIMALs are compared exactly, as fractions.
//   - AVG of an integer is integer division of the sum by the count
//     (PostgreSQL: DIV(SUM(x), COUNT(x))); PostgreSQL's SUM of a bigint is a
//     numeric and is cast back. streamsql's SUM(INT) is BIGINT where
//     Flink's is INT (a documented deviation): integer kinds are one family
//     when types are compared, and sums never overflow.
//   - DOUBLE. Generated doubles are multiples of 1/8, so that sums (and
//     sums after retractions) are exact; values travel as float64 (no
//     printing), PostgreSQL's shortest text reads back exactly, and results
//     are compared within 1e-9 relative or 1e-6 absolute. Flink and
//     streamsql key GROUP BY, DISTINCT and joins on the bits of a DOUBLE, so
//     -0.0 and 0.0 are two keys there and one in PostgreSQL: no DOUBLE
//     expression that can be -0.0 (a product, a quotient, a negation) is
//     grouped, made distinct or equated in a join.
//   - Literals are cast explicitly on the PostgreSQL side: 1.5E0 is a
//     numeric there and a DOUBLE in Flink; 'ab' is CHAR(2) in Flink and
//     text in PostgreSQL; a decimal literal's type is that of its text
//     (2.50 is DECIMAL(3, 2)). CASE, COALESCE, NULLIF, comparisons and
//     UNION ALL branches are converted to the model's common type. Where
//     that type has less scale than a DECIMAL branch (past 38 digits) the
//     branch is rounded to it; comparisons and join keys of DECIMALs are
//     exact, as Flink compares two DECIMALs and streamsql compares join
//     keys (Flink's join-key coercion would round them).
//   - FLOOR and CEIL of a DECIMAL(p, s) are DECIMAL(p, 0), ROUND(x, d) of a
//     DECIMAL follows findRoundDecimalType, half away from zero in both;
//     PostgreSQL's FLOOR, CEIL and ROUND of an integer go through numeric
//     (its FLOOR(int) is a double precision). ROUND of a DOUBLE is not
//     generated (PostgreSQL has no ROUND(double precision, int)).
//   - EXTRACT(SECOND ...) and SECOND(ts) are whole seconds in Flink,
//     PostgreSQL's EXTRACT keeps the fraction: it gets FLOOR. REPLACE never
//     replaces the empty string (Java inserts the replacement between
//     every character, PostgreSQL does nothing). CONCAT(a, b) is not
//     generated (Flink's is NULL with a NULL argument, PostgreSQL's skips
//     it); || and CONCAT_WS (both skip NULLs) are.
//   - CAST(DECIMAL AS STRING) keeps the type's scale in Flink (1.50):
//     PostgreSQL gets ROUND(x, s)::text. Only widening numeric casts are
//     generated (narrowing ones round and overflow differently).
//   - Strings compare by bytes: the database has LC_COLLATE C (byte order,
//     which for the characters generated is Java's UTF-16 order too) and
//     LC_CTYPE C.UTF-8, so UPPER('é') is 'É' as in Java. LIKE patterns use
//     % and _ only. SUBSTRING starts at 1 or later.
//   - NULLs: three-valued logic is the same; no ORDER BY is generated
//     (results are multisets), so NULL ordering never matters.
//   - A streaming aggregate without GROUP BY has no row until its input has
//     one, and deletes its row when retractions empty it (Flink's
//     GroupAggFunction); PostgreSQL's always has one: it gets HAVING
//     COUNT(*) > 0.
//   - PostgreSQL runs a FULL JOIN only on hash- or merge-joinable
//     conditions; one with other conditions (an interval bound) is written
//     as a LEFT JOIN plus the unmatched right rows (rel.pgFull).
//   - streamsql refuses an outer join bounded in time on columns without
//     watermarks (SQL403, a documented refusal): not generated.
//   - Time: TIMESTAMP(3) without time zone on both sides, compared in
//     milliseconds. TUMBLE(t, ts, size) is DATE_BIN(size, ts, epoch) and
//     window_end is start + size; HOP and CUMULATE join each row with
//     GENERATE_SERIES over its windows' starts (HOP: multiples of the slide
//     within size before it) or ends (CUMULATE: multiples of the step after
//     its size-aligned start, up to start + size). An interval join is the same ON clause
//     (bounds are inclusive, as BETWEEN is). Rows of a time table come in
//     order of time plus a noise smaller than the watermark delay, so no
//     row is late; the oracle checks that streamsql counted no late row.
//   - Changelog inputs: PostgreSQL gets each table's final contents; the
//     query's changelog is applied as a multiset, and a -U or -D of a row it
//     does not hold is a failure whatever the final table.
//
// Not covered: FIRST_VALUE, LAST_VALUE and LISTAGG (their answer depends
// on arrival order, which PostgreSQL cannot see), window joins, temporal joins, upsert sources and tables with a
// PRIMARY KEY, Kafka.
package oracle
