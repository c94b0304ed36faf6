package transport

// scriptTools run JavaScript in a page (issue 5).
func (s *Server) scriptTools() []*tool { return nil }
