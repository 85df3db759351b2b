import { createHash, type Hash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import { Transform } from "node:stream"
import * as yauzl from "yauzl"
import { type FileIdentity, identityOf, sameIdentity } from "../FileIdentity.ts"
import { formatOf } from "../ActivityFileName.ts"
import { linkUnderFreeName, suffixedName } from "../PublishFile.ts"

/**
 * Unpacks a zip of activity files (a Strava bulk export, or a plain zip) in two steps: `stageZip`
 * writes its activity files (folders inside the zip flattened, so no entry can write outside),
 * its images and its `activities.csv` into a dot-folder of their own beside the folder, all or
 * nothing; the caller then keeps what it must about them and lets each file into the folder
 * (`publishStaged`, never over another file) before it removes the staging (`removeStaging`).
 * Other entries are left out; an archive inside the zip refuses the whole zip (its activities
 * would be lost unseen); the limits below stop a zip bomb while it is unpacked, whatever the
 * headers claim (the images have a `totalBytes` of their own, and one past a limit is left out
 * rather than the zip refused). The zip is opened without following a link, and what it holds is
 * answered only if it did not change while it was read.
 */
export const ZIP_LIMITS = {
  entries: 20_000,
  entryBytes: 64 * 1024 * 1024,
  totalBytes: 4 * 1024 * 1024 * 1024
} as const

/** A zip unpacked into its staging folder, none of it in the folder yet. */
export interface StagedZip {
  /** the staging folder */
  readonly staging: string
  /** the zip as it was read, for its removal */
  readonly identity: FileIdentity
  /** activity files: the entry, the name in the staging folder (unique there) and the hash of its bytes */
  readonly files: ReadonlyArray<{ readonly entry: string; readonly name: string; readonly contentHash: string }>
  /** images (by their name: jpg, jpeg, png, webp), which an export may give its activities */
  readonly images: ReadonlyArray<{ readonly entry: string; readonly name: string }>
  /** `activities.csv` of a Strava export, when the zip has one at its root */
  readonly activitiesCsv: string | null
}

/** Why a zip was not unpacked, in words for the person who dropped it; nothing was unpacked. */
export class ZipProblem extends Error {}

/** The zip changed (or was replaced) while it was read: nothing was unpacked, it is read again once it holds still. */
export class ZipChanged extends Error {}

/** Archives and compressed files other than the gzipped activity files (`.fit.gz`, ...) a zip may hold. */
const NESTED = /\.(zip|tar|tgz|tbz2?|txz|7z|rar|gz|bz2|xz|zst|lz|lzma|cab|jar)$/i

/** Prefix of the dot-folders (which the watcher ignores) that zips are unpacked into before their files enter the folder. */
const STAGING_PREFIX = ".unzip-"

/** Removes the staging folders a crash left in `dir`; answers how many. */
export const removeStaleStaging = (dir: string): number => {
  let removed = 0
  let entries: Array<fs.Dirent> = []
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(STAGING_PREFIX)) continue
    fs.rmSync(path.join(dir, entry.name), { recursive: true, force: true })
    removed++
  }
  return removed
}

/** `name`, or `stem-1.ext`, `stem-2.ext`, ... when the folder has it already or `taken` holds it. */
const freeName = (dir: string, name: string, taken: Set<string>) => {
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? name : suffixedName(name, i)
    if (!taken.has(candidate) && !fs.existsSync(path.join(dir, candidate))) {
      taken.add(candidate)
      return candidate
    }
  }
}

/** Counts (and, given a hash, hashes) the bytes going through, failing past `limit`. */
const limited = (limit: number, counted: { bytes: number }, entry: string, hash?: Hash) =>
  new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted.bytes += chunk.length
      hash?.update(chunk)
      if (counted.bytes > limit) callback(new ZipProblem(`"${entry}" unpacks to more than ${limit} bytes`))
      else callback(null, chunk)
    }
  })

/** Images an export may give its activities. */
const IMAGE = /\.(jpe?g|png|webp)$/i

/**
 * The regular file `zipPath` opened without following a link nor waiting on a pipe, and what
 * it was when opened; null when it is gone.
 */
const openRegular = (zipPath: string): { readonly fd: number; readonly identity: FileIdentity } | null => {
  let fd: number
  try {
    fd = fs.openSync(zipPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null
    throw e
  }
  const stat = fs.fstatSync(fd)
  if (!stat.isFile()) {
    fs.closeSync(fd)
    throw new ZipChanged(`${zipPath} is no longer a regular file`)
  }
  return { fd, identity: identityOf(stat) }
}

/** Whether `file` is still the regular file `identity` describes (same size, modification time and inode). */
const unchanged = (file: string, identity: FileIdentity): boolean => {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false })
  return stat !== undefined && stat.isFile() && sameIdentity(identityOf(stat), identity)
}

/**
 * Unpacks `zipPath` into a staging folder of its own in `destDir`, all or nothing. Fails with
 * ZipProblem when it is refused, ZipChanged when it changed while it was read (no staging folder
 * is left either way). Null when it is gone.
 */
export const stageZip = async (zipPath: string, destDir: string): Promise<StagedZip | null> => {
  const opened = openRegular(zipPath)
  if (opened === null) return null
  const { identity } = opened
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.fromFdPromise(opened.fd, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: true })
  } catch (e) {
    try {
      fs.closeSync(opened.fd)
    } catch {
      // closed by the reader already
    }
    if (!unchanged(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
    throw new ZipProblem(`it is not a readable zip file (${(e as Error).message})`)
  }
  const files: Array<StagedZip["files"][number]> = []
  const images: Array<StagedZip["images"][number]> = []
  const taken = new Set<string>()
  const total = { bytes: 0 }
  let activitiesCsv: string | null = null
  let imageBytes = 0
  let count = 0
  // a dot-folder of its own (several zips may be unpacked at once), which the watcher ignores
  const staging = fs.mkdtempSync(path.join(destDir, STAGING_PREFIX))
  try {
    if (zip.entryCount > ZIP_LIMITS.entries) throw new ZipProblem(`it has ${zip.entryCount} entries; at most ${ZIP_LIMITS.entries} are unpacked`)
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject)
      zip.on("end", () => resolve())
      zip.on("entry", (entry: yauzl.Entry) => {
        const handle = async () => {
          if (++count > ZIP_LIMITS.entries) throw new ZipProblem(`it has more than ${ZIP_LIMITS.entries} entries`)
          const entryName = entry.fileName
          if (entryName.endsWith("/")) return
          const base = path.posix.basename(entryName.replaceAll("\\", "/"))
          if (base === "" || base.startsWith(".")) return
          const isCsv = entryName === "activities.csv"
          const isImage = IMAGE.test(base)
          if (formatOf(base) === null && !isCsv && !isImage) {
            if (NESTED.test(base)) {
              throw new ZipProblem(
                `it holds another archive, "${entryName}", and archives inside an archive are not unpacked; nothing was unpacked. ` +
                  `Unpack it and drop its activity files (or that archive on its own) into the watch folder, then drop this zip again without it`
              )
            }
            return
          }
          // photos have a budget of their own: one too large, or past it, is left out, never the export with it
          if (isImage && (entry.uncompressedSize > ZIP_LIMITS.entryBytes || imageBytes + entry.uncompressedSize > ZIP_LIMITS.totalBytes)) return
          if (entry.uncompressedSize > ZIP_LIMITS.entryBytes) throw new ZipProblem(`"${entryName}" unpacks to more than ${ZIP_LIMITS.entryBytes} bytes`)
          const stream = await zip.openReadStreamPromise(entry)
          const counted = { bytes: 0 }
          if (isCsv) {
            const chunks: Array<Buffer> = []
            await pipeline(stream, limited(ZIP_LIMITS.entryBytes, counted, entryName), async function*(source) {
              for await (const chunk of source) chunks.push(chunk as Buffer)
            })
            activitiesCsv = Buffer.concat(chunks).toString("utf8")
          } else {
            const name = freeName(staging, base, taken)
            const hash = isImage ? undefined : createHash("sha256")
            await pipeline(stream, limited(ZIP_LIMITS.entryBytes, counted, entryName, hash), fs.createWriteStream(path.join(staging, name), { flags: "wx" }))
            if (hash === undefined) images.push({ entry: entryName, name })
            else files.push({ entry: entryName, name, contentHash: hash.digest("hex") })
          }
          if (isImage) imageBytes += counted.bytes
          else total.bytes += counted.bytes
          if (total.bytes > ZIP_LIMITS.totalBytes) throw new ZipProblem(`it unpacks to more than ${ZIP_LIMITS.totalBytes} bytes`)
        }
        handle().then(() => zip.readEntry(), reject)
      })
      zip.readEntry()
    })
    // a zip still being copied, or replaced meanwhile: none of its files enter the folder
    if (!unchanged(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
    return { staging, identity, files, images, activitiesCsv }
  } catch (e) {
    fs.rmSync(staging, { recursive: true, force: true })
    if (e instanceof ZipProblem || e instanceof ZipChanged) throw e
    if (!unchanged(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
    // the file system's own trouble (a full disk, no permission): not the zip's fault
    if (typeof (e as NodeJS.ErrnoException).code === "string" && /^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code!)) throw e
    const message = (e as Error).message
    throw new ZipProblem(
      /invalid relative path|absolute path/.test(message)
        ? `it holds a file whose path leads outside the archive (${message.replace(/^.*?: /, "")}); nothing was unpacked`
        : `it is damaged (${message}); nothing was unpacked`
    )
  } finally {
    zip.close()
  }
}

/**
 * The name a staged file would get in `destDir` now: its own, or `name-1.ext`, ... when the
 * folder has it or `taken` (the names given the zip's other files) holds it.
 */
export const freeNameIn = (destDir: string, name: string, taken: Set<string>): string => freeName(destDir, name, taken)

/**
 * Lets the staged file `name` into `destDir` under `wanted`, or the first free `wanted-1.ext`,
 * ... should another file have taken it meanwhile: never over a file. The name it got.
 */
export const publishStaged = (staged: StagedZip, destDir: string, name: string, wanted: string): string => {
  const placed = linkUnderFreeName(path.join(staged.staging, name), destDir, wanted)
  if (placed === null) throw new Error(`no free name for ${wanted} in ${destDir}`)
  return placed
}

/**
 * Whether `destDir` holds the staged file under its own name already, with the same bytes:
 * let in by an unpacking of the same zip that a stop interrupted before the zip left the folder.
 */
export const placedBefore = (destDir: string, file: StagedZip["files"][number]): boolean => {
  const placed = path.join(destDir, file.name)
  const stat = fs.lstatSync(placed, { throwIfNoEntry: false })
  if (stat === undefined || !stat.isFile()) return false
  try {
    return createHash("sha256").update(fs.readFileSync(placed)).digest("hex") === file.contentHash
  } catch {
    return false
  }
}

/** Removes the staging folder (what was let into the folder stays there). */
export const removeStaging = (staged: StagedZip): void => fs.rmSync(staged.staging, { recursive: true, force: true })
