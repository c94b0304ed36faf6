package main

import (
	"flag"
	"fmt"
	"net"
	"strings"
)

// exposureFlags defines --allow-unauthenticated.
func exposureFlags(fs *flag.FlagSet, c *Config) {
	for _, n := range []string{"allow-unauthenticated", "allowUnauthenticated"} {
		fs.BoolVar(&c.allowUnauthenticated, n, false, "let --http listen on an address other machines can reach without --auth-token (a warning says so); without it tabhive refuses to start")
	}
}

// checkExposure refuses --http on an address other machines can reach
// (0.0.0.0, a public or private address, a host name) when no token is
// required: whoever reaches the port could drive the browser, read its
// pages and cookies, and write files in the sessions' directories. With
// --allow-unauthenticated it starts, and the warning returned says what
// that means. Loopback addresses need neither.
func checkExposure(c *Config) (warning string, err error) {
	if c.HTTPAddr == "" || c.HTTP.Token != "" || len(c.HTTP.Tokens) > 0 || loopbackOnly(c.HTTPAddr) {
		return "", nil
	}
	if !c.allowUnauthenticated {
		return "", fmt.Errorf("--http %s accepts connections from other machines and no --auth-token is set: give --auth-token TOKEN (or $TABHIVE_AUTH_TOKEN, or --auth-tokens-file FILE), listen on 127.0.0.1, or add --allow-unauthenticated if anyone who can reach that port may drive the browser", c.HTTPAddr)
	}
	return fmt.Sprintf("--http %s serves anyone who can reach it, without a token (--allow-unauthenticated): they can drive the browser, read its pages and cookies, and write files where sessions may", c.HTTPAddr), nil
}

// loopbackOnly reports whether listening on addr (host:port) takes
// connections from this machine only: a loopback address, or localhost.
// An address that does not parse is left to net.Listen to refuse.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	if h := strings.TrimSuffix(strings.ToLower(host), "."); h == "localhost" {
		return true
	}
	host, _, _ = strings.Cut(host, "%") // a zone: fe80::1%eth0
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
