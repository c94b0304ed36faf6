package storagestate

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParsePlaywrightFile: a file Playwright wrote (storageState with
// indexedDB, see bench/state/playwright_compat.mjs) parses, and written
// back it is the same JSON.
func TestParsePlaywrightFile(t *testing.T) {
	data, err := os.ReadFile("testdata/playwright.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(Playwright's file) = %v", err)
	}
	if len(st.Cookies) != 1 || st.Cookies[0].Name != "session" || !st.Cookies[0].HTTPOnly || st.Cookies[0].Expires != -1 {
		t.Errorf("cookies = %+v", st.Cookies)
	}
	if len(st.Origins) != 1 || len(st.Origins[0].LocalStorage) != 1 || len(st.Origins[0].IndexedDB) != 1 {
		t.Errorf("origins = %+v", st.Origins)
	}
	out, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal(data, &a)
	json.Unmarshal(out, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Marshal(Parse(file)) differs from the file:\n%s\nwant:\n%s", out, data)
	}
}

func TestMarshalEmpty(t *testing.T) {
	out, err := (&State{Origins: []Origin{{Origin: "https://a.test"}}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"cookies\": [],\n  \"origins\": [\n    {\n      \"origin\": \"https://a.test\",\n      \"localStorage\": []\n    }\n  ]\n}\n"
	if string(out) != want {
		t.Errorf("Marshal = %q, want %q", out, want)
	}
}

func TestParseRefusals(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"not JSON", `cookies`, `it is not a JSON object with "cookies" and "origins"`},
		{"array", `[]`, `it is not a JSON object`},
		{"other object", `{"name": "x"}`, `it has neither "cookies" nor "origins"`},
		{"cookies not array", `{"cookies": {}}`, `"cookies" must be an array`},
		{"no domain", `{"cookies": [{"name": "a", "value": "b", "path": "/"}]}`, `cookie 1 ("a") has no domain`},
		{"no name", `{"cookies": [{"name": "", "domain": "a", "path": "/"}]}`, `cookie 1 ("") has no name`},
		{"no path", `{"cookies": [{"name": "a", "domain": "a"}]}`, `cookie 1 ("a") has no path starting with /`},
		{"bad expiry", `{"cookies": [{"name": "a", "domain": "a", "path": "/", "expires": -5}]}`, `has an expiry that is neither -1 nor a time in seconds`},
		{"bad sameSite", `{"cookies": [{"name": "a", "domain": "a", "path": "/", "sameSite": "lax"}]}`, `has sameSite "lax", not Strict, Lax or None`},
		{"file origin", `{"origins": [{"origin": "file:///tmp", "localStorage": []}]}`, `origin 1 ("file:///tmp") is not an http or https origin`},
		{"origin with path", `{"origins": [{"origin": "https://a.test/x", "localStorage": []}]}`, `is not an http or https origin`},
		{"twice", `{"origins": [{"origin": "https://a.test", "localStorage": []}, {"origin": "https://a.test", "localStorage": []}]}`, `origin "https://a.test" is listed twice`},
		{"bad database", `{"origins": [{"origin": "https://a.test", "localStorage": [], "indexedDB": [{"name": "db"}]}]}`, `has an IndexedDB database without a name, a version of 1 or more and stores`},
		{"bad store", `{"origins": [{"origin": "https://a.test", "localStorage": [], "indexedDB": [{"name": "db", "version": 1, "stores": [{"name": "s"}]}]}]}`, `has IndexedDB database "db" with a store without a name, records and indexes`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.data))
		if _, ok := err.(*FormatError); !ok || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse(%s) = %v, want a FormatError with %q", tt.name, tt.data, err, tt.want)
		}
	}
	if _, err := Parse([]byte(`{"cookies": [], "origins": []}`)); err != nil {
		t.Errorf("Parse(empty state) = %v", err)
	}
}

func TestCheckOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.test":        "https://a.test",
		"https://a.test/":       "https://a.test",
		"http://127.0.0.1:8080": "http://127.0.0.1:8080",
		"ftp://a.test":          "",
		"https://u@a.test":      "",
		"a.test":                "",
		"https://a.test/?q":     "",
	} {
		got, err := CheckOrigin(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("CheckOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
