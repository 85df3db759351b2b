import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { syncFolder } from "../../services/import/files/PublishFile.ts"
import { describeParseError } from "./describeParseError.ts"

/**
 * A connector's small JSON files (tokens, ledger, history): replaced atomically (a temporary
 * file in the same folder, fsync, rename, fsync of the folder), so that a crash at any point
 * leaves the old content or the new one, never a mix; read back schema-checked, and refused
 * with a message naming the file when they cannot be read, never silently reset.
 */
export class JsonFileError extends Data.TaggedError("JsonFileError")<{
  readonly file: string
  readonly message: string
  readonly cause?: unknown
}> {}

const describe = (cause: unknown) => {
  const error = cause as NodeJS.ErrnoException | undefined
  return error?.code ?? (error instanceof Error ? error.message : String(cause))
}

const temporaryPrefix = (file: string) => `.${path.basename(file)}.`

/** Whether `entry` (a name in the file's folder) is a temporary file of `file`. */
export const isTemporaryOf = (file: string, entry: string): boolean =>
  entry.startsWith(temporaryPrefix(file)) && entry.endsWith(".tmp")

/** Replaces `file` with `data` in one step; the file has `mode` whatever the umask. Throws on failure. */
export const writeFileAtomic = (file: string, data: string | Uint8Array, mode: number): void => {
  const temp = path.join(path.dirname(file), `${temporaryPrefix(file)}${randomBytes(6).toString("hex")}.tmp`)
  try {
    const fd = fs.openSync(temp, "wx", mode)
    try {
      fs.fchmodSync(fd, mode)
      fs.writeFileSync(fd, data)
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(temp, file)
  } catch (cause) {
    fs.rmSync(temp, { force: true })
    throw cause
  }
  syncFolder(path.dirname(file))
}

/** Removes the temporary files a write cut off by a crash left beside `file`; answers their names. */
export const discardTemporaries = (file: string): Array<string> => {
  let entries: Array<string>
  try {
    entries = fs.readdirSync(path.dirname(file))
  } catch {
    return []
  }
  const removed = entries.filter((entry) => isTemporaryOf(file, entry))
  for (const entry of removed) fs.rmSync(path.join(path.dirname(file), entry), { force: true })
  return removed
}

/** The parsed JSON of `file`; None when there is no such file. */
export const readJsonFile = (file: string): Effect.Effect<Option.Option<unknown>, JsonFileError> =>
  Effect.suspend(() => {
    let text: string
    try {
      text = fs.readFileSync(file, "utf8")
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "ENOENT") return Effect.succeed(Option.none())
      return Effect.fail(new JsonFileError({ file, message: `cannot read ${file} (${describe(cause)})`, cause }))
    }
    try {
      return Effect.succeed(Option.some(JSON.parse(text) as unknown))
    } catch (cause) {
      return Effect.fail(
        new JsonFileError({ file, message: `${file} is not valid JSON (${describe(cause)}); fix or remove it`, cause })
      )
    }
  })

/** Checks stored JSON against its schema; a mismatch names the file and what is wrong. */
export const decodeStored = <A, I>(file: string, schema: Schema.Schema<A, I>, value: unknown): Effect.Effect<A, JsonFileError> =>
  Either.match(Schema.decodeUnknownEither(schema, { onExcessProperty: "ignore" })(value), {
    onLeft: (cause) =>
      Effect.fail(
        new JsonFileError({
          file,
          message: `${file} does not hold what was expected (${describeParseError(cause)}); fix or remove it`,
          cause
        })
      ),
    onRight: Effect.succeed
  })

/** Encodes `value` with its schema and writes it atomically as indented JSON. */
export const writeJsonFile = <A, I>(
  file: string,
  schema: Schema.Schema<A, I>,
  value: A,
  options: { readonly mode: number; readonly wrap?: (encoded: I) => unknown }
): Effect.Effect<void, JsonFileError> =>
  Effect.try({
    try: () => {
      const encoded = Schema.encodeSync(schema)(value)
      const json = JSON.stringify(options.wrap ? options.wrap(encoded) : encoded, null, 2) + "\n"
      writeFileAtomic(file, json, options.mode)
    },
    catch: (cause) => new JsonFileError({ file, message: `cannot write ${file} (${describe(cause)})`, cause })
  })

/** Creates the folder of `file` when missing (with `mode` for a new folder). */
export const ensureFolder = (file: string, mode: number): Effect.Effect<void, JsonFileError> =>
  Effect.try({
    try: () => void fs.mkdirSync(path.dirname(file), { recursive: true, mode }),
    catch: (cause) =>
      new JsonFileError({ file, message: `cannot create the folder ${path.dirname(file)} (${describe(cause)})`, cause })
  })
