package clienv

import (
	"fmt"
	"net"
	"strings"

	"github.com/agentlineage/lineage/internal/httpguard"
)

// ListenGuarded starts every HTTP face of the CLI (mcp --http, serve) the
// same way: the bearer token held in the variable --token-env names, which a
// non-loopback address requires, then the listener. addrFlag names the flag
// that gave addr, for the message.
func ListenGuarded(env *Env, addrFlag, tokenEnv, addr string) (net.Listener, string, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, "", UsageError("%s %s: want HOST:PORT, e.g. 127.0.0.1:7410 (port 0 picks a free one)", addrFlag, addr)
	}
	var token string
	if tokenEnv != "" {
		token = strings.TrimSpace(env.Getenv(tokenEnv))
		if token == "" {
			return nil, "", fmt.Errorf("--token-env: environment variable %s is not set or empty", tokenEnv)
		}
		if err := httpguard.CheckToken(token); err != nil {
			return nil, "", fmt.Errorf("--token-env: environment variable %s: %w", tokenEnv, err)
		}
	}
	if token == "" && !httpguard.LoopbackAddr(addr) {
		return nil, "", UsageError("%s %s is not a loopback address: serving it needs --token-env VAR (a bearer token every request must carry)", addrFlag, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen: %w", err)
	}
	return ln, token, nil
}
