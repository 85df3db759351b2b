import { Data, Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Published, publishFile } from "../../services/import/PublishFile.ts"
import type { OnConflict } from "./PolarConfig.ts"

/**
 * Files into the watch folder: written under a hidden `.polar-<name>.<random>.part` name the
 * importer ignores, made durable, then published in one step by the watch folder's publish
 * rule (an existing file is never replaced under `skip`; `overwrite` replaces it). At start the
 * folder is created when missing and a probe file proves it writable; unfinished files of an
 * earlier run are removed (only this connector's own).
 */

export class DeliveryError extends Data.TaggedError("DeliveryError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

const PREFIX = ".polar-"
const describe = (cause: unknown) => (cause as NodeJS.ErrnoException | undefined)?.code ?? String(cause)

/** Creates the watch folder when missing, checks that it can be written to and removes leftovers; answers their names. */
export const prepareWatchFolder = (dir: string): Effect.Effect<ReadonlyArray<string>, DeliveryError> =>
  Effect.try({
    try: () => {
      fs.mkdirSync(dir, { recursive: true })
      const probe = path.join(dir, `${PREFIX}write-test.${randomBytes(4).toString("hex")}.part`)
      fs.writeFileSync(probe, "")
      fs.rmSync(probe)
      const leftovers = fs.readdirSync(dir).filter((name) => name.startsWith(PREFIX) && name.endsWith(".part"))
      for (const name of leftovers) fs.rmSync(path.join(dir, name), { force: true })
      return leftovers
    },
    catch: (cause) => new DeliveryError({ message: `the watch folder ${dir} cannot be written to (${describe(cause)})`, cause })
  })

/** Writes `bytes` as `name` in `dir`; `Exists` when `skip` found the name taken. */
export const deliverFile = (
  dir: string,
  name: string,
  bytes: Uint8Array,
  onConflict: OnConflict
): Effect.Effect<Published, DeliveryError> =>
  Effect.try({
    try: () => {
      const temp = path.join(dir, `${PREFIX}${name}.${randomBytes(4).toString("hex")}.part`)
      try {
        const fd = fs.openSync(temp, "wx", 0o644)
        try {
          fs.fchmodSync(fd, 0o644)
          fs.writeFileSync(fd, bytes)
        } finally {
          fs.closeSync(fd)
        }
        return publishFile(temp, dir, name, onConflict)
      } catch (cause) {
        fs.rmSync(temp, { force: true })
        throw cause
      }
    },
    catch: (cause) => new DeliveryError({ message: `cannot write ${name} into ${dir} (${describe(cause)})`, cause })
  })
