package transport

// emulationTools change how a page behaves: viewport, network, CPU, locale (issue 3).
func (s *Server) emulationTools() []*tool { return nil }
