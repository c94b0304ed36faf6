// Package lighthouse is the lighthouse_audit capability: it audits one page
// of tabhive's browser in place with Lighthouse (an external tool, npm's
// `lighthouse`, like ffmpeg is for screencasts), through a DevTools
// endpoint that shows that page alone, and reads its report as
// chrome-devtools-mcp summarises it.
//
// [Of] finds a page's [Auditor], a [page.Slice] without state of its own:
// [Auditor.Audit] runs on the page's run goroutine through [page.Do], and
// reaches the core through [page.Host] (the page's target and setting its
// emulation again afterwards: page/host_lighthouse.go; its browser's
// relay: [page.Owner.Relay]). [Tools] declares the tool (tools.go), its
// reply text and structuredContent (reply.go).
//
// Lighthouse is a Node program: tabhive runs it through its Node API with
// a small driver script of its own (driver.mjs, embedded), run by the
// `node` that runs the installed package, as a child process killed when
// the call's context ends (lighthouse.go). The driver is given the
// endpoint's WebSocket URL, secret included, on its stdin only: never in
// argv or the environment, which other local users can read. It connects
// with the puppeteer-core Lighthouse was installed with, audits the
// endpoint's one page (navigation or snapshot mode) and writes the JSON
// and HTML reports into a private directory; the tool copies them into the
// session's sandbox.
//
// Lighthouse is found on PATH or in tabhive's cache; [Ensure] installs the
// pinned version there with npm when it is in neither (install.go).
//
// The endpoint is package [github.com/tabhive/tabhive/page/lighthouse/cdpproxy],
// a package of its own because it is a job of its own, and the one that
// guards the browser: a WebSocket server on the loopback interface that
// makes up a browser with one page, relays an allow-list of commands, and
// publishes its port to the URL policy while it is open. This package
// opens one per audit and closes it before the call returns.
//
// Goroutines: [Ensure] runs one that reports progress while npm runs,
// stopped before it returns. [Auditor.Audit] runs Lighthouse on an Await
// goroutine of the page's ([page.Host.Await]), which ends with the CLI;
// when the call's context ends first, the CLI is killed (SIGKILL to its
// process group) and the call waits a bounded while for its reaping. The
// endpoint's goroutines are its own, stopped by its Close.
package lighthouse
