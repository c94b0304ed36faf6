package model

import "testing"

func TestEventParsing(t *testing.T) {
	var ev event
	in := interner{}
	err := ev.parse([]byte(`{"args":{"data":{"x":"}"}},"name":"A\u00e9\"","ph":"X","ts":12.5,"dur":3,"pid":"7","tid":8,"id2":{"local":"0x1f"},"cat":"c"}`), 4, in)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Index != 4 || ev.Name != "Aé\"" || ev.Ph != "X" || ev.TS != 12.5 || ev.Dur != 3 || !ev.HasDur || ev.PID != 7 || ev.TID != 8 || ev.ID != "0x1f" || ev.Cat != "c" || string(ev.Args) != `{"data":{"x":"}"}}` {
		t.Errorf("parsed %+v", ev)
	}
	if err := ev.parse([]byte(`{"name":"x",`), 0, in); err == nil {
		t.Error("a truncated event parsed")
	}
}

func TestRootDomain(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.example.com/a.js":        "example.com",
		"https://cdn.shop.example.co.uk/x":    "example.co.uk",
		"http://127.0.0.1:8400/p/text.html":   "127.0.0.1",
		"http://localhost:3000/":              "localhost",
		"http://cdn.elsewhere.test:9/w.js":    "elsewhere.test",
		"data:text/plain,hello":               "",
		"https://fonts.gstatic.com/s/x.woff2": "gstatic.com",
	} {
		if got := rootDomain(in); got != want {
			t.Errorf("rootDomain(%q) = %q, want %q", in, got, want)
		}
	}
}
