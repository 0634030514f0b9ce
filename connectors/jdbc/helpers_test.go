package jdbc

import (
	"fmt"

	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

func formatParse(t types.T, s string) (row.Value, error) { return format.ParseText(t, s) }

func fmtRanges(r [][2]int64) string { return fmt.Sprint(r) }
