package transport

// screenshotTools take pictures of pages (issue 3).
func (s *Server) screenshotTools() []*tool { return nil }
