package dataflow

import "strconv"

// Build implements Spec.
func (s *UnionSpec) Build(*Env) (Operator, error) { return union{}, nil }

// Explain implements Spec.
func (s *UnionSpec) Explain() string { return "Union inputs=" + strconv.Itoa(s.Inputs) }

// union passes the chunks of every input through.
type union struct{}

// Process implements Operator.
func (union) Process(_ int, c *Chunk, emit Emit) error { return emit(c) }

// Barrier implements Operator.
func (union) Barrier(*Barrier, Emit) error { return nil }
