package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// defaultMaxSessionDisk is --max-session-disk's default: room for
// hundreds of screenshots, snapshots and traces, or a few long
// screencasts, while one session cannot fill the server's disk (one wrote
// 1.2 GB in 72 s with five large evaluate_script results).
const defaultMaxSessionDisk = 1 << 30

// byteSize is a flag holding a number of bytes, given as a whole number
// with an optional unit: K, KB or KiB, M, MB or MiB, G, GB or GiB, all
// powers of 1024 ("10MB" is 10485760), any case. Negative numbers are
// refused; min, when above zero, is the least a value other than 0 may
// be.
type byteSize struct {
	v   *int64
	min int64
}

func (b byteSize) String() string {
	if b.v == nil {
		return ""
	}
	n := *b.v
	for _, u := range []struct {
		name  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	if n != 0 && n < b.min {
		return fmt.Errorf("give at least %s, or 0 for no bound", sandbox.FormatBytes(b.min))
	}
	*b.v = n
	return nil
}

// parseByteSize reads a byteSize flag's value.
func parseByteSize(s string) (int64, error) {
	bad := fmt.Errorf("give a number of bytes, such as 1073741824, or one with a unit: 512MB, 1GB, 10KiB")
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	var shift uint
	switch unit {
	case "", "b":
	case "k", "kb", "kib":
		shift = 10
	case "m", "mb", "mib":
		shift = 20
	case "g", "gb", "gib":
		shift = 30
	default:
		return 0, bad
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, bad
	}
	return n << shift, nil
}
