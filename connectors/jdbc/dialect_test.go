package jdbc

import "testing"

// TestStatements: the statements of each dialect, as the databases are
// documented to take them (PostgreSQL's INSERT ... ON CONFLICT, MySQL's
// INSERT ... ON DUPLICATE KEY UPDATE with VALUES()); TestReducedPerKey and
// TestLedger run them.
func TestStatements(t *testing.T) {
	pg, my := dialect{"postgres"}, dialect{"mysql"}
	cols := []string{"id", "we\"ird`name", "v"}
	for _, c := range []struct{ got, want string }{
		{pg.upsert(pg.table("s", "t"), cols, []int{0}, 2),
			`INSERT INTO "s"."t" ("id", "we""ird` + "`" + `name", "v") VALUES ($1, $2, $3), ($4, $5, $6) ON CONFLICT ("id") DO UPDATE SET "we""ird` + "`" + `name" = EXCLUDED."we""ird` + "`" + `name", "v" = EXCLUDED."v"`},
		{my.upsert(my.table("", "t"), cols[:1], []int{0}, 1),
			"INSERT INTO `t` (`id`) VALUES (?) ON DUPLICATE KEY UPDATE `id` = `id`"},
		{pg.upsert(pg.table("", "t"), cols[:1], []int{0}, 1),
			`INSERT INTO "t" ("id") VALUES ($1) ON CONFLICT ("id") DO NOTHING`},
		{my.upsert(my.table("", "t"), []string{"a", "b"}, []int{1}, 1),
			"INSERT INTO `t` (`a`, `b`) VALUES (?, ?) ON DUPLICATE KEY UPDATE `a` = VALUES(`a`)"},
		{pg.delete(`"t"`, []string{"id"}, 3), `DELETE FROM "t" WHERE "id" IN ($1, $2, $3)`},
		{my.delete("`t`", []string{"a", "b"}, 2), "DELETE FROM `t` WHERE (`a`, `b`) IN ((?, ?), (?, ?))"},
		{pg.insert(`"t"`, []string{"a"}, 2), `INSERT INTO "t" ("a") VALUES ($1), ($2)`},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
	if n := rowsPerStatement(100); n*100 > maxParams || n != 655 {
		t.Errorf("rowsPerStatement(100) = %d", n)
	}
}

// TestRanges: the ranges of a partitioned scan cover the bounds exactly,
// without overlap.
func TestRanges(t *testing.T) {
	for _, c := range []struct {
		lo, hi, n int64
		want      string
	}{
		{0, 9, 3, "[[0 3] [4 6] [7 9]]"},
		{1, 2, 4, "[[1 1] [2 2]]"},
		{-5, -5, 1, "[[-5 -5]]"},
	} {
		if got := fmtRanges(ranges(c.lo, c.hi, c.n)); got != c.want {
			t.Errorf("ranges(%d, %d, %d) = %s, want %s", c.lo, c.hi, c.n, got, c.want)
		}
	}
}
