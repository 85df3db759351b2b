import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as os from "node:os"
import { programFile } from "../support/programs.ts"

export interface DaemonRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Starts the built daemon (`node dist/main.js`) with only the given environment and waits for it to exit
 * (for starts that must fail); killed after `timeoutMs` (then `code` is null).
 */
export const runDaemonToExit = (env: Record<string, string>, options: { readonly cwd?: string; readonly timeoutMs?: number } = {}) =>
  Effect.async<DaemonRun>((resume) => {
    const child = spawn(process.execPath, [programFile("main")], {
      cwd: options.cwd ?? os.tmpdir(),
      env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000)
    child.on("close", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, stdout, stderr }))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      child.kill("SIGKILL")
    })
  })
