package storagestate

import (
	"os"
	"testing"
)

// FuzzParse: whatever a state file holds, Parse answers without
// panicking, and what it accepts it writes back in a form it accepts
// again, unchanged.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/playwright.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"cookies": [], "origins": []}`))
	f.Add([]byte(`{"cookies": [{"name": "a", "value": "b", "domain": ".a.test", "path": "/", "expires": 1e10, "sameSite": "None", "partitionKey": "https://a.test"}]}`))
	f.Add([]byte(`{"origins": [{"origin": "https://a.test:8443", "localStorage": [{"name": "k", "value": "v"}], "indexedDB": [{"name": "d", "version": 2, "stores": [{"name": "s", "records": [], "indexes": []}]}]}]}`))
	f.Add([]byte(`{"cookies": null, "origins": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Parse(data)
		if err != nil {
			return
		}
		out, err := st.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed state: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Marshal(Parse(%q))) = %v", data, err)
		}
		out2, _ := again.Marshal()
		if string(out2) != string(out) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
