package main

// The walk: whatever `check` accepts must run. Every function of the
// expression registry and every declared connector and format, in each
// direction it declares, is run in a tiny job through the command line:
// `check` must pass and `run` must finish with the expected rows. A
// function, connector or format added without runtime support makes these
// tests fail, because each must have a case here (its absence is an
// error), and its case must run.
//
// Expected values are Flink's (its documentation and its Java semantics),
// written by hand, in the print connector's rendering.

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
	"github.com/streamsql/streamsql/expr"
)

// walkSource is the input of the function cases: two rows.
//
//	s            n   b (epoch ms)    d      f    ts
//	Hello World  -7  1767225600123   12.35  2.5  2026-03-15 08:05:09.123 (a Sunday)
//	Bye          3   0               0.50   0.5  2026-03-15 08:06:00.000
const walkSource = `{"s":"Hello World","n":-7,"b":1767225600123,"d":12.35,"f":2.5,"ts":"2026-03-15 08:05:09.123"}
{"s":"Bye","n":3,"b":0,"d":0.5,"f":0.5,"ts":"2026-03-15 08:06:00.000"}
`

const walkTable = `CREATE TABLE src (s STRING, n INT, b BIGINT, d DECIMAL(10, 2), f DOUBLE, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
`

// fnCase is one call of a function over the first row (n < 0), with the
// type of its result and the value expected.
type fnCase struct {
	expr, typ, want string
}

// scalarCases has at least one case per scalar function of the registry.
var scalarCases = map[string][]fnCase{
	"TO_TIMESTAMP_LTZ": {{"TO_TIMESTAMP_LTZ(b, 3)", "TIMESTAMP_LTZ(3)", "2026-01-01 00:00:00.123"},
		{"TO_TIMESTAMP_LTZ(1767225600, 0)", "TIMESTAMP_LTZ(3)", "2026-01-01 00:00:00.000"}},
	"TO_TIMESTAMP": {{"TO_TIMESTAMP('2026-03-15 08:05:09')", "TIMESTAMP(3)", "2026-03-15 08:05:09.000"},
		{"TO_TIMESTAMP('15/03/2026 08', 'dd/MM/yyyy HH')", "TIMESTAMP(3)", "2026-03-15 08:00:00.000"}},
	"TO_DATE":  {{"TO_DATE('2026-03-15')", "DATE", "2026-03-15"}, {"TO_DATE('20260315', 'yyyyMMdd')", "DATE", "2026-03-15"}},
	"COALESCE": {{"COALESCE(CAST(NULL AS STRING), s)", "STRING", "Hello World"}},
	"IFNULL":   {{"IFNULL(CAST(NULL AS INT), n)", "INT", "-7"}},
	"NULLIF":   {{"NULLIF(n, -7)", "INT", "null"}, {"NULLIF(n, 3)", "INT", "-7"}},
	"IF":       {{"IF(n < 0, 'neg', 'pos')", "STRING", "neg"}},
	"CONCAT":   {{"CONCAT(s, '!', 'x')", "STRING", "Hello World!x"}},
	// CONCAT_WS skips NULL arguments (Flink's documented behaviour).
	"CONCAT_WS":        {{"CONCAT_WS('-', 'a', CAST(NULL AS STRING), s)", "STRING", "a-Hello World"}},
	"UPPER":            {{"UPPER(s)", "STRING", "HELLO WORLD"}},
	"LOWER":            {{"LOWER(s)", "STRING", "hello world"}},
	"TRIM":             {{"TRIM('  a b  ')", "STRING", "a b"}, {"TRIM(BOTH 'dH' FROM s)", "STRING", "ello Worl"}, {"TRIM(LEADING FROM ' a ')", "STRING", "a "}},
	"LTRIM":            {{"LTRIM('  a ')", "STRING", "a "}, {"LTRIM(s, 'eHl')", "STRING", "o World"}},
	"RTRIM":            {{"RTRIM(' a  ')", "STRING", " a"}, {"RTRIM(s, 'dlr')", "STRING", "Hello Wo"}},
	"CHAR_LENGTH":      {{"CHAR_LENGTH(s)", "INT", "11"}},
	"CARDINALITY":      {{"CARDINALITY(ARRAY[s, s])", "INT", "2"}},
	"ELEMENT":          {{"ELEMENT(ARRAY[s])", "STRING", "Hello World"}},
	"ARRAY_CONTAINS":   {{"ARRAY_CONTAINS(ARRAY[n, 1], -7)", "BOOLEAN", "true"}},
	"ARRAY_POSITION":   {{"ARRAY_POSITION(ARRAY[1, n], -7)", "INT", "2"}},
	"ARRAY_REMOVE":     {{"ARRAY_REMOVE(ARRAY[n, 1, n], n)", "ARRAY<INT>", "[1]"}},
	"ARRAY_DISTINCT":   {{"ARRAY_DISTINCT(ARRAY[n, 1, n])", "ARRAY<INT>", "[-7, 1]"}},
	"ARRAY_REVERSE":    {{"ARRAY_REVERSE(ARRAY[n, 1])", "ARRAY<INT>", "[1, -7]"}},
	"ARRAY_SLICE":      {{"ARRAY_SLICE(ARRAY[1, 2, n], -2)", "ARRAY<INT>", "[2, -7]"}},
	"ARRAY_UNION":      {{"ARRAY_UNION(ARRAY[n, 1], ARRAY[1, 2])", "ARRAY<INT>", "[-7, 1, 2]"}},
	"ARRAY_CONCAT":     {{"ARRAY_CONCAT(ARRAY[n], ARRAY[1, n])", "ARRAY<INT>", "[-7, 1, -7]"}},
	"ARRAY_JOIN":       {{"ARRAY_JOIN(ARRAY[s, CAST(NULL AS STRING), 'x'], '/')", "STRING", "Hello World/x"}},
	"ARRAY_APPEND":     {{"ARRAY_APPEND(ARRAY[1], n)", "ARRAY<INT>", "[1, -7]"}},
	"ARRAY_PREPEND":    {{"ARRAY_PREPEND(ARRAY[1], n)", "ARRAY<INT>", "[-7, 1]"}},
	"ARRAY_MAX":        {{"ARRAY_MAX(ARRAY[n, 1])", "INT", "1"}},
	"ARRAY_MIN":        {{"ARRAY_MIN(ARRAY[n, 1])", "INT", "-7"}},
	"MAP_KEYS":         {{"MAP_KEYS(MAP[s, n])", "ARRAY<STRING>", "[Hello World]"}},
	"MAP_VALUES":       {{"MAP_VALUES(MAP[s, n])", "ARRAY<INT>", "[-7]"}},
	"MAP_ENTRIES":      {{"CARDINALITY(MAP_ENTRIES(MAP[s, n, 'a', 1]))", "INT", "2"}},
	"MAP_FROM_ARRAYS":  {{"MAP_FROM_ARRAYS(ARRAY[s], ARRAY[n])", "MAP<STRING, INT>", "{Hello World=-7}"}},
	"JSON_STRING":      {{"JSON_STRING(ARRAY[n])", "STRING", "[-7]"}},
	"IS JSON":          {{"s IS JSON", "BOOLEAN", "false"}, {"'[1]' IS JSON ARRAY", "BOOLEAN", "true"}},
	"STR_TO_MAP":       {{"STR_TO_MAP(s, ' ', 'l')", "MAP<STRING, STRING>", "{He=lo, Wor=d}"}, {"STR_TO_MAP('a=1,b')['a']", "STRING", "1"}},
	"JSON_VALUE":       {{"JSON_VALUE('{\"a\": [1, 2.50]}', '$.a[1]' RETURNING DOUBLE)", "DOUBLE", "2.5"}, {"JSON_VALUE(s, 'lax $.a' DEFAULT 'none' ON EMPTY)", "STRING", "none"}},
	"JSON_QUERY":       {{"JSON_QUERY('{\"a\": {\"b\": [1]}}', '$.a')", "STRING", "{\"b\":[1]}"}},
	"JSON_OBJECT":      {{"JSON_OBJECT('s' VALUE s, 'n' VALUE n, 'a' VALUE JSON_ARRAY(1, CAST(NULL AS INT)))", "STRING NOT NULL", "{\"s\":\"Hello World\",\"n\":-7,\"a\":[1]}"}},
	"JSON_ARRAY":       {{"JSON_ARRAY(s, TRUE, CAST(NULL AS INT) NULL ON NULL)", "STRING NOT NULL", "[\"Hello World\",true,null]"}},
	"JSON_EXISTS":      {{"JSON_EXISTS('{\"a\": 1}', '$.a')", "BOOLEAN", "true"}, {"JSON_EXISTS(s, '$.a' UNKNOWN ON ERROR)", "BOOLEAN", "null"}},
	"CHARACTER_LENGTH": {{"CHARACTER_LENGTH('héllo')", "INT", "5"}},
	"SUBSTRING":        {{"SUBSTRING(s, 7)", "STRING", "World"}, {"SUBSTRING(s, 1, 5)", "STRING", "Hello"}},
	"REPLACE":          {{"REPLACE(s, 'World', 'There')", "STRING", "Hello There"}},
	// The example of Flink's documentation.
	"REGEXP_EXTRACT": {{"REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2)", "STRING", "bar"}},
	"REGEXP_REPLACE": {{"REGEXP_REPLACE('foobar', 'oo|ar', '')", "STRING", "fb"},
		{"REGEXP_REPLACE(s, 'o', '$0')", "STRING", "Hell$0 W$0rld"}},
	// commons-lang's splitByWholeSeparatorPreserveAllTokens, as Flink.
	"SPLIT_INDEX": {{"SPLIT_INDEX(s, ' ', 1)", "STRING", "World"}, {"SPLIT_INDEX('a,,b', ',', 1)", "STRING", ""},
		{"SPLIT_INDEX(s, ' ', 2)", "STRING", "null"}},
	"MD5":   {{"MD5('a')", "STRING", "0cc175b9c0f1b6a831c399e269772661"}},
	"ABS":   {{"ABS(n)", "INT", "7"}},
	"FLOOR": {{"FLOOR(f)", "DOUBLE", "2"}, {"FLOOR(d)", "DECIMAL(10, 0)", "12"}, {"FLOOR(ts TO HOUR)", "TIMESTAMP(3)", "2026-03-15 08:00:00.000"}},
	"CEIL":  {{"CEIL(f)", "DOUBLE", "3"}, {"CEIL(ts TO DAY)", "TIMESTAMP(3)", "2026-03-16 00:00:00.000"}},
	// HALF_UP, as Java's BigDecimal does in Flink.
	"ROUND": {{"ROUND(f, 0)", "DOUBLE", "3"}, {"ROUND(d, 1)", "DECIMAL(10, 1)", "12.4"}},
	// Java's %: the sign of the dividend.
	"MOD":   {{"MOD(n, 3)", "INT", "-1"}},
	"POWER": {{"POWER(2, 10)", "DOUBLE", "1024"}},
	"SQRT":  {{"SQRT(16)", "DOUBLE", "4"}},
	"LN":    {{"LN(1)", "DOUBLE", "0"}},
	"LOG10": {{"LOG10(1000)", "DOUBLE", "3"}},
	"EXP":   {{"EXP(0)", "DOUBLE", "1"}},
	// Java DateTimeFormatter patterns, in the en_US locale: weeks start on
	// Sunday and week 1 holds January 1st (2026-03-15, a Sunday, is in week
	// 12 of week-year 2026; ISO would say 11).
	"DATE_FORMAT": {{"DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')", "STRING", "2026-03-15 08:05"},
		{"DATE_FORMAT(ts, 'YYYYww')", "STRING", "202612"},
		{"DATE_FORMAT(ts, 'EEE, d MMM yyyy hh:mm a')", "STRING", "Sun, 15 Mar 2026 08:05 AM"},
		{"DATE_FORMAT(ts, 'D')", "STRING", "74"}},
	"UNIX_TIMESTAMP": {{"UNIX_TIMESTAMP('2026-01-01 00:00:00')", "BIGINT", "1767225600"},
		{"UNIX_TIMESTAMP('20260101', 'yyyyMMdd')", "BIGINT", "1767225600"},
		{"UNIX_TIMESTAMP() > 1767225600", "BOOLEAN", "true"}},
	"FROM_UNIXTIME": {{"FROM_UNIXTIME(1767225600)", "STRING", "2026-01-01 00:00:00"},
		{"FROM_UNIXTIME(0, 'yyyy')", "STRING", "1970"}},
	"PROCTIME":          {{"EXTRACT(YEAR FROM PROCTIME()) >= 2026", "BOOLEAN", "true"}},
	"CURRENT_TIMESTAMP": {{"EXTRACT(YEAR FROM CURRENT_TIMESTAMP) >= 2026", "BOOLEAN", "true"}},
	"NOW":               {{"EXTRACT(YEAR FROM NOW()) >= 2026", "BOOLEAN", "true"}},
	// NULL before the first watermark: the first rows of a file are read
	// before its first watermark.
	"CURRENT_WATERMARK": {{"CURRENT_WATERMARK(ts)", "TIMESTAMP(3)", "null"}},
	"EXTRACT": {{"EXTRACT(HOUR FROM ts)", "BIGINT", "8"}, {"EXTRACT(DOW FROM ts)", "BIGINT", "1"},
		{"EXTRACT(YEAR FROM ts)", "BIGINT", "2026"}},
	"TIMESTAMPDIFF": {{"TIMESTAMPDIFF(SECOND, TIMESTAMP '2026-03-15 08:00:00', ts)", "INT", "309"}},
	// The examples of Flink's documentation (1994-09-27 is a Tuesday).
	"TIMESTAMPADD": {{"TIMESTAMPADD(WEEK, 1, DATE '2003-01-02')", "DATE", "2003-01-09"},
		{"TIMESTAMPADD(MINUTE, n, ts)", "TIMESTAMP(3)", "2026-03-15 07:58:09.123"}},
	"YEAR":       {{"YEAR(DATE '1994-09-27')", "BIGINT", "1994"}},
	"QUARTER":    {{"QUARTER(DATE '1994-09-27')", "BIGINT", "3"}},
	"MONTH":      {{"MONTH(DATE '1994-09-27')", "BIGINT", "9"}},
	"WEEK":       {{"WEEK(DATE '1994-09-27')", "BIGINT", "39"}, {"WEEK(ts)", "BIGINT", "11"}},
	"DAYOFYEAR":  {{"DAYOFYEAR(DATE '1994-09-27')", "BIGINT", "270"}},
	"DAYOFMONTH": {{"DAYOFMONTH(DATE '1994-09-27')", "BIGINT", "27"}},
	"DAYOFWEEK":  {{"DAYOFWEEK(DATE '1994-09-27')", "BIGINT", "3"}, {"DAYOFWEEK(ts)", "BIGINT", "1"}},
	"HOUR":       {{"HOUR(ts)", "BIGINT", "8"}},
	"MINUTE":     {{"MINUTE(ts)", "BIGINT", "5"}},
	"SECOND":     {{"SECOND(ts)", "BIGINT", "9"}},
	// Java's String.hashCode.
	"HASH_CODE": {{"HASH_CODE('a')", "INT", "97"}},
	// expr/funcs_flink.go: Flink's documented examples where it gives one.
	"LPAD":      {{"LPAD('hi', 4, '??')", "STRING", "??hi"}, {"LPAD('hi', 1, '??')", "STRING", "h"}},
	"RPAD":      {{"RPAD('hi', 4, '??')", "STRING", "hi??"}},
	"REPEAT":    {{"REPEAT('This is a test String.', 2)", "STRING", "This is a test String.This is a test String."}},
	"LEFT":      {{"LEFT(s, 5)", "STRING", "Hello"}},
	"RIGHT":     {{"RIGHT(s, 5)", "STRING", "World"}},
	"REVERSE":   {{"REVERSE(s)", "STRING", "dlroW olleH"}},
	"INITCAP":   {{"INITCAP('hello wORLD')", "STRING", "Hello World"}},
	"ASCII":     {{"ASCII(s)", "INT", "72"}},
	"INSTR":     {{"INSTR(s, 'o')", "INT", "5"}},
	"LOCATE":    {{"LOCATE('o', s)", "INT", "5"}, {"LOCATE('o', s, 6)", "INT", "8"}},
	"TO_BASE64": {{"TO_BASE64('hello world')", "STRING", "aGVsbG8gd29ybGQ="}},
	"SHA1":      {{"SHA1('a')", "STRING", "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"}},
	"SHA224":    {{"SHA224('a')", "STRING", "abd37534c7d9a2efb9465de931cd7055ffdb8879563ae98078d6d6d5"}},
	"SHA256":    {{"SHA256('a')", "STRING", "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"}},
	"SHA384": {{"SHA384('a')", "STRING",
		"54a59b9f22b0b80880d8427e548b7c23abd873486e1f035dce9cd697e85175033caa88e6d57bc35efae0b5afd3145f31"}},
	"SHA512": {{"SHA512('a')", "STRING",
		"1f40fc92da241694750979ee6cf582f2d5d7d28e18335de05abc54d0560e0f5302860c652bf08d560252aa5e74210546f369fbbbce8c12cfc7957b2652fe9a75"}},
	"SHA2":           {{"SHA2('a', 256)", "STRING", "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"}},
	"UUID":           {{"CHAR_LENGTH(UUID())", "INT", "36"}},
	"SIN":            {{"SIN(0)", "DOUBLE", "0"}},
	"COS":            {{"COS(0)", "DOUBLE", "1"}},
	"TAN":            {{"TAN(0)", "DOUBLE", "0"}},
	"COT":            {{"ROUND(COT(1), 6)", "DOUBLE", "0.642093"}},
	"ASIN":           {{"ASIN(1)", "DOUBLE", "1.5707963267948966"}},
	"ACOS":           {{"ACOS(1)", "DOUBLE", "0"}},
	"ATAN":           {{"ATAN(0)", "DOUBLE", "0"}},
	"ATAN2":          {{"ROUND(ATAN2(1, 1), 6)", "DOUBLE", "0.785398"}},
	"SINH":           {{"SINH(0)", "DOUBLE", "0"}},
	"COSH":           {{"COSH(0)", "DOUBLE", "1"}},
	"TANH":           {{"TANH(0)", "DOUBLE", "0"}},
	"DEGREES":        {{"DEGREES(PI())", "DOUBLE", "180"}},
	"RADIANS":        {{"RADIANS(180)", "DOUBLE", "3.141592653589793"}},
	"LOG":            {{"LOG(E())", "DOUBLE", "1"}, {"LOG(2, 8)", "DOUBLE", "3"}},
	"LOG2":           {{"LOG2(8)", "DOUBLE", "3"}},
	"PI":             {{"PI()", "DOUBLE", "3.141592653589793"}},
	"E":              {{"E()", "DOUBLE", "2.718281828459045"}},
	"SIGN":           {{"SIGN(n)", "INT", "-1"}, {"SIGN(d)", "DECIMAL(10, 2)", "1.00"}},
	"BIN":            {{"BIN(12)", "STRING", "1100"}},
	"HEX":            {{"HEX(100)", "STRING", "64"}, {"HEX('hello,world')", "STRING", "68656C6C6F2C776F726C64"}},
	"RAND":           {{"RAND(42)", "DOUBLE", "0.7275636800328681"}, {"RAND() < 1", "BOOLEAN", "true"}},
	"RAND_INTEGER":   {{"RAND_INTEGER(42, 10)", "INT", "0"}, {"RAND_INTEGER(10) < 10", "BOOLEAN", "true"}},
	"GREATEST":       {{"GREATEST(1, n, 3)", "INT", "3"}},
	"LEAST":          {{"LEAST(1, n, 3)", "INT", "-7"}},
	"CURRENT_DATE":   {{"CURRENT_DATE > DATE '2026-01-01'", "BOOLEAN", "true"}},
	"CURRENT_TIME":   {{"CURRENT_TIME IS NOT NULL", "BOOLEAN", "true"}},
	"LOCALTIME":      {{"LOCALTIME IS NOT NULL", "BOOLEAN", "true"}},
	"LOCALTIMESTAMP": {{"EXTRACT(YEAR FROM LOCALTIMESTAMP) >= 2026", "BOOLEAN", "true"}},
	"CONVERT_TZ": {{"CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles')", "STRING", "1969-12-31 16:00:00"},
		{"CONVERT_TZ(CAST(ts AS STRING), 'UTC', 'Asia/Tokyo')", "STRING", "2026-03-15 17:05:09"}},
	// The functions of expr/funcs_more.go (and the keyword forms of
	// FLOOR, CEIL, TRIM, LTRIM, RTRIM above).
	"POSITION":    {{"POSITION('World' IN s)", "INT", "7"}},
	"OVERLAY":     {{"OVERLAY(s PLACING 'J' FROM 1 FOR 1)", "STRING", "Jello World"}, {"OVERLAY(s PLACING 'ey' FROM 2)", "STRING", "Heylo World"}},
	"REGEXP":      {{"REGEXP(s, 'W.r')", "BOOLEAN", "true"}, {"REGEXP(s, '^W')", "BOOLEAN", "false"}},
	"CHR":         {{"CHR(n + 104)", "STRING", "a"}, {"CHR(353)", "STRING", "a"}},
	"ENCODE":      {{"CHAR_LENGTH(DECODE(ENCODE(s, 'UTF-16'), 'ISO-8859-1'))", "INT", "24"}},
	"DECODE":      {{"DECODE(ENCODE(s, 'UTF-16LE'), 'UTF-16LE')", "STRING", "Hello World"}},
	"FROM_BASE64": {{"FROM_BASE64('aGVsbG8gd29ybGQ=')", "STRING", "hello world"}, {"FROM_BASE64(TO_BASE64(s))", "STRING", "Hello World"}},
	"PARSE_URL": {{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST')", "STRING", "facebook.com"},
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY', 'k1')", "STRING", "v1"}},
	"ELT":                   {{"ELT(2, s, 'x')", "STRING", "x"}},
	"TRANSLATE":             {{"TRANSLATE(s, 'lo', '01')", "STRING", "He001 W1r0d"}},
	"IS_ALPHA":              {{"IS_ALPHA(s)", "BOOLEAN", "false"}, {"IS_ALPHA('Hello')", "BOOLEAN", "true"}},
	"IS_DIGIT":              {{"IS_DIGIT(CAST(b AS STRING))", "BOOLEAN", "true"}},
	"IS_DECIMAL":            {{"IS_DECIMAL(CAST(d AS STRING))", "BOOLEAN", "true"}, {"IS_DECIMAL(s)", "BOOLEAN", "false"}},
	"TRUNCATE":              {{"TRUNCATE(d, 1)", "DECIMAL(10, 1)", "12.3"}, {"TRUNCATE(n, -1)", "INT", "0"}},
	"CURRENT_ROW_TIMESTAMP": {{"EXTRACT(YEAR FROM CURRENT_ROW_TIMESTAMP()) >= 2026", "BOOLEAN", "true"}},
	"SPLIT":                 {{"SPLIT(s, ' ')[2]", "STRING", "World"}, {"CARDINALITY(SPLIT(s, 'o'))", "INT", "3"}},
}

// aggCases has at least one case per aggregate, over both rows in file
// order; want is the final value.
var aggCases = map[string][]fnCase{
	"COUNT":       {{"COUNT(*)", "BIGINT", "2"}, {"COUNT(DISTINCT s)", "BIGINT", "2"}},
	"SUM":         {{"SUM(n)", "BIGINT", "-4"}, {"SUM(d)", "DECIMAL(38, 2)", "12.85"}},
	"AVG":         {{"AVG(f)", "DOUBLE", "1.5"}},
	"MIN":         {{"MIN(s)", "STRING", "Bye"}},
	"MAX":         {{"MAX(n)", "INT", "3"}},
	"FIRST_VALUE": {{"FIRST_VALUE(s)", "STRING", "Hello World"}},
	"LAST_VALUE":  {{"LAST_VALUE(s)", "STRING", "Bye"}},
	"LISTAGG":     {{"LISTAGG(s)", "STRING", "Hello World,Bye"}, {"LISTAGG(s, ';')", "STRING", "Hello World;Bye"}},
	"ARRAY_AGG":   {{"ARRAY_AGG(s)", "ARRAY<STRING>", "[Hello World, Bye]"}, {"ARRAY_AGG(n) FILTER (WHERE n > 0)", "ARRAY<INT>", "[3]"}},
	"JSON_OBJECTAGG": {{"JSON_OBJECTAGG(KEY s VALUE n)", "STRING", `{"Bye":3,"Hello World":-7}`},
		{"JSON_OBJECTAGG(KEY s VALUE JSON_ARRAY(f)) FILTER (WHERE n > 0)", "STRING", `{"Bye":[0.5]}`}},
	"JSON_ARRAYAGG": {{"JSON_ARRAYAGG(s)", "STRING", `["Hello World","Bye"]`}},
	// f is 2.5 and 0.5, n -7 and 3: Flink's rewrite, integer division for INT.
	"STDDEV_POP":  {{"STDDEV_POP(f)", "DOUBLE", "1"}},
	"STDDEV_SAMP": {{"STDDEV_SAMP(f)", "DOUBLE", "1.4142135623730951"}, {"STDDEV(n)", "INT", "7"}},
	"VAR_POP":     {{"VAR_POP(n)", "INT", "25"}},
	"VAR_SAMP":    {{"VAR_SAMP(n)", "INT", "50"}, {"VARIANCE(f)", "DOUBLE", "2"}},
	// Window aggregates only (walkWindow): one day's window, emitted once
	// when the file ends, final.
	"WINDOW_FINALITY": {{"WINDOW_FINALITY()", "STRING", "FINAL"}},
	"WINDOW_VERSION":  {{"WINDOW_VERSION()", "BIGINT", "1"}},
}

// walkWindow is the FROM and GROUP BY of the aggregates that only a window
// aggregate takes (expr.IsWindowMeta).
const walkWindow = " FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end"

// TestWalkFunctions runs every function of the registry.
func TestWalkFunctions(t *testing.T) {
	for _, name := range expr.FunctionNames() {
		agg := expr.IsAggregate(name)
		cases := scalarCases[name]
		if agg {
			cases = aggCases[name]
		}
		if len(cases) == 0 {
			t.Errorf("function %s has no case in the walk (scalarCases or aggCases): add one, and make it run", name)
			continue
		}
		for _, c := range cases {
			query := "SELECT " + c.expr + " FROM src WHERE n < 0"
			if agg {
				query = "SELECT " + c.expr + " FROM src"
				if expr.IsWindowMeta(name) {
					query = "SELECT " + c.expr + walkWindow
				}
			}
			got := walkRun(t, map[string]string{"in.json": walkSource},
				walkTable+"CREATE TABLE out (v "+c.typ+") WITH ('connector' = 'print', 'print-identifier' = 'w');\n"+
					"INSERT INTO out "+query+";\n")
			if want := []string{"[" + c.want + "]"}; !slices.Equal(got, want) {
				t.Errorf("%s: got %v, want %v", c.expr, got, want)
			}
		}
	}
	for name := range scalarCases {
		if !slices.Contains(expr.FunctionNames(), name) || expr.IsAggregate(name) {
			t.Errorf("scalarCases has %s, which is not a scalar function of the registry", name)
		}
	}
	for name := range aggCases {
		if !expr.IsAggregate(name) {
			t.Errorf("aggCases has %s, which is not an aggregate of the registry", name)
		}
	}
}

// walkRun writes files and job.sql into a new directory, checks the job
// (it must pass) and runs it (it must exit 0), and returns the final rows
// of the print sink with identifier w: the changelog applied, sorted.
func walkRun(t *testing.T, files map[string]string, job string) []string {
	t.Helper()
	dir := t.TempDir()
	files["job.sql"] = job
	writeFilesIn(t, dir, files)
	path := filepath.Join(dir, "job.sql")
	if r := invoke("check", path); r.code != 0 {
		t.Errorf("check refused the job:\n%s\n%s", job, r)
		return nil
	}
	r := invoke("run", path)
	if r.code != 0 {
		t.Errorf("check accepted the job but run failed:\n%s\n%s", job, r)
		return nil
	}
	return applyChangelog(t, r.stdout, "w> ")
}

// applyChangelog reads print lines "w> +I[...]" and returns the rows left
// after applying them (+I/+U add, -U/-D remove), sorted.
func applyChangelog(t *testing.T, out, prefix string) []string {
	t.Helper()
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok || len(rest) < 3 {
			continue
		}
		kind, vals := rest[:2], rest[2:]
		switch kind {
		case "+I", "+U":
			rows = append(rows, vals)
		case "-U", "-D":
			i := slices.Index(rows, vals)
			if i < 0 {
				t.Errorf("%s retracts %s, which is not there", kind, vals)
				continue
			}
			rows = append(rows[:i], rows[i+1:]...)
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	sort.Strings(rows)
	return rows
}

// TestCurrentWatermarkRun: CURRENT_WATERMARK(ts) in a projection is NULL
// before the operator's first watermark, then the watermark that last
// passed it: never more than the largest earlier ts minus the delay, never
// going back, and set for the rows of later batches (a file is read 1024
// lines at a time, with a watermark after each batch).
func TestCurrentWatermarkRun(t *testing.T) {
	const n = 3000
	var in strings.Builder
	ts := make([]int64, n)
	for i := range n {
		ts[i] = int64(i) * 1000
		if i%10 == 9 {
			ts[i] -= 30_000 // out of order
		}
		fmt.Fprintf(&in, "{\"i\":%d,\"ts\":\"%s\"}\n", i, time.UnixMilli(1767225600000+ts[i]).UTC().Format("2006-01-02 15:04:05.000"))
	}
	job := `CREATE TABLE src (i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE out (i INT, w TIMESTAMP(3)) WITH ('connector' = 'print', 'print-identifier' = 'w');
INSERT INTO out SELECT i, CURRENT_WATERMARK(ts) FROM src;
`
	dir := t.TempDir()
	writeFilesIn(t, dir, map[string]string{"in.json": in.String(), "job.sql": job})
	r := invoke("run", filepath.Join(dir, "job.sql"))
	if r.code != 0 {
		t.Fatalf("run:\n%s", r)
	}
	var lines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "w> +I[") {
			lines = append(lines, l)
		}
	}
	if len(lines) != n {
		t.Fatalf("got %d rows, want %d", len(lines), n)
	}
	maxSeen, last, set := int64(math.MinInt64), int64(math.MinInt64), 0
	for k, l := range lines {
		i0, w, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(l, "w> +I["), "]"), ", ")
		i, _ := strconv.Atoi(i0)
		if i != k {
			t.Fatalf("row %d is i=%d: rows out of order", k, i)
		}
		if k == 0 && w != "null" {
			t.Errorf("the first row sees watermark %s, want NULL", w)
		}
		if w != "null" {
			tm, err := time.Parse("2006-01-02 15:04:05.000", w)
			if err != nil {
				t.Fatalf("row %d: %q: %v", k, l, err)
			}
			wm := tm.UnixMilli() - 1767225600000
			if wm > maxSeen-2000 {
				t.Errorf("row %d sees watermark %d, beyond the largest earlier ts %d minus 2s", k, wm, maxSeen)
			}
			if wm < last {
				t.Errorf("row %d: the watermark went back from %d to %d", k, last, wm)
			}
			last = wm
			set++
		}
		maxSeen = max(maxSeen, ts[k])
	}
	if set < n/2 {
		t.Errorf("only %d of %d rows saw a watermark", set, n)
	}
}

// The rows of the connector cases: (1, 'a'), (2, 'b'); a raw table has
// the string column only.
var walkRows = []struct {
	id int
	s  string
}{{1, "a"}, {2, "b"}}

// encodeWalk returns the records of the walk rows in a format, as Flink
// writes them; keys are the id (for upsert-kafka) in keyFormat.
func encodeWalk(format string) []string {
	var out []string
	for _, r := range walkRows {
		switch format {
		case "json":
			out = append(out, fmt.Sprintf(`{"id":%d,"s":"%s"}`, r.id, r.s))
		case "csv":
			out = append(out, fmt.Sprintf(`%d,%s`, r.id, r.s))
		case "debezium-json":
			out = append(out, fmt.Sprintf(`{"before":null,"after":{"id":%d,"s":"%s"},"op":"c"}`, r.id, r.s))
		case "raw":
			out = append(out, r.s)
		default:
			return nil
		}
	}
	return out
}

// walkKey is the upsert-kafka key of walk row i in a format: its id, or
// for raw (one column) its string.
func walkKey(format string, i int) string {
	r := walkRows[i]
	switch format {
	case "json":
		return fmt.Sprintf(`{"id":%d}`, r.id)
	case "csv":
		return strconv.Itoa(r.id)
	case "raw":
		return r.s
	}
	return ""
}

// walkKeyColumn is the primary key of an upsert-kafka table in a format.
func walkKeyColumn(format string) string {
	if format == "raw" {
		return "s"
	}
	return "id"
}

// walkColumns is the table's columns for a format: raw holds one column.
func walkColumns(format string) (cols, printed string, want []string) {
	if format == "raw" {
		return "s STRING", "s", []string{"[a]", "[b]"}
	}
	return "id INT, s STRING", "id, s", []string{"[1, a]", "[2, b]"}
}

// TestWalkConnectors reads every connector that declares itself a source
// and writes every one that declares itself a sink, with every format that
// check accepts for it, and compares what comes out with Flink's encoding
// of the rows. A combination check accepts must run; one it refuses must
// be refused by a declaration (a code other than SQL407, the code of what
// the runtime refuses), never only by the runtime.
func TestWalkConnectors(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	addr := cluster.ListenAddrs()[0]
	topicN := 0
	newTopic := func() string {
		topicN++
		name := fmt.Sprintf("walk%d", topicN)
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, name); err != nil {
			t.Fatal(err)
		}
		return name
	}
	formats := connectors.FormatNames()
	ran := map[string]bool{}
	for _, name := range connectors.Names() {
		spec, _ := connectors.Lookup(name)
		fmts := []string{""}
		if len(spec.FormatOptions) > 0 {
			fmts = formats
		}
		for _, f := range fmts {
			if spec.Source {
				walkSourceCase(t, name, f, addr, newTopic, ran)
			}
			if spec.Sink {
				walkSinkCase(t, name, f, addr, newTopic, ran)
			}
		}
		if spec.Source && !ran[name+" source"] {
			t.Errorf("connector %s is declared a source, but it ran with no format", name)
		}
		if spec.Sink && !ran[name+" sink"] {
			t.Errorf("connector %s is declared a sink, but it ran with no format", name)
		}
	}
	for _, f := range formats {
		for _, dir := range []string{"source", "sink"} {
			if !ran["format "+f+" "+dir] {
				t.Errorf("format %s: no connector ran it as a %s", f, dir)
			}
		}
	}
}

// walkCheckRun checks and runs job in dir. It returns false, after saying
// why, when check refuses the job by a declaration (a combination that is
// not offered); a refusal by the runtime (SQL407) or a failed run is an
// error of the test.
func walkCheckRun(t *testing.T, what, dir, job string) (result, bool) {
	t.Helper()
	path := filepath.Join(dir, "job.sql")
	writeFilesIn(t, dir, map[string]string{"job.sql": job})
	if r := invoke("check", path); r.code != 0 {
		if strings.Contains(r.stdout, "[SQL407]") {
			t.Errorf("%s: declared, but the runtime refuses it:\n%s\n%s", what, job, r)
		} else {
			t.Logf("%s: not offered: %s", what, strings.SplitN(r.stdout, "\n", 2)[0])
		}
		return r, false
	}
	r := invoke("run", path)
	if r.code != 0 {
		t.Errorf("%s: check accepted the job but run failed:\n%s\n%s", what, job, r)
		return r, false
	}
	return r, true
}

func kafkaOptions(addr, topic string) string {
	return fmt.Sprintf("'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'", topic, addr)
}

// upsertKafkaOptions: upsert-kafka always reads from the earliest offset.
func upsertKafkaOptions(addr, topic string) string {
	return fmt.Sprintf("'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'scan.bounded.mode' = 'latest-offset'", topic, addr)
}

// walkSourceCase reads connector conn with format f into a print sink.
func walkSourceCase(t *testing.T, conn, f, addr string, newTopic func() string, ran map[string]bool) {
	t.Helper()
	what := conn + " source"
	if f != "" {
		what += " with " + f
	}
	dir := t.TempDir()
	cols, printed, want := walkColumns(f)
	var with string
	switch conn {
	case "filesystem":
		recs := encodeWalk(f)
		writeFilesIn(t, dir, map[string]string{"in.txt": strings.Join(recs, "\n") + "\n"})
		with = fmt.Sprintf("'connector' = 'filesystem', 'path' = 'in.txt', 'format' = '%s'", f)
	case "kafka":
		topic := newTopic()
		var recs []*kgo.Record
		for _, v := range encodeWalk(f) {
			recs = append(recs, &kgo.Record{Topic: topic, Value: []byte(v)})
		}
		produceWalk(t, addr, recs)
		with = fmt.Sprintf("'connector' = 'kafka', %s, 'format' = '%s'", kafkaOptions(addr, topic), f)
	case "upsert-kafka":
		topic := newTopic()
		var recs []*kgo.Record
		for i, v := range encodeWalk(f) {
			recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(walkKey(f, i)), Value: []byte(v)})
		}
		produceWalk(t, addr, recs)
		cols += ", PRIMARY KEY (" + walkKeyColumn(f) + ") NOT ENFORCED"
		with = fmt.Sprintf("'connector' = 'upsert-kafka', %s, 'key.format' = '%s', 'value.format' = '%s'", upsertKafkaOptions(addr, topic), f, f)
	case "jdbc":
		db, err := jdbctest.TryOpen(t, "postgres")
		if err != nil {
			walkWithoutServer(t, what, err)
			ran[conn+" source"] = true
			return
		}
		db.Exec(t, "CREATE TABLE src (id INT, s VARCHAR(10))", "INSERT INTO src VALUES (1, 'a'), (2, 'b')")
		with = db.With("", "src")
	case "datagen":
		with = "'connector' = 'datagen', 'number-of-rows' = '2', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2', 'fields.s.length' = '1'"
		want = nil
	case "faker":
		// numberBetween's maximum is excluded (Java Faker's): always 1.
		with = "'connector' = 'faker', 'number-of-rows' = '2', 'fields.id.expression' = '#{number.numberBetween ''1'',''2''}', " +
			"'fields.s.expression' = '#{Options.option ''a''}'"
		want = []string{"[1, a]", "[1, a]"}
	case "nexmark":
		cols, printed = "auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3)", "auction"
		with = "'connector' = 'nexmark', 'nexmark.table' = 'bid', 'events.num' = '100'"
		want = nil
	default:
		t.Errorf("%s: the walk does not know how to read this connector: add it", what)
		return
	}
	job := fmt.Sprintf("CREATE TABLE src (%s) WITH (%s);\nCREATE TABLE out (%s) WITH ('connector' = 'print', 'print-identifier' = 'w');\nINSERT INTO out SELECT %s FROM src;\n",
		cols, with, strings.SplitN(cols, ", PRIMARY KEY", 2)[0], printed)
	if conn == "nexmark" {
		job = strings.Replace(job, "CREATE TABLE out (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3))", "CREATE TABLE out (auction BIGINT)", 1)
	}
	r, ok := walkCheckRun(t, what, dir, job)
	if !ok {
		return
	}
	got := applyChangelog(t, r.stdout, "w> ")
	switch {
	case want != nil && !slices.Equal(got, want):
		t.Errorf("%s: got %v, want %v", what, got, want)
	case want == nil && len(got) == 0:
		t.Errorf("%s: no rows", what)
	case conn == "datagen" && len(got) != 2:
		t.Errorf("%s: got %d rows, want 2: %v", what, len(got), got)
	}
	ran[conn+" source"] = true
	ran["format "+f+" source"] = true
}

// walkSinkCase writes the walk rows, read from a json file, with connector
// conn and format f, and reads them back.
func walkSinkCase(t *testing.T, conn, f, addr string, newTopic func() string, ran map[string]bool) {
	t.Helper()
	what := conn + " sink"
	if f != "" {
		what += " with " + f
	}
	dir := t.TempDir()
	writeFilesIn(t, dir, map[string]string{"in.json": strings.Join(encodeWalk("json"), "\n") + "\n"})
	cols, printed, want := walkColumns(f)
	var with, topic string
	var db *jdbctest.DB
	switch conn {
	case "filesystem":
		with = fmt.Sprintf("'connector' = 'filesystem', 'path' = 'out.txt', 'format' = '%s'", f)
	case "kafka":
		topic = newTopic()
		with = fmt.Sprintf("'connector' = 'kafka', %s, 'format' = '%s'", kafkaOptions(addr, topic), f)
	case "upsert-kafka":
		topic = newTopic()
		cols += ", PRIMARY KEY (" + walkKeyColumn(f) + ") NOT ENFORCED"
		with = fmt.Sprintf("'connector' = 'upsert-kafka', %s, 'key.format' = '%s', 'value.format' = '%s'", upsertKafkaOptions(addr, topic), f, f)
	case "print":
		with = "'connector' = 'print', 'print-identifier' = 'w'"
	case "jdbc":
		var err error
		if db, err = jdbctest.TryOpen(t, "mysql"); err != nil {
			walkWithoutServer(t, what, err)
			ran[conn+" sink"] = true
			return
		}
		db.Exec(t, "CREATE TABLE out_t (id INT, s VARCHAR(10))")
		with = db.With("", "out_t")
	case "blackhole":
		with = "'connector' = 'blackhole'"
	default:
		t.Errorf("%s: the walk does not know how to write this connector: add it", what)
		return
	}
	job := fmt.Sprintf(`CREATE TABLE src (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE out (%s) WITH (%s);
INSERT INTO out SELECT %s FROM src;
`, cols, with, printed)
	r, ok := walkCheckRun(t, what, dir, job)
	if !ok {
		return
	}
	var got []string
	wantRecs := encodeWalk(f)
	switch conn {
	case "filesystem":
		b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
		if err != nil {
			t.Fatal(err)
		}
		got = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	case "kafka", "upsert-kafka":
		for _, rec := range consumeWalk(t, addr, topic) {
			if conn == "upsert-kafka" {
				got = append(got, string(rec.Key)+" "+string(rec.Value))
			} else {
				got = append(got, string(rec.Value))
			}
		}
		if conn == "upsert-kafka" {
			for i := range wantRecs {
				wantRecs[i] = walkKey(f, i) + " " + wantRecs[i]
			}
		}
	case "print":
		got, wantRecs = applyChangelog(t, r.stdout, "w> "), want
	case "jdbc":
		rows, err := db.SQL.Query("SELECT id, s FROM out_t")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int
			var s string
			if err := rows.Scan(&id, &s); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("[%d, %s]", id, s))
		}
		rows.Close()
		wantRecs = want
	case "blackhole":
		got, wantRecs = nil, nil
		if !regexp.MustCompile(`sink out +2 rows written`).MatchString(r.stderr) {
			t.Errorf("%s: the summary does not say 2 rows were written:\n%s", what, r.stderr)
		}
	}
	sort.Strings(got)
	sort.Strings(wantRecs)
	if !slices.Equal(got, wantRecs) {
		t.Errorf("%s: wrote %q, want %q", what, got, wantRecs)
	}
	ran[conn+" sink"] = true
	ran["format "+f+" sink"] = true
}

// walkWithoutServer says that a case needing a database server did not
// run; under CI, where .ci/run starts the servers, that fails the test.
func walkWithoutServer(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Errorf("%s: %v", what, err)
		return
	}
	t.Logf("%s: not run: %v", what, err)
}

func produceWalk(t *testing.T, addr string, recs []*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// consumeWalk reads every record of a topic, up to its end offsets.
func consumeWalk(t *testing.T, addr, topic string) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	var out []*kgo.Record
	for int64(len(out)) < total {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records of %s", len(out), total, topic)
		}
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	return out
}

// TestCheckRefusesWhatRunCannotStart: check asks the connector runtimes
// about every table a job reads and writes, so that what they would refuse
// when the job starts is a check error (SQL407) at the table; before, check
// passed these and run failed.
func TestCheckRefusesWhatRunCannotStart(t *testing.T) {
	for _, c := range []struct{ ddl, query, want string }{
		{"CREATE TABLE t (v INT) WITH ('connector' = 'filesystem', 'path' = 'in.bin', 'format' = 'raw')",
			"SELECT v FROM t", "table t cannot be read: column v is INT: the raw format holds a STRING or BYTES column"},
		{"CREATE TABLE t (a STRING, b STRING) WITH ('connector' = 'filesystem', 'path' = 'in.txt', 'format' = 'raw')",
			"SELECT a FROM t", "the raw format holds one column"},
		{"CREATE TABLE t (v STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json', 'source.monitor-interval' = '1s')",
			"SELECT v FROM t", "table t cannot be read: 'source.monitor-interval'"},
		{"CREATE TABLE t (v STRING) WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p', 'properties.acks' = '1')",
			"INSERT INTO t SELECT CAST(n AS STRING) FROM g", "table t cannot be written: 'sink.delivery-guarantee' = 'exactly-once' needs 'properties.acks' = 'all'"},
	} {
		job := "CREATE TABLE g (n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');\n" + c.ddl + ";\n" + c.query + ";\n"
		path := writeJob(t, "job.sql", job)
		r := invoke("check", path)
		if r.code != 1 || !strings.Contains(r.stdout, "job.sql:2:14: error: ") || !strings.Contains(r.stdout, "[SQL407]") ||
			!strings.Contains(r.stdout, c.want) {
			t.Errorf("%s\nwant SQL407 at job.sql:2:14 saying %q, got:\n%s", job, c.want, r)
		}
	}
}
