package parser

import (
	"strings"
	"testing"

	tidb "github.com/pingcap/tidb/pkg/parser"
)

// flinkAndTiDBKeywords are the words TiDB's grammar reserves that are also
// in Flink's list of SQL keywords (Flink's docs, "Reserved Keywords"): a
// Flink user quotes them too, so they stay reserved here.
const flinkAndTiDBKeywords = `ADD ALL ALTER AND ARRAY AS ASC BETWEEN BIGINT BINARY BLOB BOTH BY CALL CASCADE CASE
	CHAR CHARACTER CHECK COLLATE COLUMN CONSTRAINT CONTINUE CONVERT CREATE CROSS CUME_DIST CURRENT_DATE CURRENT_ROLE
	CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER CURSOR DATABASE DECIMAL DEFAULT DELETE DENSE_RANK DESC DESCRIBE
	DISTINCT DOUBLE DROP ELSE EXCEPT EXISTS EXPLAIN FALSE FETCH FIRST_VALUE FLOAT FOR FOREIGN FROM GENERATED GRANT
	GROUP HAVING IN INNER INOUT INSERT INT INTEGER INTERSECT INTERVAL INTO IS JOIN LAST_VALUE LATERAL LEADING LEFT
	LIKE LIMIT LOCALTIME LOCALTIMESTAMP MATCH MAXVALUE MOD NATURAL NOT NULL NUMERIC OF ON OPTION OR ORDER OUT OUTER
	OVER PARTITION PERCENT_RANK PRECISION PRIMARY PROCEDURE RANGE RANK READ REAL RECURSIVE REFERENCES RELEASE
	RESTRICT REVOKE RIGHT ROW ROWS ROW_NUMBER SELECT SET SMALLINT SQL SQLEXCEPTION SQLSTATE SQLWARNING TABLE
	TABLESAMPLE THEN TINYINT TO TRAILING TRIGGER TRUE UNION UNIQUE UPDATE USAGE USING VALUES VARBINARY VARCHAR
	VARYING WHEN WHERE WINDOW WITH WRITE
	SHOW`

// TestTiDBReservedWords checks, for every word TiDB's parser reserves, that
// a query either takes it as a name (the words Flink does not reserve) or
// it is one Flink reserves as well. A TiDB upgrade that reserves a new word
// fails here until the word is put in one list or the other.
func TestTiDBReservedWords(t *testing.T) {
	both := map[string]bool{}
	for _, w := range strings.Fields(flinkAndTiDBKeywords) {
		both[w] = true
	}
	n := 0
	for _, kw := range tidb.Keywords {
		if !kw.Reserved {
			continue
		}
		w := kw.Word
		if both[w] {
			continue
		}
		if !tidbOnlyWords[w] && !flinkNames[w] {
			t.Errorf("TiDB reserves %s, which is in neither tidbOnlyWords (a name in Flink) nor flinkAndTiDBKeywords (a keyword in Flink too)", w)
			continue
		}
		n++
		name := strings.ToLower(w)
		src := "CREATE TABLE s (" + name + " INT) WITH ('connector' = 'datagen');\n" +
			"SELECT " + name + ", s." + name + " AS " + name + " FROM s WHERE " + name + " > 1 GROUP BY " + name + ";\n"
		f := ParseString("words.sql", src)
		if f.Diags.HasErrors() {
			t.Errorf("%s is a name in Flink, but:\n%s", w, f.Diags.Err())
			continue
		}
		if len(f.Stmts) != 2 {
			t.Errorf("%s: %d statements, want 2", w, len(f.Stmts))
		}
	}
	if n < 90 {
		t.Errorf("only %d words checked as names; the list of TiDB's reserved words looks wrong", n)
	}
}
