package sql

// FailStreaming fails this node's streaming as an actor failure would.
func (e *Engine) FailStreaming(err error) { e.stream.Fail(err) }
