package ast

import "strings"

// reserved lists words that must be backquoted to be used as identifiers.
// It is the intersection that matters for round-tripping through both our
// parser and TiDB's.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ADD ALL ALTER AND AS ASC BETWEEN BY CASE CAST CHECK COLUMN CONSTRAINT CREATE
		CROSS CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DEFAULT DELETE DESC DESCRIBE DISTINCT DROP ELSE END EXISTS
		EXPLAIN FALSE FOR FROM FULL GROUP HAVING IN INNER INSERT INTERVAL INTO IS JOIN KEY LEFT LIKE LIMIT NATURAL NOT
		NULL ON OR ORDER OUTER PRIMARY RIGHT SELECT SET SHOW TABLE THEN TO TRUE UNION UPDATE USING VALUES WHEN WHERE
		WITH WATERMARK SYSTEM_TIME OF DIV MOD XOR REGEXP RLIKE RANGE ROWS ROW OVER PARTITION WINDOW`) {
		reserved[w] = true
	}
}

// IsReserved reports whether word is a reserved word (case-insensitive).
func IsReserved(word string) bool { return reserved[strings.ToUpper(word)] }
