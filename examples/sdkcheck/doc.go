// Package sdkcheck proves that the request bodies lineage composes
// (`lineage context --format openai-request|anthropic-request`, Go:
// compose.Compile) are accepted by the official Go SDKs: each is decoded
// into the SDK's request params and sent through the SDK's own client to a
// local server speaking that API's wire format. It has no code of its own:
// it lives in the examples module so that the SDKs stay out of lineage's
// own dependencies.
package sdkcheck
