package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// Files reach remote clients as MCP resources. Over HTTP the client runs on
// another machine, where a path on the server's disk in a reply is of no
// use; so every file a tool writes for a session (a snapshot saved with
// filePath or over --snapshot-max-bytes, a screenshot, a script's result,
// a response body, and whatever other tools save) is also a resource of
// that session:
//
//   - the tool's reply carries a resource_link to it, after its text;
//   - resources/read returns it (text, or binary as a base64 blob) to that
//     session only: another session's URI is "Resource not found";
//   - resources/list lists the session's files.
//
// The session learns of a file where every file is written: its sandbox
// ([sandbox.Config.Written], and the call's view of it, [call.sandbox]). A
// tool gets all of this by writing through c.sandbox(ctx), with WriteFile,
// TempFile or, for output written a chunk at a time, Create; it must not
// write files any other way. The resources go with the session; over HTTP
// so does its private directory (see [Server.session]).

// filesURIPrefix starts the URI of every file resource:
// tabhive://files/<n>/<file name>, n counting the session's files.
const filesURIPrefix = "tabhive://files/"

// maxResourceBytes bounds what one resources/read returns: the file is read
// whole into memory and sent base64-encoded in one JSON message, so a
// bigger one would cost the server several times its size at once.
const maxResourceBytes = 64 << 20

// maxSessionFiles bounds the files a session keeps as resources: past it,
// the oldest is no longer offered (the file itself stays where it was).
const maxSessionFiles = 10000

// sessionFiles are the files a session's tools wrote, as resources. Safe
// for concurrent use.
type sessionFiles struct {
	mu     sync.Mutex
	next   int
	byURI  map[string]string // URI → canonical path
	byPath map[string]string // canonical path → URI
	order  []string          // URIs, oldest first
}

// add records a file written for the session; a path written again keeps
// its URI.
func (f *sessionFiles) add(path string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if uri, ok := f.byPath[path]; ok {
		return uri
	}
	if f.byURI == nil {
		f.byURI, f.byPath = map[string]string{}, map[string]string{}
	}
	f.next++
	uri := fmt.Sprintf("%s%d/%s", filesURIPrefix, f.next, url.PathEscape(filepath.Base(path)))
	f.byURI[uri], f.byPath[path] = path, uri
	f.order = append(f.order, uri)
	if len(f.order) > maxSessionFiles {
		old := f.order[0]
		f.order = f.order[1:]
		delete(f.byPath, f.byURI[old])
		delete(f.byURI, old)
	}
	return uri
}

// path returns the file a URI names, if it is one of the session's.
func (f *sessionFiles) path(uri string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.byURI[uri]
	return p, ok
}

// uri returns the URI of a file written for the session.
func (f *sessionFiles) uri(path string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u, ok := f.byPath[path]
	return u, ok
}

// list returns the session's files, oldest first, as URI and path.
func (f *sessionFiles) list() [][2]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([][2]string, len(f.order))
	for i, u := range f.order {
		out[i] = [2]string{u, f.byURI[u]}
	}
	return out
}

// callFiles collects the files one tool call wrote, for its reply's links.
type callFiles struct {
	mu    sync.Mutex
	paths []string
}

func (f *callFiles) add(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.Contains(f.paths, path) {
		f.paths = append(f.paths, path)
	}
}

func (f *callFiles) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.paths)
}

// serveFiles registers what makes the sessions' files resources: the
// resources capability, resources/read through a template, and
// resources/list answered with the asking session's files.
func (s *Server) serveFiles() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "files",
		Title:       "Files the tools wrote for this session",
		Description: "Snapshots, screenshots, results and other files a tool saved for this session; each tool reply that saved one links it.",
		URITemplate: filesURIPrefix + "{n}/{name}",
	}, s.readFile)
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			lr, ok := req.(*mcp.ListResourcesRequest)
			if method != "resources/list" || !ok {
				return next(ctx, method, req)
			}
			// The SDK's own list (no resources) brings the result's
			// other fields; the session's files are all on one page.
			if lr.Params != nil {
				lr.Params.Cursor = ""
			}
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			if out, ok := res.(*mcp.ListResourcesResult); ok {
				out.NextCursor = ""
				out.Resources = s.listFiles(lr.Session)
			}
			return res, nil
		}
	})
}

// listFiles returns the session's files that are still there.
func (s *Server) listFiles(ss *mcp.ServerSession) []*mcp.Resource {
	sess := s.session(ss)
	out := []*mcp.Resource{}
	for _, f := range sess.written.list() {
		if r, ok := s.fileResource(sess, f[0], f[1]); ok {
			out = append(out, r)
		}
	}
	return out
}

// fileResource describes a session's file, if it is still there and
// readable.
func (s *Server) fileResource(sess *session, uri, path string) (*mcp.Resource, bool) {
	fi, err := sess.sandbox.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	return &mcp.Resource{
		URI:         uri,
		Name:        filepath.Base(path),
		MIMEType:    mimeType(path, nil),
		Size:        fi.Size(),
		Description: "Saved by a tool of this session at " + path + " on the server.",
	}, true
}

// linkFiles appends a resource_link to res for each file the call wrote
// that is still there.
func (s *Server) linkFiles(c *call, res *mcp.CallToolResult) {
	for _, path := range c.files.all() {
		uri, ok := c.sess.written.uri(path)
		if !ok {
			continue
		}
		r, ok := s.fileResource(c.sess, uri, path)
		if !ok {
			continue
		}
		size := r.Size
		res.Content = append(res.Content, &mcp.ResourceLink{
			URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Size: &size, Description: r.Description,
		})
	}
}

// readFile answers resources/read for a session's file; the URI of a file
// of another session, or of none, is not found.
func (s *Server) readFile(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	if req.Session == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	sess := s.session(req.Session)
	path, ok := sess.written.path(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, _, err := sess.sandbox.ReadFile(path, maxResourceBytes)
	if tl, ok := errorsAs[*sandbox.TooLargeError](err); ok {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d bytes (64 MiB) resources/read returns: read it on the server, or save a smaller one", uri, tl.Size, tl.Limit)
	}
	if err != nil {
		// Removed, or no longer allowed (the client's roots changed).
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: mimeType(path, data)}
	if isText(rc.MIMEType) && utf8.Valid(data) {
		rc.Text = string(data)
	} else {
		rc.Blob = data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
}

// mimeTypes are the types of the files tabhive's tools write, by extension:
// fixed here rather than taken from the system's table, which varies.
var mimeTypes = map[string]string{
	".txt":          "text/plain; charset=utf-8",
	".md":           "text/markdown; charset=utf-8",
	".json":         "application/json",
	".png":          "image/png",
	".jpg":          "image/jpeg",
	".jpeg":         "image/jpeg",
	".webp":         "image/webp",
	".pdf":          "application/pdf",
	".html":         "text/html; charset=utf-8",
	".heapsnapshot": "application/json",
	".gz":           "application/gzip",
}

// mimeType returns a file's type from its extension, else from its first
// bytes (data, if read; nil for an extension-only answer).
func mimeType(path string, data []byte) string {
	if t, ok := mimeTypes[strings.ToLower(filepath.Ext(path))]; ok {
		return t
	}
	if data == nil {
		return ""
	}
	return http.DetectContentType(data)
}

// isText reports whether a MIME type is sent as text rather than a blob.
func isText(t string) bool {
	return strings.HasPrefix(t, "text/") || strings.HasPrefix(t, "application/json")
}
