import * as Cause from "effect/Cause"
import * as fs from "node:fs"
import * as path from "node:path"
import { logFileName, utcDay } from "./Logs.ts"
import { appendWholeTo } from "./wholeLines.ts"

/**
 * Start-up failures in one sentence a person can act on: which setting to change and why,
 * for stderr and for the `daemon` log (whose logger may not exist yet, or no longer).
 */

export interface StartupSettings {
  readonly port: number
  readonly host: string
  readonly storageDir: string
  readonly watchDir: string
  /** The program, as a sentence names it ("Waymark" unless said). */
  readonly program?: string
  /** The setting that moves the listener and what it holds (PORT, a port, unless said). */
  readonly listenSetting?: { readonly name: string; readonly holds: string }
}

interface SystemError {
  readonly code: string
  readonly message: string
  readonly syscall?: string
  readonly path?: string
}

const isSystemError = (u: unknown): u is SystemError =>
  typeof u === "object" && u !== null && typeof (u as { code?: unknown }).code === "string" && typeof (u as { message?: unknown }).message === "string"

/** The errors of a cause, each followed by the chain of its `cause` properties. */
const errorsOf = (cause: Cause.Cause<unknown>): Array<unknown> => {
  const found: Array<unknown> = []
  const walk = (u: unknown, depth: number) => {
    if (u === undefined || u === null || depth > 8) return
    found.push(u)
    if (typeof u === "object" && "cause" in u) walk((u as { cause: unknown }).cause, depth + 1)
  }
  for (const e of [...Cause.failures(cause), ...Cause.defects(cause)]) walk(e, 0)
  return found
}

const settingOfPath = (file: string, settings: StartupSettings): string => {
  const inside = (dir: string) => file === dir || file.startsWith(dir + path.sep)
  if (inside(settings.watchDir)) return "WATCH_DIR"
  if (inside(settings.storageDir)) return "STORAGE_DIR"
  return "STORAGE_DIR or WATCH_DIR"
}

const firstLine = (u: unknown): string => {
  const text = u instanceof Error || isSystemError(u) ? (u as { message: string }).message : typeof u === "string" ? u : JSON.stringify(u)
  return (text ?? String(u)).split("\n")[0]!.trim()
}

/** One plain sentence for a failed start. */
export const describeStartupFailure = (cause: Cause.Cause<unknown>, settings: StartupSettings): string => {
  const errors = errorsOf(cause)
  const system = errors.find(isSystemError)
  if (system !== undefined) {
    const where = `${settings.host}:${settings.port}`
    const listen = settings.listenSetting ?? { name: "PORT", holds: "port" }
    switch (system.code) {
      case "EADDRINUSE":
        return `Port ${settings.port} is already in use (${where}, EADDRINUSE): stop the program that uses it, or set ${listen.name} to a free ${listen.holds}.`
      case "EACCES":
      case "EPERM":
        if (system.syscall === "listen" || system.syscall === "bind") {
          return `Port ${settings.port} cannot be opened without more privileges (${where}, ${system.code}): set ${listen.name} to a port of 1024 or above.`
        }
        if (system.path !== undefined) {
          return `No permission to write ${system.path} (${system.code}): make it writable for this user, or set ${settingOfPath(system.path, settings)} to a writable folder.`
        }
        break
      case "EADDRNOTAVAIL":
        return `${settings.host} is not an address of this machine (EADDRNOTAVAIL): set ${listen.name === "PORT" ? "HOST" : listen.name} to one of its addresses, or to 0.0.0.0.`
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return `${settings.host} cannot be resolved (${system.code}): set ${listen.name === "PORT" ? "HOST" : listen.name} to an address such as 0.0.0.0 or 127.0.0.1.`
      case "EROFS":
      case "ENOSPC":
      case "ENOTDIR":
      case "EEXIST":
        if (system.path !== undefined) {
          const why = system.code === "EROFS" ? "the file system is read-only" : system.code === "ENOSPC" ? "the disk is full" : "a file stands where a folder must be"
          return `Cannot write ${system.path}: ${why} (${system.code}); set ${settingOfPath(system.path, settings)} to a writable folder.`
        }
        break
      case "SQLITE_CANTOPEN":
      case "SQLITE_READONLY":
      case "SQLITE_CORRUPT":
      case "SQLITE_NOTADB":
        return `The database under ${settings.storageDir} cannot be opened (${system.code}): check that STORAGE_DIR is a writable folder holding a Waymark database. ${system.message}`
    }
  }
  const first = errors.find((e) => firstLine(e) !== "" && !/^(An error has occurred|ServeError)$/.test(firstLine(e)))
  return `${settings.program ?? "Waymark"} could not start: ${first === undefined ? Cause.pretty(cause).split("\n")[0] : firstLine(first)}`
}

/** Appends a line to the `daemon` channel file, in the channel logger's format; never throws. */
export const writeDaemonLog = (logsDir: string, level: "FATAL" | "ERROR" | "INFO", message: string, detail?: string): void => {
  try {
    const now = new Date()
    fs.mkdirSync(logsDir, { recursive: true })
    const entry = { timestamp: now.toISOString(), level, message, annotations: {}, spans: {}, ...(detail ? { cause: detail } : {}), channel: "daemon" }
    appendWholeTo(path.join(logsDir, logFileName("daemon", utcDay(now))), JSON.stringify(entry) + "\n")
  } catch {
    // the storage folder itself may be what failed: stderr already has the sentence
  }
}
