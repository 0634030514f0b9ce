package main

// Tab completion in the shell: keywords, functions and type names, the
// session's tables and views, their columns, and SET keys.

import (
	"sort"
	"strings"
	"unicode"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/planner"
)

// shellKeywords are completed in the case the word is typed in.
var shellKeywords = strings.Fields(`
	SELECT FROM WHERE GROUP BY HAVING ORDER LIMIT DISTINCT ALL AS ON USING
	JOIN INNER LEFT RIGHT FULL OUTER CROSS LATERAL UNION EXCEPT INTERSECT
	AND OR NOT IN IS NULL TRUE FALSE BETWEEN LIKE EXISTS CASE WHEN THEN ELSE END
	INTERVAL SECOND MINUTE HOUR DAY MONTH YEAR
	CREATE TEMPORARY TABLE VIEW IF DROP INSERT INTO OVERWRITE VALUES WITH
	WATERMARK FOR PRIMARY KEY NOT ENFORCED CONSTRAINT METADATA VIRTUAL COMMENT
	SET RESET SHOW TABLES VIEWS FUNCTIONS JOBS DESCRIBE EXPLAIN STOP JOB
	EXECUTE STATEMENT BEGIN HELP QUIT EXIT
	TUMBLE HOP CUMULATE DESCRIPTOR SYSTEM_TIME OF
	STRING VARCHAR CHAR BOOLEAN TINYINT SMALLINT INT INTEGER BIGINT FLOAT DOUBLE
	DECIMAL DATE TIME TIMESTAMP TIMESTAMP_LTZ BYTES
`)

// tableWords are followed by a table or view name.
var tableWords = map[string]bool{"FROM": true, "JOIN": true, "INTO": true, "TABLE": true, "VIEW": true,
	"DESCRIBE": true, "DESC": true}

// setKeys are the settings SET completes (TestShellSetKeysAreKnown keeps
// them known to the planner).
var setKeys = []string{
	"sql-client.execution.result-mode",
	"table.exec.state.ttl",
	"table.exec.source.idle-timeout",
	"table.exec.watermark.drift-warning",
	"table.local-time-zone",
	"parallelism",
	"pipeline.name",
}

// completer implements readline.AutoCompleter over the session's catalog.
type completer struct{ sess *planner.Session }

// Do returns, for the word before pos, the rest of every candidate, and
// the length of the word.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	pos = min(pos, len(line))
	start := pos
	quoted := strings.Count(string(line[:pos]), "'")%2 == 1
	if quoted {
		for line[start-1] != '\'' {
			start--
		}
	} else {
		for start > 0 && isWordRune(line[start-1]) {
			start--
		}
	}
	word := string(line[start:pos])
	prev := strings.ToUpper(previousWord(line[:start]))
	cands := c.candidates(word, prev, quoted)
	out := make([][]rune, 0, len(cands))
	for _, s := range cands {
		out = append(out, []rune(s[len(word):]))
	}
	return out, len([]rune(word))
}

// candidates lists the completions of word (each starting with word).
func (c *completer) candidates(word, prev string, quoted bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s, suffix string) {
		if strings.HasPrefix(s, word) && s != word && !seen[s] {
			seen[s] = true
			out = append(out, s+suffix)
		}
	}
	if quoted {
		for _, k := range setKeys {
			add(k, "'")
		}
		return out
	}
	table, col, dotted := strings.Cut(word, ".")
	if dotted {
		// t.col: the columns of t, or of every table when t is an alias.
		for _, tb := range c.sess.Catalog.Tables() {
			if tb.Name != table && c.isTable(table) {
				continue
			}
			for _, cl := range tb.Columns {
				if strings.HasPrefix(cl.Name, col) {
					add(table+"."+cl.Name, "")
				}
			}
		}
		sort.Strings(out)
		return out
	}
	for _, n := range c.sess.Catalog.Names() {
		add(n, " ")
	}
	if tableWords[prev] || word == "" && prev == "" {
		sort.Strings(out)
		return out
	}
	for _, tb := range c.sess.Catalog.Tables() {
		for _, cl := range tb.Columns {
			add(cl.Name, "")
		}
	}
	if word == "" {
		sort.Strings(out)
		return out
	}
	upper := unicode.IsUpper([]rune(word)[0])
	kw := func(k, suffix string) {
		if !upper {
			k = strings.ToLower(k)
		}
		add(k, suffix)
	}
	for _, k := range shellKeywords {
		kw(k, " ")
	}
	for _, f := range expr.FunctionNames() {
		kw(f, "(")
	}
	sort.Strings(out)
	return out
}

func (c *completer) isTable(name string) bool {
	_, ok := c.sess.Catalog.Table(name)
	return ok
}

func isWordRune(r rune) bool {
	return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// previousWord is the last word of line (before the word being completed).
func previousWord(line []rune) string {
	end := len(line)
	for end > 0 && unicode.IsSpace(line[end-1]) {
		end--
	}
	start := end
	for start > 0 && isWordRune(line[start-1]) {
		start--
	}
	return string(line[start:end])
}
