import * as fs from "node:fs"
import * as path from "node:path"
import { parseEnv } from "node:util"

/**
 * The `.env` file of the working directory, read the way `docker compose` reads it: its
 * variables fill in what the real environment leaves unset (the real environment wins).
 */
export const ENV_FILE_NAME = ".env"

export const envFilePath = (dir: string = process.cwd()): string => path.resolve(dir, ENV_FILE_NAME)

const readIfPresent = (file: string): string | null => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null
    throw e
  }
}

/** Sets every variable of `file` that `env` does not have yet; returns the names it set. */
export const loadEnvFile = (file: string, env: NodeJS.ProcessEnv = process.env): ReadonlyArray<string> => {
  const text = readIfPresent(file)
  if (text === null) return []
  const loaded: Array<string> = []
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (value === undefined || env[name] !== undefined) continue
    env[name] = value
    loaded.push(name)
  }
  return loaded
}

export type ApiKeyWrite =
  | { readonly _tag: "Created"; readonly key: string }
  | { readonly _tag: "Replaced"; readonly key: string }
  | { readonly _tag: "Added"; readonly key: string }
  | { readonly _tag: "Kept"; readonly key: string }

const KEY_LINE = /^[ \t]*(?:export[ \t]+)?SERVICE_API_KEY[ \t]*=.*$/m

/**
 * Puts `SERVICE_API_KEY=<key>` into `file`: creates it (readable by its owner only), or adds
 * the line to an existing file. A key already there is kept unless `force`, since replacing
 * it would lock out every client that uses it.
 */
export const writeApiKey = (file: string, key: string, options: { readonly force: boolean }): ApiKeyWrite => {
  const text = readIfPresent(file)
  const line = `SERVICE_API_KEY=${key}`
  if (text === null) {
    fs.writeFileSync(file, `${line}\n`, { mode: 0o600, flag: "wx" })
    return { _tag: "Created", key }
  }
  const existing = parseEnv(text)["SERVICE_API_KEY"]?.trim()
  if (existing !== undefined && existing !== "" && !options.force) return { _tag: "Kept", key: existing }
  const hasLine = KEY_LINE.test(text)
  const next = hasLine
    ? text.replace(KEY_LINE, line)
    : `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`
  // a temporary file renamed over the old one: an interrupted write never leaves half a file
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)
  fs.writeFileSync(temp, next, { mode: 0o600 })
  fs.chmodSync(temp, 0o600)
  fs.renameSync(temp, file)
  return hasLine ? { _tag: "Replaced", key } : { _tag: "Added", key }
}
