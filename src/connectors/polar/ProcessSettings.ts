import * as fs from "node:fs"
import * as path from "node:path"
import type { PolarConfigShape } from "./PolarConfig.ts"

/**
 * UMASK, PUID and PGID applied to the process itself (TZ is read by Node from the
 * environment). Started as root with PUID/PGID, the connector hands its own folders (state
 * and tokens, never the shared watch folder) to that user and drops to it before it touches
 * anything else. Answers what it did or could not do, for the log.
 */
export const applyProcessSettings = (
  config: Pick<PolarConfigShape, "umask" | "puid" | "pgid" | "stateDir" | "tokensDir">
): Array<string> => {
  const notes: Array<string> = []
  if (config.umask._tag === "Some") process.umask(config.umask.value)
  const uid = config.puid._tag === "Some" ? config.puid.value : undefined
  const gid = config.pgid._tag === "Some" ? config.pgid.value : undefined
  if (uid === undefined && gid === undefined) return notes
  if (process.getuid?.() !== 0) {
    const mine = process.getuid?.()
    if (uid !== undefined && uid !== mine) notes.push(`PUID=${uid} ignored: the process is not root (it runs as uid ${mine})`)
    return notes
  }
  for (const dir of [config.stateDir, config.tokensDir]) {
    fs.mkdirSync(dir, { recursive: true })
    for (const entry of [dir, ...fs.readdirSync(dir).map((name) => path.join(dir, name))]) {
      fs.chownSync(entry, uid ?? fs.statSync(entry).uid, gid ?? fs.statSync(entry).gid)
    }
  }
  if (gid !== undefined) {
    process.setgroups?.([gid])
    process.setgid?.(gid)
  }
  if (uid !== undefined) process.setuid?.(uid)
  notes.push(`running as uid ${process.getuid?.()} gid ${process.getgid?.()}`)
  return notes
}
