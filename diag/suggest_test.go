package diag

import (
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	connectors := []string{"blackhole", "datagen", "filesystem", "kafka", "nexmark", "print", "upsert-kafka"}
	formats := []string{"csv", "debezium-json", "json", "raw"}
	options := []string{"topic", "topic-pattern", "properties.bootstrap.servers", "properties.group.id",
		"scan.startup.mode", "scan.bounded.mode", "format"}
	tests := []struct {
		word       string
		candidates []string
		want       string
		// changed marks where catalog's, planner's and expr's hints change:
		// they used suggestBefore, which said before.
		changed bool
		before  string
	}{
		{word: "kafak", candidates: connectors, want: "kafka"},                                    // transposition
		{word: "Kafka", candidates: connectors, want: "kafka"},                                    // case
		{word: "upsert_kafka", candidates: connectors, want: "upsert-kafka"},                      // substitution
		{word: "filesytem", candidates: connectors, want: "filesystem"},                           // deletion
		{word: "printt", candidates: connectors, want: "print"},                                   // insertion
		{word: "jdbc", candidates: connectors, want: ""},                                          // nothing close
		{word: "jsn", candidates: formats, want: "json"},                                          // short word, one edit
		{word: "debezium", candidates: formats, want: "debezium-json", changed: true, before: ""}, // prefix
		{word: "avro", candidates: formats, want: ""},                                             // not close to any
		{word: "scan.startup.mod", candidates: options, want: "scan.startup.mode"},
		{word: "scan.startup.mdoe", candidates: options, want: "scan.startup.mode"},
		{word: "bootstrap.servers", candidates: options, want: "properties.bootstrap.servers", changed: true, before: ""}, // ends with .word
		{word: "group.id", candidates: options, want: "properties.group.id", changed: true, before: ""},
		{word: "topics", candidates: options, want: "topic"},
		{word: "mode", candidates: options, want: "scan.startup.mode", changed: true, before: ""}, // tie on length: the first wins
		{word: "topic", candidates: options, want: "", changed: true, before: "topic"},            // itself is not a suggestion
		{word: "", candidates: options, want: ""},
		{word: "x", candidates: []string{"y", "z"}, want: "", changed: true, before: "y"}, // a one-letter word is not "close" to another letter
		{word: "X", candidates: []string{"y", "x"}, want: "x"},
		{word: "order_tme", candidates: []string{"order_id", "order_time", "user_id"}, want: "order_time"},
		{word: "usr_id", candidates: []string{"order_id", "user_id"}, want: "user_id"},
		{word: "user", candidates: []string{"user_id", "user_name"}, want: "user_id", changed: true, before: ""},
		{word: "abcd", candidates: []string{"abce", "abdc"}, want: "abce"}, // equal distance: the first wins
		{word: "ts", candidates: []string{"ts_ms", "event_ts"}, want: ""},  // too short for the prefix rule, too far for edits
		{word: "événement", candidates: []string{"evenement"}, want: "evenement"},
		{word: "Orders", candidates: []string{"orders", "order"}, want: "orders"}, // case beats a closer edit
		{word: "ab", candidates: []string{"ba", "abc"}, want: "ba"},               // two letters: one edit allowed
		{word: "TUMBEL", candidates: []string{"TUMBLE", "HOP"}, want: "TUMBLE"},
	}
	for _, tt := range tests {
		if got := Suggest(tt.word, tt.candidates); got != tt.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", tt.word, tt.candidates, got, tt.want)
		}
		before := tt.want
		if tt.changed {
			before = tt.before
		}
		if got := suggestBefore(tt.word, tt.candidates); got != before {
			t.Errorf("the old Suggest(%q, %q) = %q; the table says %q", tt.word, tt.candidates, got, before)
		}
	}
}

// suggestBefore is the diag.Suggest catalog, planner and expr used until
// the two suggesters were merged, kept to show where their hints changed:
// case-insensitive edit distance at most max(1, len/3), no prefix or
// suffix rule, and a word that is itself a candidate suggested.
func suggestBefore(word string, candidates []string) string {
	w := []rune(strings.ToLower(word))
	best, bestD := "", -1
	limit := max(1, len(w)/3)
	for _, c := range candidates {
		d := distance(w, []rune(strings.ToLower(c)))
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kafka", "kafka", 0},
		{"kafak", "kafka", 1},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"kitten", "sitting", 3},
		{"scan.startup.mode", "scan.bounded.mode", 7},
	}
	for _, tt := range tests {
		if got := distance([]rune(tt.a), []rune(tt.b)); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
