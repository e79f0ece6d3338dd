// Package wire is what a model provider's API receives and sends, kept
// out of the tract domain: the OpenAI chat and Anthropic Messages shapes
// of a compiled context (messages, tools, request bodies), the writers
// that stream a long context in the openai format as it is read
// (WriteOpenAIMessages of tract.Repo.CompileMessages), the repair both
// APIs need before they accept a context (tool calls and results paired,
// ids and names in their alphabet; see apirepair.go), and the parsers of
// what a provider sent (chat messages in the OpenAI shape, as a JSON array
// or JSON Lines, and tool calls) into commit requests.
//
// tract hands a compile out as messages (tract.Result, tract.Messages)
// and never imports this package: the domain renders no provider's
// format.
package wire
