// lineage's opencode plugin, written by `lineage hook install opencode`.
// It runs `lineage hook opencode` with one event as JSON on stdin and puts
// the answer where opencode gives it to the model: a session's start text
// in the system prompt of each of its requests, a reminder after a tool's
// output. Any failure of lineage leaves opencode as it was. Reinstall
// rather than edit: install and uninstall recognise the marker line below.
// lineage-hook-plugin: opencode
import { spawn } from "node:child_process"

const command = __COMMAND__
const timeoutMs = 30000

// ask runs lineage on one event and returns its text ("" for none or on
// any failure).
function ask(directory, event) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = (text) => {
      if (!done) {
        done = true
        resolve(text)
      }
    }
    let child
    try {
      child = spawn(command[0], command.slice(1), { cwd: directory, stdio: ["pipe", "pipe", "ignore"], windowsHide: true })
    } catch {
      return finish("")
    }
    const timer = setTimeout(() => {
      try {
        child.kill()
      } catch {}
      finish("")
    }, timeoutMs)
    child.on("error", () => finish(""))
    child.stdout.on("data", (chunk) => {
      out += chunk
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      if (code !== 0 || out.trim() === "") return finish("")
      try {
        const answer = JSON.parse(out)
        finish(typeof answer.context === "string" ? answer.context : "")
      } catch {
        finish("")
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify({ cwd: directory, ...event }))
  })
}

export const LineagePlugin = async ({ directory }) => {
  const starts = new Map()
  const parents = new Map()
  const compacted = new Set()
  // A subagent's session (a child session) is an agent of its parent's.
  const ids = (sessionID) => {
    const parent = parents.get(sessionID)
    return parent ? { session_id: parent, agent_id: sessionID } : { session_id: sessionID }
  }
  // The start text of a session, asked once per session and process: the
  // system prompt is built anew for every request, so it is added to each.
  const start = (sessionID) => {
    let text = starts.get(sessionID)
    if (text === undefined) {
      const source = compacted.delete(sessionID) ? "compact" : "startup"
      text = ask(directory, { hook_event_name: "session.start", source, ...ids(sessionID) })
      starts.set(sessionID, text)
    }
    return text
  }
  return {
    event: async ({ event }) => {
      try {
        const info = event && event.type === "session.created" && event.properties && event.properties.info
        if (info && info.id && info.parentID) parents.set(info.id, info.parentID)
      } catch {}
    },
    "experimental.chat.system.transform": async (input, output) => {
      try {
        if (!input || !input.sessionID || !output || !Array.isArray(output.system)) return
        const text = await start(input.sessionID)
        if (text) output.system.push(text)
      } catch {}
    },
    "tool.execute.after": async (input, output) => {
      try {
        if (!input || !input.sessionID || !output || typeof output.output !== "string") return
        await start(input.sessionID)
        const text = await ask(directory, {
          hook_event_name: "tool.execute.after",
          ...ids(input.sessionID),
          tool_name: input.tool,
          tool_input: input.args || {},
        })
        if (text) output.output += "\n\n" + text
      } catch {}
    },
    "experimental.session.compacting": async (input) => {
      try {
        if (!input || !input.sessionID) return
        await ask(directory, { hook_event_name: "session.compacting", ...ids(input.sessionID) })
        starts.delete(input.sessionID)
        compacted.add(input.sessionID)
      } catch {}
    },
  }
}
