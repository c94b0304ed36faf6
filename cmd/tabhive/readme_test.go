package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestReadmeClientSnippets: each JSON config in the README parses, and
// uses the key its clients read: "servers" for VS Code alone, "mcpServers"
// for Claude Desktop, Cursor, Windsurf and Gemini CLI, which ignore a
// config under any other key without a word.
func TestReadmeClientSnippets(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```json\n")
	if len(blocks) < 3 {
		t.Fatalf("README holds %d JSON blocks, want the clients' configs", len(blocks)-1)
	}
	for i := 1; i < len(blocks); i++ {
		body, _, ok := strings.Cut(blocks[i], "```")
		if !ok {
			t.Fatalf("JSON block %d is not closed", i)
		}
		// The paragraph before the block names the clients it is for.
		before := strings.TrimRight(blocks[i-1], "\n")
		if j := strings.LastIndex(before, "\n\n"); j >= 0 {
			before = before[j:]
		}
		var config map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &config); err != nil {
			t.Errorf("JSON block after %q does not parse: %v\n%s", before, err, body)
			continue
		}
		_, servers := config["servers"]
		_, mcpServers := config["mcpServers"]
		vscode := strings.Contains(before, "VS Code")
		others := (strings.Contains(before, "Claude Desktop") || strings.Contains(before, "Cursor") ||
			strings.Contains(before, "Windsurf") || strings.Contains(before, "Gemini"))
		switch {
		case servers == mcpServers:
			t.Errorf("JSON block after %q has neither \"servers\" nor \"mcpServers\", or both", before)
		case servers && (!vscode || others):
			t.Errorf("JSON block after %q uses \"servers\", which only VS Code reads", before)
		case mcpServers && vscode:
			t.Errorf("JSON block after %q uses \"mcpServers\" for VS Code, which reads \"servers\"", before)
		}
	}
}
