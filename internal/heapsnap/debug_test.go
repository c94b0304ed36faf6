package heapsnap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestDebugLoad(t *testing.T) {
	p := os.Getenv("HEAPSNAP_FILE")
	if p == "" {
		t.Skip()
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	t0 := time.Now()
	s, err := Load(context.Background(), f, st.Size(), 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("load", time.Since(t0), "bytes", s.Bytes())
	b, _ := json.MarshalIndent(s.Statistics(), "", "  ")
	fmt.Println(string(b))
	b, _ = json.MarshalIndent(s.StaticData(), "", "  ")
	fmt.Println(string(b))
	fmt.Printf("%+v\n", s.NativeContextSizes())
	fmt.Printf("%+v\n", s.RetainedByContextSummary())
	a, _ := s.Aggregates("", nil)
	fmt.Println(a.ObjectCount, a.TotalSelfSize, len(a.Classes))
	for _, c := range a.Classes[:5] {
		fmt.Printf("%+v\n", c)
	}
}
