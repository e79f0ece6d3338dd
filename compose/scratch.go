package compose

import (
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// Scratch is memory a caller lends [Compile] (Options.Scratch) for the
// lists that grow with the request: the Result's Messages and Blocks, the
// tract compile's list of the messages its budget keeps, and an OpenAI
// format's list of messages in the Request. The next compile given the
// same Scratch builds its own lists in the same memory instead of
// allocating them. So a Result compiled with a Scratch, and everything
// that points into it (its Request included), is valid only until the
// next compile given that Scratch: a face that answers every turn (the
// MCP server) encodes its answer, then hands the Scratch to the next
// compile. A Scratch serves one compile at a time; the zero value is
// ready.
type Scratch struct {
	messages []tract.Message
	blocks   []Block
	// history is where the tract's compile gathers the messages a budget
	// keeps (tract.CompileOptions.Scratch), copied into messages.
	history []tract.Message
	// openAI is where an OpenAI format's messages are rendered
	// (wire.RenderRequest).
	openAI []wire.OpenAIMessage
}

// openAIScratch is the render's scratch, nil without one.
func (s *Scratch) openAIScratch() *[]wire.OpenAIMessage {
	if s == nil {
		return nil
	}
	return &s.openAI
}

// historyScratch is the tract compile's scratch, nil without one.
func (s *Scratch) historyScratch() *[]tract.Message {
	if s == nil {
		return nil
	}
	return &s.history
}

// take returns the scratch's slices emptied, with room for n elements
// (new ones when s is nil or they are too small).
func (s *Scratch) take(n int) ([]tract.Message, []Block) {
	if s == nil {
		return make([]tract.Message, 0, n), make([]Block, 0, n)
	}
	msgs, blocks := s.messages[:0], s.blocks[:0]
	s.messages, s.blocks = nil, nil
	if cap(msgs) < n {
		msgs = make([]tract.Message, 0, n+n/8)
	}
	if cap(blocks) < n {
		blocks = make([]Block, 0, n+n/8)
	}
	return msgs, blocks
}

// keep gives the scratch back the slices a compile built in it, clearing
// what the compile before left past their length (so it holds no stale
// message alive).
func (s *Scratch) keep(msgs []tract.Message, blocks []Block) {
	if s == nil {
		return
	}
	clear(msgs[len(msgs):cap(msgs)])
	clear(blocks[len(blocks):cap(blocks)])
	s.messages, s.blocks = msgs, blocks
}
