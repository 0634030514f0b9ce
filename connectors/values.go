package connectors

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/settings"
)

// Value checks used by the built-in specs. Each error says what is allowed.

func nonEmpty(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// wholeNumber returns a check for an integer of at least lo.
func wholeNumber(lo int64) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("must be a whole number of at least %d", lo)
		}
		if n < lo {
			return fmt.Errorf("must be at least %d", lo)
		}
		return nil
	}
}

// number accepts any integer or decimal number (datagen bounds, whose type
// is the column's).
func number(v string) error {
	if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
		return errors.New("must be a number")
	}
	return nil
}

func fraction(v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1 {
		return errors.New("must be a number between 0 and 1")
	}
	return nil
}

func duration(v string) error {
	_, err := ParseDuration(v)
	return err
}

func regex(v string) error {
	if _, err := regexp.Compile(v); err != nil {
		return fmt.Errorf("must be a regular expression: %w", err)
	}
	return nil
}

// singleChar accepts one character, or a Java escape of one ('\t', '\u0001'),
// as Flink's CSV options do.
func singleChar(v string) error {
	if utf8.RuneCountInString(v) == 1 {
		return nil
	}
	if s, err := strconv.Unquote(`"` + v + `"`); err == nil && utf8.RuneCountInString(s) == 1 {
		return nil
	}
	return errors.New(`must be a single character, or an escape such as '\t'`)
}

// bootstrapServers accepts host:port[,host:port...].
func bootstrapServers(v string) error {
	for _, hp := range strings.Split(v, ",") {
		hp = strings.TrimSpace(hp)
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" {
			return fmt.Errorf("must be a comma-separated list of host:port, for example 'localhost:9092'; '%s' is not host:port", hp)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("'%s' has an invalid port; ports are 1 to 65535", hp)
		}
	}
	return nil
}

// topics accepts a topic name, or several separated by ';' as in Flink.
func topics(v string) error {
	for _, t := range strings.Split(v, ";") {
		if strings.TrimSpace(t) == "" {
			return errors.New("must name a topic, or several separated by ';'")
		}
	}
	return nil
}

// columnList accepts column names separated by ';' (Flink's 'key.fields').
func columnList(v string) error {
	for _, c := range strings.Split(v, ";") {
		if strings.TrimSpace(c) == "" {
			return errors.New("must name one or more columns separated by ';', for example 'user_id;region'")
		}
	}
	return nil
}

var specificOffsetRE = regexp.MustCompile(`^partition:\s*(\d+)\s*,\s*offset:\s*(\d+)$`)

// specificOffsets accepts 'partition:0,offset:42;partition:1,offset:300'.
func specificOffsets(v string) error {
	seen := map[string]bool{}
	for _, part := range strings.Split(v, ";") {
		m := specificOffsetRE.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			return fmt.Errorf("must list 'partition:<n>,offset:<n>' separated by ';', for example 'partition:0,offset:42;partition:1,offset:300'; '%s' is not of that form", part)
		}
		if seen[m[1]] {
			return fmt.Errorf("gives partition %s twice", m[1])
		}
		seen[m[1]] = true
	}
	return nil
}

// memorySize accepts Flink's memory sizes, as settings.ParseMemorySize
// reads them: '100b', '1kb', '5 mb'.
func memorySize(v string) error {
	_, err := settings.ParseMemorySize(v)
	return err
}

// commitPolicy accepts Flink's 'sink.partition-commit.policy.kind': a
// comma-separated list of 'success-file', 'metastore' and 'custom' (the
// filesystem sink decides which it can follow).
func commitPolicy(v string) error {
	n := 0
	for _, k := range strings.Split(v, ",") {
		k = strings.ToLower(strings.TrimSpace(k))
		switch k {
		case "success-file", "metastore", "custom":
			n++
		case "":
		default:
			return fmt.Errorf("must list 'success-file', 'metastore' or 'custom', separated by ','; '%s' is none of them", k)
		}
	}
	if n == 0 {
		return fmt.Errorf("must name a policy: 'success-file'")
	}
	return nil
}
