import * as fs from "node:fs"
import * as path from "node:path"
import { readPmtilesHeader } from "../maps/PmtilesFile.ts"

/**
 * Checks of the start that concern several settings together, or the machine: the API key's
 * format, the credentials a mode needs, folders that can be written, the map file. Each problem is one
 * sentence naming the setting to change; they are reported together with the settings' own
 * checks, so that one start shows everything to fix.
 */

type Env = Readonly<Record<string, string | undefined>>

const value = (env: Env, name: string): string | undefined => {
  const raw = env[name]?.trim()
  return raw === undefined || raw === "" ? undefined : raw
}

const isTrue = (raw: string | undefined) => raw !== undefined && ["true", "1", "yes", "on"].includes(raw.toLowerCase())

const KEY_FORMAT = "wmk_ followed by 64 lowercase hexadecimal characters"

/** The key's format; the key itself is never repeated (it would land in logs and terminals). */
export const apiKeyProblems = (env: Env): Array<string> => {
  const key = value(env, "SERVICE_API_KEY")
  if (key === undefined || /^wmk_[0-9a-f]{64}$/.test(key)) return []
  if (/^wmk_[0-9a-f]{64}$/i.test(key)) {
    return [`SERVICE_API_KEY is not a valid key: it has upper-case letters (expected ${KEY_FORMAT}); write it in lower case, or generate a new one with \`npm run cli -- app:setup --force\`.`]
  }
  return [`SERVICE_API_KEY is not a valid key (expected ${KEY_FORMAT}, got ${key.length} characters${key.startsWith("wmk_") ? "" : " not starting with wmk_"}): generate one with \`npm run cli -- app:setup\`.`]
}

const STRAVA_CREDENTIALS = ["STRAVA_CLIENT_ID", "STRAVA_CLIENT_SECRET", "STRAVA_REFRESH_TOKEN"] as const

/** What IMPORT_MODE=externalApi and webhooks need, checked now rather than at the first scheduled run. */
export const modeProblems = (env: Env): Array<string> => {
  const problems: Array<string> = []
  const external = value(env, "IMPORT_MODE")?.toLowerCase() === "externalapi"
  if (external) {
    const missing = STRAVA_CREDENTIALS.filter((name) => value(env, name) === undefined)
    if (missing.length > 0) {
      problems.push(`IMPORT_MODE=externalApi needs the Strava credentials ${STRAVA_CREDENTIALS.join(", ")}: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not set.`)
    }
  }
  if (isTrue(value(env, "WEBHOOKS_ENABLED")) && value(env, "WEBHOOKS_VERIFY_TOKEN") === undefined) {
    problems.push("WEBHOOKS_ENABLED=true needs WEBHOOKS_VERIFY_TOKEN: choose a secret token the platform sends back when it checks the callback.")
  }
  return problems
}

const writableFolderProblem = (name: string, dir: string): string | null => {
  try {
    fs.mkdirSync(dir, { recursive: true })
    if (!fs.statSync(dir).isDirectory()) return `${name} ${dir} is not a folder: set ${name} to a folder.`
    fs.accessSync(dir, fs.constants.W_OK)
    return null
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "error"
    const why = code === "ENOTDIR" || code === "EEXIST"
      ? "a file stands in its path"
      : code === "EACCES" || code === "EPERM"
      ? "this user may not write there"
      : code === "EROFS"
      ? "the file system is read-only"
      : (e as Error).message
    return `${name} ${dir} cannot be used: ${why} (${code}); set ${name} to a writable folder.`
  }
}

/** The storage and watch folders exist (created if needed) and can be written. */
export const folderProblems = (env: Env): Array<string> =>
  ([["STORAGE_DIR", "./storage"], ["WATCH_DIR", "./watch"]] as const).flatMap(([name, fallback]) => {
    const problem = writableFolderProblem(name, path.resolve(value(env, name) ?? fallback))
    return problem === null ? [] : [problem]
  })

/** MAP_TILES_FILE, when set, is a readable PMTiles (version 3) file of tiles a map can draw. */
export const mapFileProblems = (env: Env): Array<string> => {
  const file = value(env, "MAP_TILES_FILE")
  if (file === undefined) return []
  const checked = readPmtilesHeader(path.resolve(file))
  return "problem" in checked ? [checked.problem] : []
}

export const startupProblems = (env: Env): Array<string> => [...apiKeyProblems(env), ...modeProblems(env), ...folderProblems(env), ...mapFileProblems(env)]
