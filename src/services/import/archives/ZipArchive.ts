import { createHash, type Hash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { finished, pipeline } from "node:stream/promises"
import { Transform, type Writable } from "node:stream"
import type * as yauzl from "yauzl"
import { type FileIdentity, identityOf, isStill, openNoFollow } from "../files/FileOnDisk.ts"
import type { ExportKind, ExportPlan } from "../exports/ExportPlan.ts"
import { linkUnderFreeName, suffixedName } from "../files/PublishFile.ts"
import type { ExportedActivity } from "./ExportedActivity.ts"

/** The zip reader, loaded with the first zip: a daemon never given an archive does without it. */
let reader: Promise<typeof yauzl> | undefined
const zipReader = () => (reader ??= import("yauzl"))

/**
 * Unpacks a zip of activity files (a peer's export, or a plain zip) in two steps: `stageZip`
 * reads its list of entries, has its caller's planner say what to unpack (ZipPlanner, which
 * reads the entries it needs through the reader: which entries are activity files and what the
 * export says of each, which are archives to open in turn, what is left out; the zip reader
 * reads and plans nothing), and writes the activity files (folders flattened, so no entry can
 * write outside), those of the parts the plan opens and the photos its activities name into a
 * dot-folder of their own beside the folder, all or nothing; the caller then keeps what it must
 * about them and lets each file into the folder (`publishStaged`, never over another file)
 * before it removes the staging (`removeStaging`). The limits below stop a zip bomb while it is unpacked:
 * every entry's inflated bytes are counted as they arrive, whatever its header claims, against
 * the entry's limit and the archive's total (a part's bytes count in the total; the photos have
 * a `totalBytes` of their own, and one past a limit is left out rather than the zip refused).
 * Every stream of an entry (the zip's read stream, the count, the file written) has its errors
 * handled, and a file is written only once its entry is being read. The zip is opened without
 * following a link, and what it holds is answered only if it did not change while it was read.
 */
export interface ZipLimits {
  /** entries of the zip (and of each of its parts) */
  readonly entries: number
  /** inflated bytes of one entry */
  readonly entryBytes: number
  /** inflated bytes of all the entries unpacked, and of the photos on their own */
  readonly totalBytes: number
}

/** The limits when the settings name none (ARCHIVE_ENTRY_MAX_SIZE, ARCHIVE_MAX_SIZE). */
export const ZIP_LIMITS: ZipLimits = {
  entries: 20_000,
  entryBytes: 64 * 1024 * 1024,
  totalBytes: 4 * 1024 * 1024 * 1024
}

/** A number of bytes in words: `64 MiB`, `1.5 KiB`, `300 bytes`. */
export const bytesInWords = (bytes: number): string => {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`
  }
  return `${bytes} bytes`
}

/** The refusal of an entry past the limit of one entry. */
const overEntryLimit = (entry: string, limits: ZipLimits) =>
  new ZipProblem(`its entry "${entry}" unpacks to more than ${bytesInWords(limits.entryBytes)}, the limit of one entry of an archive (ARCHIVE_ENTRY_MAX_SIZE)`)

/** The refusal of an archive past its total, met while its entry `entry` was unpacked. */
const overTotalLimit = (entry: string, limits: ZipLimits) =>
  new ZipProblem(`it unpacks to more than ${bytesInWords(limits.totalBytes)}, the limit of an archive (ARCHIVE_MAX_SIZE), once its entry "${entry}" is unpacked`)

/** A zip unpacked into its staging folder, none of it in the folder yet. */
export interface StagedZip {
  /** the staging folder */
  readonly staging: string
  /** the zip as it was read, for its removal */
  readonly identity: FileIdentity
  /** the export it is (ExportLayout); `unknown` for a plain zip of activity files */
  readonly kind: ExportKind
  /** for a part of a Garmin export unpacked in the folder, the id of that export (its summaries' hash); null for a zip of its own */
  readonly archive: string | null
  /**
   * activity files: the entry, where it is in the zip (`<part>:<index>`, unique even when two
   * entries share a name), the name in the staging folder (unique there), the hash of its bytes
   * and what the export says of it
   */
  readonly files: ReadonlyArray<
    { readonly entry: string; readonly at: string; readonly name: string; readonly contentHash: string; readonly metadata: ExportedActivity | null }
  >
  /** the photos the export gives its activities (jpg, jpeg, png, webp), by their entry */
  readonly images: ReadonlyArray<{ readonly entry: string; readonly name: string }>
  /** every gear the export lists */
  readonly gear: ExportPlan["gear"]
  /** a Garmin export's summaries, to name its activities by their start once parsed */
  readonly summaries: ExportPlan["summaries"]
  /** what the export holds besides activities, by area, left out */
  readonly skipped: ExportPlan["skipped"]
}

/** Why a zip was not unpacked, in words for the person who dropped it; nothing was unpacked. */
export class ZipProblem extends Error {}

/** The zip changed (or was replaced) while it was read: nothing was unpacked, it is read again once it holds still. */
export class ZipChanged extends Error {}

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
export const freeNameIn = (dir: string, name: string, taken: Set<string>): string => {
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? name : suffixedName(name, i)
    if (!taken.has(candidate) && !fs.existsSync(path.join(dir, candidate))) {
      taken.add(candidate)
      return candidate
    }
  }
}

/**
 * Counts (and, given a hash, hashes) the bytes of `entry` going through, against the limit of
 * one entry (`limit`) and, given `total`, the running total of the archive: fails past either.
 */
const limited = (entry: string, limit: { readonly bytes: number; readonly problem: () => ZipProblem }, counted: { bytes: number }, total?: Counted, hash?: Hash) =>
  new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted.bytes += chunk.length
      if (total !== undefined) total.bytes += chunk.length
      if (counted.bytes > limit.bytes) return callback(limit.problem())
      if (total !== undefined && total.bytes > total.limits.totalBytes) return callback(overTotalLimit(entry, total.limits))
      hash?.update(chunk)
      callback(null, chunk)
    }
  })

/** The archive's running total of inflated bytes, against its limits. */
interface Counted {
  bytes: number
  readonly limits: ZipLimits
}

/** Images an export may give its activities. */
const IMAGE = /\.(jpe?g|png|webp)$/i

/**
 * The regular file `zipPath` opened without following a link nor waiting on a pipe, and what
 * it was when opened; null when it is gone.
 */
const openRegular = (zipPath: string): { readonly fd: number; readonly identity: FileIdentity } | null => {
  const opened = openNoFollow(zipPath)
  if (opened === null) return null
  if (!opened.stat.isFile()) {
    fs.closeSync(opened.fd)
    throw new ZipChanged(`${zipPath} is no longer a regular file`)
  }
  return { fd: opened.fd, identity: identityOf(opened.stat) }
}

/**
 * The entries of an open zip (lazyEntries), read from its central directory, at most
 * `limits.entries`. The zip's errors after the listing (an entry's read stream reports its own)
 * are no longer anyone's to answer: they are swallowed rather than left to stop the process.
 */
const listEntries = (zip: yauzl.ZipFile, limits: ZipLimits): Promise<Array<yauzl.Entry>> => {
  zip.on("error", () => {})
  if (zip.entryCount > limits.entries) return Promise.reject(new ZipProblem(`it has ${zip.entryCount} entries; at most ${limits.entries} are unpacked`))
  return new Promise((resolve, reject) => {
    const entries: Array<yauzl.Entry> = []
    zip.on("error", reject)
    zip.on("end", () => resolve(entries))
    zip.on("entry", (entry: yauzl.Entry) => {
      if (entries.length >= limits.entries) return reject(new ZipProblem(`it has more than ${limits.entries} entries`))
      if (!entry.fileName.endsWith("/")) entries.push(entry)
      zip.readEntry()
    })
    zip.readEntry()
  })
}

/** Opens the zip `file` for `listEntries` and `extract` (closed by the caller). */
const openZip = async (file: string): Promise<yauzl.ZipFile> =>
  (await zipReader()).openPromise(file, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: false })

/** What a zip's entries were unpacked into, counted against its limits as they arrive. */
interface Unpacking {
  readonly staging: string
  readonly taken: Set<string>
  readonly limits: ZipLimits
  /** the inflated bytes of the entries so far, photos apart */
  readonly total: Counted
  /** the inflated bytes of the photos so far */
  imageBytes: number
}

/** Where bytes of an entry go: a file written (opened only once the entry is read), or a consumer of the chunks. */
type Sink =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Chunks"; readonly consume: (source: AsyncIterable<Buffer>) => Promise<void> }

/**
 * The bytes of `entry` streamed to `sink`, at most `limit.bytes` whatever its header claims,
 * counted in `total` when given; their count. A header over the limit is refused before
 * anything is opened; the file is created (never over another) only once the entry's read
 * stream is open, and is closed before this answers, so that no stream outlives the call: an
 * error of any of them (a header that lies, a file system's) fails this call, never the process.
 */
const streamEntry = async (
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  sink: Sink,
  limit: { readonly bytes: number; readonly problem: () => ZipProblem },
  total?: Counted,
  hash?: Hash
): Promise<number> => {
  if (entry.uncompressedSize > limit.bytes) throw limit.problem()
  const counted = { bytes: 0 }
  const source = await zip.openReadStreamPromise(entry)
  // a stream ends in error at most once through the pipeline; any later error is ignored here, not left unhandled
  source.on("error", () => {})
  const counter = limited(entry.fileName, limit, counted, total, hash)
  if (sink._tag === "Chunks") {
    await pipeline(source, counter, sink.consume).catch(entryProblem(entry))
    return counted.bytes
  }
  let file: Writable
  try {
    file = fs.createWriteStream(sink.path, { fd: fs.openSync(sink.path, "wx"), flush: false })
  } catch (e) {
    source.destroy()
    throw e
  }
  file.on("error", () => {})
  try {
    await pipeline(source, counter, file).catch(entryProblem(entry))
  } finally {
    // the file's descriptor is closed before its folder may be removed
    await finished(file).catch(() => undefined)
  }
  return counted.bytes
}

/**
 * An error met while `entry` was read, as the zip's problem naming it: the reader's own (a
 * header that lies about the size, bytes that do not inflate); the file system's is not.
 */
const entryProblem = (entry: yauzl.Entry) => (e: unknown): never => {
  if (e instanceof ZipProblem || /^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code ?? "")) throw e
  throw new ZipProblem(`its entry "${entry.fileName}" is damaged (${(e as Error).message})`)
}

/** The limit of one entry. */
const entryLimit = (entry: yauzl.Entry, limits: ZipLimits) => ({ bytes: limits.entryBytes, problem: () => overEntryLimit(entry.fileName, limits) })

/** What a planner may read of a zip: its entries' names, and the bytes of an entry. */
export interface ZipReading {
  /** the names of the zip's entries (folders left out), in the order of its directory */
  readonly names: ReadonlyArray<string>
  /**
   * The bytes of the first entry named `name` streamed to `consume` and what it answers (undefined
   * when there is no such entry), like every entry at most the limit of an entry, counted in the
   * archive's total; `declared` is told the size its header claims before anything is read. An
   * error of `consume` is the read's.
   */
  readonly read: <A>(name: string, consume: (source: AsyncIterable<Buffer>) => Promise<A>, declared?: (size: number) => void) => Promise<A | undefined>
}

/** What to unpack of a zip, which the caller of `stageZip` says: the zip reader reads, the planner plans. */
export interface ZipPlanner {
  /** the plan of the zip from its entries (reading those it needs) and, for a part of an export, the id of that export; a ZipProblem refuses it */
  readonly plan: (zip: ZipReading) => Promise<{ readonly plan: ExportPlan; readonly archive: string | null }>
  /** the plan of a part the zip's plan opens (an archive inside it) from its entries' names */
  readonly planPart: (names: ReadonlyArray<string>) => Pick<ExportPlan, "activities" | "skipped">
}

/** The open zip as a planner reads it (see ZipReading). */
const readingOf = (zip: yauzl.ZipFile, entries: ReadonlyArray<yauzl.Entry>, total: Counted): ZipReading => {
  const byName = entriesByName(entries)
  return {
    names: entries.map((e) => e.fileName),
    read: async <A>(name: string, consume: (source: AsyncIterable<Buffer>) => Promise<A>, declared?: (size: number) => void) => {
      const entry = byName.get(name)?.[0]?.entry
      if (entry === undefined) return undefined
      declared?.(entry.uncompressedSize)
      let answer: A | undefined = undefined
      // a refusal of the consumer stops the pipeline, which then fails with its own abort: the refusal is the cause
      let refused: unknown = undefined
      await streamEntry(zip, entry, {
        _tag: "Chunks",
        consume: async (source) => {
          answer = await consume(source).catch((e) => {
            refused = e
            throw e
          })
        }
      }, entryLimit(entry, total.limits), total).catch((e) => {
        throw refused ?? e
      })
      return answer
    }
  }
}

/** Writes `entry` into the staging folder under its base name (made unique there); that name. */
const stageEntry = async (zip: yauzl.ZipFile, entry: yauzl.Entry, into: Unpacking, hash?: Hash): Promise<string> => {
  const name = freeNameIn(into.staging, path.posix.basename(entry.fileName.replaceAll("\\", "/")), into.taken)
  await streamEntry(zip, entry, { _tag: "File", path: path.join(into.staging, name) }, entryLimit(entry, into.limits), into.total, hash)
  return name
}

/** The entries of a zip by their name, each list in the order of the zip's directory. */
const entriesByName = (entries: ReadonlyArray<yauzl.Entry>, nameOf: (entry: yauzl.Entry) => string = (e) => e.fileName) => {
  const byName = new Map<string, Array<{ readonly entry: yauzl.Entry; readonly index: number }>>()
  entries.forEach((entry, index) => {
    const list = byName.get(nameOf(entry))
    if (list === undefined) byName.set(nameOf(entry), [{ entry, index }])
    else list.push({ entry, index })
  })
  return byName
}

/**
 * Stages the activity files `planned` of the open zip (`part`: its place among the parts, `-`
 * for the zip itself); each with its name in the staging folder and the hash of its bytes. The
 * plan names entries by their path, which two entries may share: each entry of a planned name
 * is staged once, in the zip's order, with what the plan says of that name.
 */
const stageActivities = async (
  zip: yauzl.ZipFile,
  entries: ReadonlyArray<yauzl.Entry>,
  planned: ExportPlan["activities"],
  into: Unpacking,
  part: string
): Promise<Array<StagedZip["files"][number]>> => {
  const byName = entriesByName(entries)
  const plannedByName = new Map<string, Array<ExportPlan["activities"][number]>>()
  for (const activity of planned) plannedByName.set(activity.entry, [...plannedByName.get(activity.entry) ?? [], activity])
  const files: Array<StagedZip["files"][number]> = []
  for (const [name, activities] of plannedByName) {
    const found = byName.get(name) ?? []
    for (const [i, { entry, index }] of found.entries()) {
      const activity = activities[Math.min(i, activities.length - 1)]!
      const hash = createHash("sha256")
      const staged = await stageEntry(zip, entry, into, hash)
      files.push({ entry: activity.entry, at: `${part}:${index}`, name: staged, contentHash: hash.digest("hex"), metadata: activity.metadata })
    }
  }
  return files
}

/**
 * Unpacks `zipPath` into a staging folder of its own in `destDir` (the watch folder), all or
 * nothing: the activity files the plan of `planner` names, with what the export says of each,
 * the photos they name, and the activity files of the archives inside it that the plan opens (a
 * Garmin export's parts). Fails with ZipProblem when it is refused, ZipChanged when it changed
 * while it was read (no staging folder is left either way). Null when it is gone.
 */
export const stageZip = async (zipPath: string, destDir: string, planner: ZipPlanner, limits: ZipLimits = ZIP_LIMITS): Promise<StagedZip | null> => {
  const opened = openRegular(zipPath)
  if (opened === null) return null
  const { identity } = opened
  let zip: yauzl.ZipFile
  try {
    zip = await (await zipReader()).fromFdPromise(opened.fd, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: false })
  } catch (e) {
    try {
      fs.closeSync(opened.fd)
    } catch {
      // closed by the reader already
    }
    if (!isStill(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
    throw new ZipProblem(`it is not a readable zip file (${(e as Error).message})`)
  }
  // a dot-folder of its own (several zips may be unpacked at once), which the watcher ignores
  const into: Unpacking = { staging: fs.mkdtempSync(path.join(destDir, STAGING_PREFIX)), taken: new Set(), limits, total: { bytes: 0, limits }, imageBytes: 0 }
  try {
    const entries = await listEntries(zip, limits)
    for (const entry of entries) {
      // refused by the reader as it reads (an absolute path, `..`): refused here before anything is written
      const error = (await zipReader()).validateFileName(entry.fileName.replaceAll("\\", "/"))
      if (error !== null) throw new ZipProblem(`it holds a file whose path leads outside the archive (${error.replace(/^.*?: /, "")}); nothing was unpacked`)
    }
    const { archive, plan } = await planner.plan(readingOf(zip, entries, into.total))
    const byName = entriesByName(entries)
    const files = await stageActivities(zip, entries, plan.activities, into, "-")
    const skipped = new Map(plan.skipped.map((s) => [s.area, s.entries]))
    // a Garmin export's parts: each written out, its activity files staged, then dropped
    for (const partName of new Set(plan.parts)) {
      for (const { entry, index } of byName.get(partName) ?? []) {
        const partFile = path.join(into.staging, `.part-${index}.zip`)
        // a part is an archive: as large as the archive's total may be, its bytes counted in it
        await streamEntry(zip, entry, { _tag: "File", path: partFile }, { bytes: limits.totalBytes, problem: () => overTotalLimit(partName, limits) }, into.total)
        const part = await openZip(partFile).catch((e: Error) => {
          throw new ZipProblem(`its part "${partName}" is not a readable zip file (${e.message})`)
        })
        try {
          const partEntries = await listEntries(part, limits)
          const partPlan = planner.planPart(partEntries.map((e) => e.fileName))
          files.push(...await stageActivities(part, partEntries, partPlan.activities, into, String(index)))
          for (const s of partPlan.skipped) skipped.set(s.area, (skipped.get(s.area) ?? 0) + s.entries)
        } finally {
          part.close()
          fs.rmSync(partFile, { force: true })
        }
      }
    }
    // the photos the export gives its activities: a budget of their own; one too large, or past it, is left out, never the export with it
    const images: Array<StagedZip["images"][number]> = []
    const wanted = new Set(plan.activities.flatMap((a) => a.metadata?.images ?? []))
    for (const imageName of wanted) {
      const entry = byName.get(imageName)?.[0]?.entry
      if (entry === undefined || !IMAGE.test(imageName)) continue
      if (entry.uncompressedSize > limits.entryBytes || into.imageBytes + entry.uncompressedSize > limits.totalBytes) continue
      const name = freeNameIn(into.staging, path.posix.basename(imageName), into.taken)
      const left = Math.min(limits.entryBytes, limits.totalBytes - into.imageBytes)
      try {
        into.imageBytes += await streamEntry(zip, entry, { _tag: "File", path: path.join(into.staging, name) }, { bytes: left, problem: () => overEntryLimit(imageName, limits) })
      } catch (e) {
        // a photo larger than its header said is left out like one whose header says so
        if (!(e instanceof ZipProblem)) throw e
        fs.rmSync(path.join(into.staging, name), { force: true })
        continue
      }
      images.push({ entry: imageName, name })
    }
    // a zip still being copied, or replaced meanwhile: none of its files enter the folder
    if (!isStill(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
    return {
      staging: into.staging,
      identity,
      kind: plan.kind,
      archive,
      files,
      images,
      gear: plan.gear,
      summaries: plan.summaries,
      skipped: [...skipped].map(([area, count]) => ({ area, entries: count }))
    }
  } catch (e) {
    fs.rmSync(into.staging, { recursive: true, force: true })
    if (e instanceof ZipProblem || e instanceof ZipChanged) throw e
    if (!isStill(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
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
 * Lets the staged file `name` into `destDir` under `wanted`, or the first free `wanted-1.ext`,
 * ... should another file have taken it meanwhile: never over a file. The name it got.
 */
export const publishStaged = (staged: StagedZip, destDir: string, name: string, wanted: string): string => {
  const placed = linkUnderFreeName(path.join(staged.staging, name), destDir, wanted)
  if (placed === null) throw new Error(`no free name for ${wanted} in ${destDir}`)
  return placed
}

/** Removes the staging folder (what was let into the folder stays there). */
export const removeStaging = (staged: StagedZip): void => fs.rmSync(staged.staging, { recursive: true, force: true })
