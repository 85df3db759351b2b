import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { publishFile, type Published } from "../../services/import/files/PublishFile.ts"

/**
 * A connector's way into the watch folder. A file is written as `.<name>.part` (or `.<name>.tmp`) beside its
 * target (a dot-file and a `.part`: the watcher never takes it for an import), made durable,
 * then published under its final name by the same rule as uploads: in one step, and never
 * over an existing file unless `onConflict` is `overwrite`. With `skip` (the default) an
 * existing file of that name stays and the new bytes are dropped: the cloud's id is in the
 * name, so it is the same activity still waiting for its import.
 *
 * At start the folder is created, `.part` files left by a crash are removed (nobody will finish
 * them), and a probe file is written and removed: a folder that cannot be written fails here,
 * with the folder named, instead of at the first download.
 */

export type OnConflict = "skip" | "overwrite"

/** How a file is named while it is written: `.<name>.part` (default) or `.<name>.tmp`. */
export type TemporarySuffix = ".part" | ".tmp"

export interface DeliveryOptions {
  readonly dir: string
  /** What happens when a file of the same name is already in the folder; default `skip`. */
  readonly onConflict?: OnConflict
  /** Suffix of the temporary name (both are ignored by the watcher); default `.part`. */
  readonly temporarySuffix?: TemporarySuffix
}

export class DeliveryError extends Data.TaggedError("DeliveryError")<{
  readonly path: string
  readonly message: string
  readonly cause?: unknown
}> {}

export interface Delivery {
  readonly dir: string
  readonly onConflict: OnConflict
  /**
   * Writes `content` into the folder as `name` (a plain file name, not a path). Answers
   * `Published` or, with `skip`, `Exists` when the name was taken. On any failure nothing
   * is left under either name.
   */
  readonly deliver: <E = never, R = never>(
    name: string,
    content: Uint8Array | Stream.Stream<Uint8Array, E, R>
  ) => Effect.Effect<Published, DeliveryError | E, R>
}

export const DELIVERED_FILE_MODE = 0o644

/** The temporary name of `name` while it is written. */
export const partNameOf = (name: string, suffix: TemporarySuffix = ".part"): string => `.${name}${suffix}`

const isPartName = (entry: string, suffix: TemporarySuffix): boolean => entry.startsWith(".") && entry.endsWith(suffix)

const messageOf = (e: unknown): string => e instanceof Error ? e.message : String(e)

/** A plain file name that cannot leave the folder nor hide from the watcher. */
const checkName = (name: string): string | undefined => {
  if (name === "" || name === "." || name === "..") return "an empty name"
  if (name.includes("/") || name.includes("\\") || name.includes("\0")) return "a path, not a file name"
  if (name.startsWith(".")) return "a hidden name the watch folder ignores"
  if (/\.(part|tmp)$/i.test(name)) return "a temporary-file name the watch folder ignores"
  return undefined
}

/** Removes `.*<suffix>` files from `dir` (only this suffix: another connector may be writing its own); answers their names. */
const removeStaleParts = (dir: string, suffix: TemporarySuffix): Array<string> => {
  const removed: Array<string> = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !isPartName(entry.name, suffix)) continue
    try {
      fs.rmSync(path.join(dir, entry.name), { force: true })
      removed.push(entry.name)
    } catch {
      // left for the next start
    }
  }
  return removed
}

/** Creates, writes, fsyncs and removes a probe file in `dir`. */
const probe = (dir: string): void => {
  const file = path.join(dir, `.waymark-write-probe-${process.pid}`)
  try {
    const fd = fs.openSync(file, "w", DELIVERED_FILE_MODE)
    try {
      fs.writeSync(fd, "probe")
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
  } finally {
    fs.rmSync(file, { force: true })
  }
}

export const makeDelivery = (options: DeliveryOptions): Effect.Effect<Delivery, DeliveryError> =>
  Effect.gen(function*() {
    const dir = path.resolve(options.dir)
    const onConflict = options.onConflict ?? "skip"
    const suffix = options.temporarySuffix ?? ".part"
    const stale = yield* Effect.try({
      try: () => {
        fs.mkdirSync(dir, { recursive: true })
        const removed = removeStaleParts(dir, suffix)
        probe(dir)
        return removed
      },
      catch: (cause) =>
        new DeliveryError({ path: dir, message: `the watch folder ${dir} is not writable: ${messageOf(cause)}`, cause })
    })
    if (stale.length > 0) {
      yield* Effect.logInfo(`removed ${stale.length} unfinished download(s) from ${dir}: ${stale.join(", ")}`)
    }

    const deliver = <E = never, R = never>(name: string, content: Uint8Array | Stream.Stream<Uint8Array, E, R>) =>
      Effect.gen(function*() {
        const invalid = checkName(name)
        if (invalid !== undefined) {
          return yield* new DeliveryError({ path: dir, message: `cannot deliver ${JSON.stringify(name)}: ${invalid}` })
        }
        const part = path.join(dir, partNameOf(name, suffix))
        const failed = (what: string) => (cause: unknown) =>
          new DeliveryError({ path: part, message: `${what} ${part}: ${messageOf(cause)}`, cause })
        const write = Effect.acquireUseRelease(
          Effect.try({
            try: () => {
              const fd = fs.openSync(part, "w", DELIVERED_FILE_MODE)
              // readable by the daemon whatever the connector's umask
              fs.fchmodSync(fd, DELIVERED_FILE_MODE)
              return fd
            },
            catch: failed("cannot create")
          }),
          (fd) =>
            (content instanceof Uint8Array
              ? Effect.try({ try: () => writeAll(fd, content), catch: failed("cannot write") })
              : Stream.runForEach(
                content,
                (chunk) => Effect.try({ try: () => writeAll(fd, chunk), catch: failed("cannot write") })
              )).pipe(Effect.zipRight(Effect.try({ try: () => fs.fsyncSync(fd), catch: failed("cannot sync") }))),
          (fd) => Effect.sync(() => fs.closeSync(fd))
        )
        return yield* write.pipe(
          Effect.zipRight(Effect.try({
            try: () => publishFile(part, dir, name, onConflict),
            catch: (cause) =>
              new DeliveryError({ path: path.join(dir, name), message: `cannot publish ${name} in ${dir}: ${messageOf(cause)}`, cause })
          })),
          Effect.onExit(() => Effect.sync(() => fs.rmSync(part, { force: true }))),
          Effect.withSpan("Delivery.deliver", { attributes: { name } })
        )
      })

    return { dir, onConflict, deliver } satisfies Delivery
  })

const writeAll = (fd: number, bytes: Uint8Array): void => {
  let offset = 0
  while (offset < bytes.byteLength) offset += fs.writeSync(fd, bytes, offset)
}
