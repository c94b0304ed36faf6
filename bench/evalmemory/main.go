// Command evalmemory measures an MCP browser server's peak resident memory
// while four sessions' pages each return a 50 MB string from evaluate_script
// at once (one call must not take the server's memory). The
// server is started over stdio; the four calls go to four pages of its one
// session, in parallel, repeated -rounds times. It prints the peak RSS of the
// server process (VmHWM: not Chrome's), the reply sizes and the time taken.
//
//	go build -o /tmp/tabhive ./cmd/tabhive
//	go run ./bench/evalmemory -- /tmp/tabhive --headless --isolated
//
// node bench/run.mjs evaluate-memory runs it for two builds of tabhive.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/bench/internal/benchmcp"
	"github.com/tabhive/tabhive/internal/mcptext"
)

func main() {
	rounds := flag.Int("rounds", 2, "rounds of four parallel calls")
	size := flag.Int("mb", 50, "size of each result, in MB")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: evalmemory [-rounds N] [-mb N] -- SERVER ARGS...")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cs, cmd, err := benchmcp.ConnectCommandLine(ctx, "evaluate_memory", os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			// A reply too big for the client is a result too: the server
			// made it, and its memory is what is measured.
			log.Printf("%s: %v", name, err)
			return ""
		}
		return mcptext.Of(res)
	}
	var pages []int
	for i := 0; i < 4; i++ {
		out := call("new_page", map[string]any{"url": "about:blank"})
		m := regexp.MustCompile(`(\d+): \S+ \[selected\]`).FindStringSubmatch(out)
		if m == nil {
			log.Fatalf("new_page: no selected page in %q", out)
		}
		var id int
		fmt.Sscan(m[1], &id)
		pages = append(pages, id)
	}
	pid := cmd.Process.Pid
	fmt.Printf("server pid %d, RSS before: %s\n", pid, status(pid, "VmRSS"))
	for r := 0; r < *rounds; r++ {
		start := time.Now()
		var wg sync.WaitGroup
		sizes := make([]int, len(pages))
		for i, id := range pages {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sizes[i] = len(call("evaluate_script", map[string]any{"pageId": id,
					"function": fmt.Sprintf("() => 'x'.repeat(%d << 20)", *size)}))
			}()
		}
		wg.Wait()
		fmt.Printf("round %d: four %d MB results in %v, reply sizes %v bytes, peak RSS so far %s\n",
			r+1, *size, time.Since(start).Round(time.Millisecond), sizes, status(pid, "VmHWM"))
	}
}

// status returns a field of /proc/PID/status.
func status(pid int, field string) string {
	v, err := benchmcp.ProcStatus(strconv.Itoa(pid), field)
	if err != nil {
		return "?"
	}
	return v
}
