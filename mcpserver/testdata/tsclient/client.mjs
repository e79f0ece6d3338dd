// Drives lineage mcp with the official TypeScript MCP SDK client, its own
// validation on: the tool list must parse, and every structured result is
// checked against the tool's output schema by the SDK itself.
//
// node client.mjs MODE DIR (stdio: SERVER_COMMAND in $LINEAGE_TS_SERVER as
// a JSON array; http: the URL in $LINEAGE_TS_URL)
// MODE: roots | noroots | failroots | hangroots | http | settings | empty |
// claude-skills (the client calls itself claude-code)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";

const [mode, dir] = process.argv.slice(2);
const fail = (msg) => { console.error(`FAIL (${mode}): ${msg}`); process.exit(1); };

// Arguments of each tool, in an order that works on a fresh store.
const calls = [
  ["instructions_initial", {}],
  ["instructions_resolve", { paths: ["sub"] }],
  ["instructions_resume", { state: "state.json" }],
  ["agents_context", { slug: "tau" }],
  ["agents_profile", { slug: "tau" }],
  ["agents_journal", { slug: "tau", note: "from the TypeScript SDK" }],
  ["agents_log", { slug: "tau", note: "a log entry", details: ["d"] }],
  ["agents_commission", { slug: "newbie" }],
  ["agents_agenda", {}],
  ["tract_commit", { type: "instruction", text: "be brief" }],
  ["tract_commit", { type: "message", text: "hello" }],
  ["tract_compile", { format: "openai" }],
  ["context_compile", { target: "sub", slug: "tau", tract: "main", budget: 2000, format: "openai-request" }],
  ["tract_compile", {}],
  ["tract_log", { limit: 1 }],
  ["tract_branch", { name: "side" }],
  ["tract_switch", { name: "side" }],
  ["tract_commit", { type: "message", role: "assistant", text: "on side" }],
  ["tract_switch", { name: "main" }],
  ["tract_merge", { branch: "side" }],
  ["tract_annotate", { ref: "HEAD", priority: "important" }],
  ["tract_edit", { ref: "HEAD", text: "edited" }],
  ["tract_spawn", { child: "kid", purpose: "a sub-task" }],
  ["tract_merge_from", { child: "kid" }],
  ["tract_diff", { from: "HEAD~3", to: "HEAD" }],
  ["tract_config", { key: "budget", value: "20" }],
  ["tract_config", {}],
  ["tract_status", {}],
  ["tract_compress_plan", { budget: 20 }],
  ["tract_compress", { range: "HEAD~3..HEAD~1", summary: "We said hello on two branches.", dryRun: true }],
  ["tract_compress", { range: "HEAD~3..HEAD~1", summary: "We said hello on two branches." }],
  ["tract_diff", { from: "HEAD~1" }],
  ["tract_tag", { name: "v1" }],
  ["tract_tag", {}],
  ["tract_find", { text: "hello" }],
  ["tract_find", { tag: "v1", allTracts: true }],
  ["tract_tag", { delete: "v1" }],
  ["sessions_list", {}],
  ["sessions_list", { from: "claude" }],
  ["sessions_find", { query: "token early" }],
  ["sessions_show", { session: "0a1b" }],
  ["session_handoff", { summary: "We found where the parser stops.", to: "codex" }],
];

const caps = mode === "noroots" || mode === "http-noroots" ? {} : { roots: { listChanged: true } };
const client = new Client({ name: mode === "claude-skills" ? "claude-code" : "lineage-ts-test", version: "1.0.0" }, { capabilities: caps });
let rootsAsked = 0;
if (caps.roots) {
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    rootsAsked++;
    if (mode === "failroots") throw new Error("roots are not available here");
    if (mode === "hangroots") return new Promise(() => {});
    return { roots: [{ uri: pathToFileURL(dir).href, name: "project" }] };
  });
}

let transport;
if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(process.env.LINEAGE_TS_URL));
} else {
  const [command, ...args] = JSON.parse(process.env.LINEAGE_TS_SERVER);
  transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
}
await client.connect(transport);

const instructions = client.getInstructions() ?? "";
for (const want of ["instructions_initial", "instructions_resolve", "instructions_resume", "session.resume.diff", "twice"]) {
  if (!instructions.includes(want)) fail(`server instructions lack ${JSON.stringify(want)}`);
}

const { tools } = await client.listTools(); // the SDK validates the list
if (tools.length === 0) fail("no tools listed");
for (const t of tools) {
  if (t.outputSchema?.type !== "object") fail(`${t.name}: output schema type ${JSON.stringify(t.outputSchema?.type)}`);
}

async function callOK(name, args) {
  // callTool validates structuredContent against the tool's output schema
  // and throws when it does not match.
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) fail(`${name} ${JSON.stringify(args)}: ${res.content?.map((c) => c.text).join(" ")}`);
  if (!res.structuredContent) fail(`${name}: no structured content`);
  return res.structuredContent;
}

const called = new Set();
if (mode === "settings") {
  // The server runs with excludes ["vendor/**"] and a global file.
  const res = await callOK("instructions_resolve", { paths: ["vendor/x.go", "sub/y.go"] });
  const named = res.targets.flatMap((t) => t.files.map((f) => f.path));
  if (named.some((p) => p.includes("vendor")) || !named.some((p) => p.endsWith("AGENTS.md") && p.includes("sub"))) fail(`resolve: ${JSON.stringify(res)}`);
  const initial = await callOK("instructions_initial", {});
  if (initial.files[0]?.path !== process.env.LINEAGE_TS_GLOBAL || initial.files[0]?.kind !== "global") fail(`initial without the global file: ${JSON.stringify(initial)}`);
  const read = await client.readResource({ uri: "lineage://instructions/initial" });
  if (!read.contents[0].text.includes("team rules\n")) fail(`initial resource: ${JSON.stringify(read)}`);
} else if (mode === "claude-skills") {
  // Claude Code lists .claude/skills itself: the catalog names only the rest.
  if (!instructions.includes("<name>release-check</name>") || instructions.includes("<name>pdf</name>")) fail(`catalog for claude-code: ${instructions}`);
} else if (mode === "empty") {
  // The SDK validates the read: a text resource without text fails it.
  const read = await client.readResource({ uri: "lineage://instructions/initial" });
  if (!read.contents[0].text.startsWith("No instruction files load for ")) fail(`empty initial resource: ${JSON.stringify(read)}`);
} else if (mode === "roots" || mode === "http") {
  for (const [name, args] of calls) {
    const out = await callOK(name, args);
    called.add(name);
    if (name === "tract_status" && (out.budget !== 20 || typeof out.over !== "boolean")) fail(`status after config budget 20: ${JSON.stringify(out)}`);
    if (name === "tract_find" && args.text && out.found.length === 0) fail(`find "hello" found nothing: ${JSON.stringify(out)}`);
    if (name === "tract_tag" && args.name && out.created?.name !== "v1") fail(`tag v1: ${JSON.stringify(out)}`);
    if (name === "sessions_list" && (out.sessions.length !== 1 || out.sessions[0].session !== "0a1b2c3d-0000-4000-8000-000000000001" || out.sessions[0].harness !== "claude")) fail(`sessions_list: want the project's one session: ${JSON.stringify(out)}`);
    if (name === "sessions_find" && (out.hits.length !== 1 || !out.hits[0].text.includes("one token early") || out.hits[0].session.tract !== "claude-0a1b2c3d-0000-4000-8000-000000000001")) fail(`sessions_find: want the project's one hit: ${JSON.stringify(out)}`);
    if (name === "sessions_show" && (out.tract !== "claude-0a1b2c3d-0000-4000-8000-000000000001" || !out.branches.some((b) => b.name === "main") || out.records < 2)) fail(`sessions_show: ${JSON.stringify(out)}`);
    if (name === "session_handoff" && (out.session !== "claude-0a1b2c3d-0000-4000-8000-000000000001" || out.to !== "codex" || !out.tract.startsWith("handoff-") || !out.command.startsWith("cd "))) fail(`session_handoff: ${JSON.stringify(out)}`);
    if (name === "tract_diff" && !out.changes.every((c) => ["added", "removed", "edited", "reprioritized"].includes(c.kind))) fail(`diff kinds: ${JSON.stringify(out)}`);
  }
  // Tools registered after this script was written: called with no
  // arguments; an argument error is a fine answer, a protocol failure not.
  for (const t of tools) {
    if (called.has(t.name)) continue;
    const res = await client.callTool({ name: t.name, arguments: {} });
    console.error(`note: ${t.name} has no arguments in client.mjs; called with {} (isError ${!!res.isError})`);
    called.add(t.name);
  }
  const compiled = await callOK("tract_compile", { format: "openai" });
  if ("messages" in compiled || !Array.isArray(compiled.openai) || compiled.openai.length === 0) {
    fail(`openai compile must carry the messages once: ${JSON.stringify(compiled)}`);
  }
  // context_compile: the text content is the request, the structured
  // result its outline, the resource the whole compile.
  const ctx = await client.callTool({ name: "context_compile", arguments: { target: "sub", tract: "main", format: "openai-request" } });
  const request = JSON.parse(ctx.content[0].text);
  if (ctx.isError || !ctx.structuredContent.inline || !Array.isArray(request.messages) || request.messages.length !== ctx.structuredContent.messages) {
    fail(`context_compile: ${JSON.stringify(ctx)}`);
  }
  const whole = await client.readResource({ uri: ctx.structuredContent.resource });
  if (JSON.stringify(JSON.parse(whole.contents[0].text).request) !== JSON.stringify(request)) fail(`context resource: ${whole.contents[0].text}`);
  const other = await client.callTool({ name: "sessions_show", arguments: { session: "9f8e" } });
  if (!other.isError || !other.content[0].text.includes("outside the allowed roots")) fail(`a session outside the roots was shown: ${JSON.stringify(other)}`);
  const refused = await client.callTool({ name: "instructions_initial", arguments: { cwd: "/" } });
  if (!refused.isError || !refused.content[0].text.includes("outside the allowed roots")) fail(`cwd / not refused: ${JSON.stringify(refused)}`);
  if (mode === "roots" && rootsAsked === 0) fail("the server never asked for roots");
} else {
  // Roots unusable: every default-cwd call falls back to the server's
  // directory instead of failing or hanging.
  const initial = await callOK("instructions_initial", {});
  if (initial.files.length !== 1) fail(`initial in the server's directory: ${JSON.stringify(initial)}`);
  await callOK("agents_context", { slug: "tau" });
  await callOK("instructions_resolve", { paths: ["sub/x"] });
  if (mode !== "noroots" && rootsAsked !== 1) fail(`roots asked ${rootsAsked} times, want once per session`);
}
await client.close();
console.log(`ok ${mode}: ${tools.length} tools listed, ${called.size} called`);
