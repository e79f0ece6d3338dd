// Command agentloop is a minimal coding agent whose memory is lineage: the
// conversation lives in a tract, and every model request is built by
// compose.Compile (what `lineage context` prints) — the AGENTS.md chain of
// the directory it works in, its agent profile and the history under one
// token budget. It talks to any OpenAI-compatible chat API through the
// official Go SDK.
//
// A turn commits the user's message, compiles the request, calls the model,
// commits its answer; when the model calls tools, their results are
// committed and the model is asked again. A sub-task runs in a child tract
// spawned from the conversation and is merged back when done, so the
// parent's history shows what the child did, by reference.
//
// Copy this file to start your own agent: the tools, the model and the
// prompt are yours; the memory is lineage's.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"
	"github.com/openai/openai-go/v3"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
)

// Tool is a function the model may call: its definition (JSON Schema
// parameters) and what running it returns.
type Tool struct {
	Def tract.ToolDef
	Run func(ctx context.Context, arguments string) (string, error)
}

// Agent is one agent working in Dir, remembering in Tract of Repo.
type Agent struct {
	Repo   *tract.Repo
	Tract  string
	Dir    string
	Slug   string // the agent whose profile joins the system part ("": none)
	Model  string
	Budget int // tokens the request may use
	Client openai.Client
	Tools  []Tool
	// MaxSteps bounds the model calls of one turn (tool loops); 0 means 8.
	MaxSteps int
}

// Setup commits the agent's tool definitions to its tract, so every
// request carries them (the latest tools commit wins).
func (a *Agent) Setup(ctx context.Context) error {
	if len(a.Tools) == 0 {
		return nil
	}
	defs := make([]tract.ToolDef, len(a.Tools))
	for i, t := range a.Tools {
		defs[i] = t.Def
	}
	_, err := a.Repo.Commit(ctx, a.Tract, tract.CommitRequest{Content: tract.Content{Type: tract.TypeTools, Tools: defs}})
	return err
}

// Turn answers one user message: commit it, then ask the model until it
// answers without calling a tool.
func (a *Agent) Turn(ctx context.Context, message string) (string, error) {
	if _, err := a.commit(ctx, tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: message}); err != nil {
		return "", err
	}
	steps := a.MaxSteps
	if steps <= 0 {
		steps = 8
	}
	for range steps {
		msg, err := a.ask(ctx)
		if err != nil {
			return "", err
		}
		if len(msg.ToolCalls) == 0 {
			if _, err := a.commit(ctx, tract.Content{Type: tract.TypeMessage, Role: tract.RoleAssistant, Text: msg.Content}); err != nil {
				return "", err
			}
			return msg.Content, nil
		}
		calls := make([]tract.ToolCall, len(msg.ToolCalls))
		for i, tc := range msg.ToolCalls {
			calls[i] = tract.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		}
		if _, err := a.commit(ctx, tract.Content{Type: tract.TypeToolCall, Text: msg.Content, ToolCalls: calls}); err != nil {
			return "", err
		}
		for _, c := range calls {
			out := a.run(ctx, c)
			if _, err := a.commit(ctx, tract.Content{Type: tract.TypeToolResult, ToolCallID: c.ID, Text: out}); err != nil {
				return "", err
			}
		}
	}
	return "", fmt.Errorf("no answer after %d model calls", steps)
}

// SubTask runs prompt in a child tract spawned from the agent's, then merges
// the child back: the parent's next request sees the child's work.
func (a *Agent) SubTask(ctx context.Context, name, purpose, prompt string) (string, error) {
	if _, err := a.Repo.Spawn(ctx, a.Tract, name, tract.SpawnOptions{Purpose: purpose}); err != nil {
		return "", err
	}
	child := *a
	child.Tract = name
	answer, err := child.Turn(ctx, prompt)
	if err != nil {
		return "", err
	}
	if _, err := a.Repo.MergeFrom(ctx, name, a.Tract); err != nil {
		return "", err
	}
	return answer, nil
}

// Request compiles the next model request: the OpenAI request body that
// `lineage context --format openai-request` prints, in the SDK's params.
func (a *Agent) Request(ctx context.Context) (openai.ChatCompletionNewParams, compose.Result, error) {
	res, err := compose.Compile(ctx, compose.Options{
		Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: a.Dir, Home: os.Getenv("HOME")},
		Slug:         a.Slug,
		Repo:         a.Repo,
		Tract:        a.Tract,
		Budget:       a.Budget,
		Format:       compose.FormatOpenAIRequest,
		Model:        a.Model,
	})
	if err != nil {
		return openai.ChatCompletionNewParams{}, res, err
	}
	body, err := json.Marshal(res.Request, json.Deterministic(true))
	if err != nil {
		return openai.ChatCompletionNewParams{}, res, err
	}
	var params openai.ChatCompletionNewParams
	if err := params.UnmarshalJSON(body); err != nil {
		return openai.ChatCompletionNewParams{}, res, fmt.Errorf("the SDK refused the request: %w", err)
	}
	return params, res, nil
}

func (a *Agent) ask(ctx context.Context) (openai.ChatCompletionMessage, error) {
	params, _, err := a.Request(ctx)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	out, err := a.Client.Chat.Completions.New(ctx, params)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	if len(out.Choices) == 0 {
		return openai.ChatCompletionMessage{}, errors.New("the model returned no choice")
	}
	return out.Choices[0].Message, nil
}

// run runs one tool call; a failure is the tool's result, for the model to
// read, not the loop's error.
func (a *Agent) run(ctx context.Context, c tract.ToolCall) string {
	for _, t := range a.Tools {
		if t.Def.Name == c.Name {
			out, err := t.Run(ctx, c.Arguments)
			if err != nil {
				return "error: " + err.Error()
			}
			return out
		}
	}
	return "error: no tool " + c.Name
}

func (a *Agent) commit(ctx context.Context, c tract.Content) (tract.Commit, error) {
	return a.Repo.Commit(ctx, a.Tract, tract.CommitRequest{Content: c})
}

// ReadFile is a tool that reads a file under dir.
func ReadFile(dir string) Tool {
	return Tool{
		Def: tract.ToolDef{Name: "read_file", Description: "Read a file of the project",
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		Run: func(_ context.Context, arguments string) (string, error) {
			var in struct {
				Path string `json:"path"`
			}
			if err := json.Unmarshal([]byte(arguments), &in); err != nil {
				return "", fmt.Errorf("arguments: %w", err)
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				return "", err
			}
			defer root.Close()
			data, err := root.ReadFile(filepath.Clean(in.Path))
			return string(data), err
		},
	}
}
