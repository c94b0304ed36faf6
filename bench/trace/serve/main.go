// Command serve serves the trace fixture site (package tracetest) on
// 127.0.0.1, for recording traces by hand or with another server.
//
//	go run ./bench/trace/serve -addr 127.0.0.1:8400
package main

import (
	"flag"
	"log"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tabhive/tabhive/internal/devtools/trace/tracetest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8400", "address to listen on")
	flag.Parse()
	docs := map[string]string{"usr": "/usr/share/doc"}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		docs["go"] = filepath.Join(strings.TrimSpace(string(out)), "doc")
	}
	log.Printf("serving the trace fixtures on http://%s/p/", *addr)
	log.Fatal(http.ListenAndServe(*addr, tracetest.NewHandler(tracetest.Config{Docs: docs})))
}
