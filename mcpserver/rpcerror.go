package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// invalidParams is a JSON-RPC "invalid params" error (-32602) with msg.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// wireError gives a handler's error a real JSON-RPC code: one that already
// has a code (resource not found -32002, invalid params -32602) keeps it;
// any other is an internal error (-32603) with the error's own message.
// The SDK sends a plain Go error with code 0, which clients show as an
// unknown failure.
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// coded wraps a resource or prompt handler so every error it returns
// carries a JSON-RPC code (see [wireError]).
func coded[Req, Res any](f func(context.Context, Req) (Res, error)) func(context.Context, Req) (Res, error) {
	return func(ctx context.Context, req Req) (Res, error) {
		res, err := f(ctx, req)
		if err != nil {
			var zero Res
			return zero, wireError(err)
		}
		return res, nil
	}
}
