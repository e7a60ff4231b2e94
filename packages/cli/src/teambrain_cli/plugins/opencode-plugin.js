// teambrain: tb-capture __TOOL__
// Written by `tb install __TOOL__`. __TITLE__ has no command hooks, only plugins: this one hands
// each session event to `tb-capture __TOOL__` on stdin, as other tools' hooks do, and never
// changes what __TITLE__ does. What it records: `tb audit`; how: `tb help capture`.
import { spawn } from "node:child_process"

const pending = new Map() // callID -> tool arguments (tool.execute.before carries them)
const models = new Map() // sessionID -> the model its last prompt went to

function capture(payload) {
  return new Promise((resolve) => {
    try {
      const child = spawn("tb-capture", ["__TOOL__"], {
        stdio: ["pipe", "ignore", "ignore"],
      })
      child.on("error", () => resolve())
      child.on("close", () => resolve())
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify(payload))
    } catch {
      resolve()
    }
  })
}

export const TeambrainCapture = async ({ directory }) => {
  const base = (event, sessionID) => ({
    hook_event_name: event,
    session_id: sessionID,
    cwd: directory,
    model: models.get(sessionID),
  })
  return {
    event: async ({ event }) => {
      const info = event?.properties?.info
      if (event?.type === "session.created" && info?.id && !info.parentID) {
        await capture(base("session.created", info.id))
      } else if (event?.type === "session.deleted" && info?.id) {
        await capture(base("session.deleted", info.id))
      }
    },
    "chat.message": async (input, output) => {
      const parts = Array.isArray(output?.parts) ? output.parts : []
      const prompt = parts
        .filter((part) => part?.type === "text" && !part.synthetic)
        .map((part) => part.text)
        .join("\n")
      const model = input?.model?.modelID ?? output?.message?.model?.modelID
      if (input?.sessionID && model) models.set(input.sessionID, model)
      await capture({ ...base("chat.message", input?.sessionID), prompt })
    },
    "tool.execute.before": async (input, output) => {
      if (input?.callID) pending.set(input.callID, output?.args ?? {})
    },
    "tool.execute.after": async (input, output) => {
      const args = input?.args ?? pending.get(input?.callID) ?? {}
      pending.delete(input?.callID)
      const exit = output?.metadata?.exit ?? output?.metadata?.exitCode
      await capture({
        ...base("tool.execute.after", input?.sessionID),
        tool_name: input?.tool,
        tool_input: args,
        tool_response: typeof exit === "number" ? { exit_code: exit } : {},
      })
    },
  }
}
