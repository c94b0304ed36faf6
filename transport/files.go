package transport

import (
	"fmt"
	"regexp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// sandboxConfig is the file sandbox of a new session: the client's roots
// (declared later), the operator's workspaces and a private directory of
// its own are allowed; the browser's profiles are protected.
func (s *Server) sandboxConfig() sandbox.Config {
	return sandbox.Config{
		Unrestricted: s.cfg.Unrestricted,
		Workspaces:   s.cfg.Workspaces,
		Protected:    s.profileDirs,
		MaxBytes:     s.cfg.MaxSessionDisk,
	}
}

// profileDirs returns the browser profiles no tool may read or write: the
// launched browser's (an isolated profile changes on every launch), the one
// configured, and the default one, which holds a past run's cookies even
// while tabhive is connected to another browser.
func (s *Server) profileDirs() []string {
	dirs := []string{s.cfg.ProfileDir, browser.DefaultProfile()}
	if s.sup != nil {
		dirs = append(dirs, s.sup.ProfileDir())
	}
	return dirs
}

// maxScriptFile bounds evaluate_script's sourcePath file: a script that
// large is a mistake, and the file is read whole into memory.
const maxScriptFile = 1 << 20

// readScriptFile reads evaluate_script's sourcePath through the session's
// sandbox.
func readScriptFile(sb *sandbox.Sandbox, path string) (string, error) {
	b, _, err := sb.ReadFile(path, maxScriptFile)
	if tl, ok := errorsAs[*sandbox.TooLargeError](err); ok {
		return "", fmt.Errorf("The script file %s is %d bytes; a sourcePath file can be at most 1 MiB (%d bytes). Use a smaller script.", path, tl.Size, tl.Limit)
	}
	if err != nil {
		if _, ok := errorsAs[*sandbox.DeniedError](err); ok {
			return "", err
		}
		if ne, ok := errorsAs[*sandbox.NotRegularError](err); ok {
			return "", fmt.Errorf("Unable to read script source from %s: it is %s; give the path of a regular file.", path, ne.Kind())
		}
		return "", agenterr.Unreadable(err, "Unable to read script source from %s: %s", path)
	}
	return string(b), nil
}

// errorClass matches the class of a JavaScript error at the start of its
// message: "SyntaxError: Unexpected token ':'".
var errorClass = regexp.MustCompile(`^(?:Uncaught )?([A-Z][A-Za-z]*Error)\b`)

// scriptFileError replaces the page's message for a script read from
// sourcePath: a message can quote the file (a SyntaxError quotes the token
// it stopped at; a ReferenceError names an identifier), and the file may be
// one the agent should not see whole, so the reply says only what kind of
// error it was. Other errors pass unchanged.
func scriptFileError(path string, err error) error {
	se, ok := errorsAs[*page.ScriptError](err)
	if !ok {
		return err
	}
	class := "an exception"
	if m := errorClass.FindStringSubmatch(se.Msg); m != nil {
		class = "a " + m[1]
	}
	if class == "a SyntaxError" {
		return fmt.Errorf("The file %s could not be used as a script: it is not valid JavaScript (the SyntaxError's message is not shown, as it would quote the file).", path)
	}
	return fmt.Errorf("The script from %s threw %s; its message is not shown, as it could quote the file. Catch the error in the script and return its message to see it.", path, class)
}
