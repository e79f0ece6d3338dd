package compose

import (
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// render puts the composed messages in o's format with tract/wire's
// renderers (which repair what the APIs refuse: unpaired tool calls, role
// order). An OpenAI format of a request without any message is
// [wire.ErrEmptyContext].
func render(res *Result, o Options) (wire.Rendered, error) {
	out, err := wire.RenderRequest(tract.Result{Tract: res.Tract, Messages: res.Messages, Tools: res.Tools}, o.format(),
		wire.RequestOptions{Model: o.Model, MaxTokens: o.MaxTokens}, o.Scratch.openAIScratch())
	if errors.Is(err, wire.ErrEmptyContext) {
		return wire.Rendered{}, fmt.Errorf("context of %s: no AGENTS.md, no profile and no message: %w", fsx.LineSafe(res.Dir), wire.ErrEmptyContext)
	}
	return out, err
}
