package snapshot

import (
	"errors"
	"testing"
)

func TestParseUID(t *testing.T) {
	tests := []struct {
		in   string
		want UID
		ok   bool
	}{
		{"1_0", UID{1, 0}, true},
		{"3_12", UID{3, 12}, true},
		{"9223372036854775807_9", UID{9223372036854775807, 9}, true},
		{"", UID{}, false},
		{"_", UID{}, false},
		{"3", UID{}, false},
		{"3_", UID{}, false},
		{"_12", UID{}, false},
		{"0_1", UID{}, false},                   // snapshot ids start at 1
		{"03_1", UID{}, false},                  // one spelling per uid
		{"3_01", UID{}, false},                  // one spelling per uid
		{"+3_1", UID{}, false},                  // no sign
		{"3_-1", UID{}, false},                  // no sign
		{"3_1_2", UID{}, false},                 // one separator
		{" 3_1", UID{}, false},                  // no spaces
		{"e12", UID{}, false},                   // a Playwright ref is not a uid
		{"３_1", UID{}, false},                   // ASCII digits only
		{"9223372036854775808_0", UID{}, false}, // overflows int64
		{"1_99999999999999999999", UID{}, false},
	}
	for _, tt := range tests {
		got, err := ParseUID(tt.in)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParseUID(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrBadUID) {
			t.Errorf("ParseUID(%q) error %v, want ErrBadUID", tt.in, err)
		}
	}
}

// The uids Assign hands out are what ParseUID accepts, and they read back
// the same.
func TestAssignedUIDsParse(t *testing.T) {
	ids := NewIDs(new(Counter))
	root := &Node{BackendNodeID: 1, LoaderID: "L", Children: []*Node{{BackendNodeID: 2, LoaderID: "L"}, {LoaderID: "L"}}}
	for range 3 {
		for uid := range ids.Assign(root) {
			u, err := ParseUID(uid)
			if err != nil || u.String() != uid {
				t.Errorf("ParseUID(%q) = %v, %v; want it to read back", uid, u, err)
			}
		}
	}
}

// FuzzParseUID: ParseUID never panics, accepts exactly one spelling of each
// uid, and what it accepts prints back as the same text.
func FuzzParseUID(f *testing.F) {
	for _, s := range []string{"1_0", "3_12", "0_0", "03_1", "1__2", "", "_", "9223372036854775807_2147483647", "9223372036854775808_0", "-1_2", "1_-2", "e12", "１_２"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUID(s)
		if err != nil {
			if u != (UID{}) {
				t.Errorf("ParseUID(%q) failed with a non-zero UID %v", s, u)
			}
			return
		}
		if u.Snapshot < 1 || u.N < 0 {
			t.Errorf("ParseUID(%q) = %v: out of range", s, u)
		}
		if got := u.String(); got != s {
			t.Errorf("ParseUID(%q).String() = %q", s, got)
		}
	})
}
