import { createHash, type Hash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import { Transform } from "node:stream"
import * as yauzl from "yauzl"
import { type FileIdentity, identityOf, sameIdentity } from "../FileIdentity.ts"
import { planExport, recogniseExport } from "../exports/ExportLayout.ts"
import { type ExportKind, type ExportPlan, normalEntry } from "../exports/ExportPlan.ts"
import { garminSummariesOf, planPart } from "../exports/GarminExport.ts"
import { folderSummaries, garminExportFolder, isFolderGarminPart } from "../exports/GarminFolder.ts"
import {
  MetadataBudget, type MetadataFormat, type MetadataLimits, MetadataOverLimit, type MetadataRecord, readMetadataRecords
} from "../exports/MetadataRecords.ts"
import { DEFAULT_EXPORT_METADATA_LIMITS } from "../../platform/AppConfig.ts"
import { linkUnderFreeName, suffixedName } from "../PublishFile.ts"
import type { ExportedActivity } from "./ExportedActivity.ts"

/**
 * Unpacks a zip of activity files (a peer's export, or a plain zip) in two steps: `stageZip`
 * reads its list of entries, plans it by its export's layout (ExportLayout: which entries are
 * activity files and what the export says of each, which are archives to open in turn, what is
 * left out), and writes the activity files (folders flattened, so no entry can write outside),
 * those of a Garmin export's parts and the photos its activities name into a dot-folder of their
 * own beside the folder, all or nothing; the caller then keeps what it must about them and lets
 * each file into the folder (`publishStaged`, never over another file) before it removes the
 * staging (`removeStaging`). An archive inside a zip of no known layout refuses the whole zip
 * (its activities would be lost unseen); the limits below stop a zip bomb while it is unpacked,
 * whatever the headers claim (a part's bytes count in the total; the photos have a `totalBytes`
 * of their own, and one past a limit is left out rather than the zip refused). The zip is opened
 * without following a link, and what it holds is answered only if it did not change while it
 * was read.
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
  /** the export it is (ExportLayout); `unknown` for a plain zip of activity files */
  readonly kind: ExportKind
  /** for a part of a Garmin export unpacked in the folder, the id of that export (its summaries' hash); null for a zip of its own */
  readonly archive: string | null
  /** activity files: the entry, the name in the staging folder (unique there), the hash of its bytes and what the export says of it */
  readonly files: ReadonlyArray<{ readonly entry: string; readonly name: string; readonly contentHash: string; readonly metadata: ExportedActivity | null }>
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

/** The entries of an open zip (lazyEntries), read from its central directory, at most ZIP_LIMITS.entries. */
const listEntries = (zip: yauzl.ZipFile): Promise<Array<yauzl.Entry>> => {
  if (zip.entryCount > ZIP_LIMITS.entries) return Promise.reject(new ZipProblem(`it has ${zip.entryCount} entries; at most ${ZIP_LIMITS.entries} are unpacked`))
  return new Promise((resolve, reject) => {
    const entries: Array<yauzl.Entry> = []
    zip.on("error", reject)
    zip.on("end", () => resolve(entries))
    zip.on("entry", (entry: yauzl.Entry) => {
      if (entries.length >= ZIP_LIMITS.entries) return reject(new ZipProblem(`it has more than ${ZIP_LIMITS.entries} entries`))
      if (!entry.fileName.endsWith("/")) entries.push(entry)
      zip.readEntry()
    })
    zip.readEntry()
  })
}

/** Opens the zip `file` for `listEntries` and `extract` (closed by the caller). */
const openZip = (file: string): Promise<yauzl.ZipFile> =>
  yauzl.openPromise(file, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: false })

/** What a zip's entries were unpacked into, counted against ZIP_LIMITS as they arrive. */
interface Unpacking {
  readonly staging: string
  readonly taken: Set<string>
  total: number
  imageBytes: number
}

/** The bytes of `entry` streamed to `sink`, at most `limit` whatever its header claims; their count. */
const streamEntry = async (zip: yauzl.ZipFile, entry: yauzl.Entry, sink: NodeJS.WritableStream | ((source: AsyncIterable<Buffer>) => AsyncIterable<never> | Promise<void>), limit: number, hash?: Hash) => {
  if (entry.uncompressedSize > limit) throw new ZipProblem(`"${entry.fileName}" unpacks to more than ${limit} bytes`)
  const counted = { bytes: 0 }
  const stream = await zip.openReadStreamPromise(entry)
  await pipeline(stream, limited(limit, counted, entry.fileName, hash), sink as NodeJS.WritableStream)
  return counted.bytes
}

/** The records of a metadata entry, streamed within the archive's metadata limits (`budget`; its header's size too). */
const entryRecords = async (zip: yauzl.ZipFile, entry: yauzl.Entry, format: MetadataFormat, budget: MetadataBudget): Promise<Array<MetadataRecord>> => {
  budget.countBytes(entry.fileName, entry.uncompressedSize, 0)
  return readMetadataRecords(entry.fileName, await zip.openReadStreamPromise(entry), format, budget)
}

/** Writes `entry` into the staging folder under its base name (made unique there); that name. */
const stageEntry = async (zip: yauzl.ZipFile, entry: yauzl.Entry, into: Unpacking, hash?: Hash): Promise<string> => {
  const name = freeNameIn(into.staging, path.posix.basename(entry.fileName.replaceAll("\\", "/")), into.taken)
  const bytes = await streamEntry(zip, entry, fs.createWriteStream(path.join(into.staging, name), { flags: "wx" }), ZIP_LIMITS.entryBytes, hash)
  into.total += bytes
  if (into.total > ZIP_LIMITS.totalBytes) throw new ZipProblem(`it unpacks to more than ${ZIP_LIMITS.totalBytes} bytes`)
  return name
}

/** Stages the activity files `planned` of the open zip; each with its name in the staging folder and the hash of its bytes. */
const stageActivities = async (
  zip: yauzl.ZipFile,
  byName: ReadonlyMap<string, yauzl.Entry>,
  planned: ExportPlan["activities"],
  into: Unpacking
): Promise<Array<StagedZip["files"][number]>> => {
  const files: Array<StagedZip["files"][number]> = []
  for (const activity of planned) {
    const entry = byName.get(activity.entry)
    if (entry === undefined) continue
    const hash = createHash("sha256")
    const name = await stageEntry(zip, entry, into, hash)
    files.push({ entry: activity.entry, name, contentHash: hash.digest("hex"), metadata: activity.metadata })
  }
  return files
}

/**
 * What to do with the entries of the zip `relative` (its path under the watch folder `watchDir`):
 * the plan of its export's layout (ExportLayout), or, for a part of a Garmin export unpacked in
 * the folder, the part's plan with the summaries of the folder it lies in.
 */
const planOf = async (zip: yauzl.ZipFile, entries: ReadonlyArray<yauzl.Entry>, watchDir: string, relative: string | undefined, limits: MetadataLimits) => {
  const names = entries.map((e) => e.fileName)
  const folder = relative === undefined || !isFolderGarminPart(relative) ? null : garminExportFolder(relative)
  const budget = new MetadataBudget(limits)
  if (folder !== null) {
    const { archive, records } = await folderSummaries(watchDir, folder, budget)
    const part = planPart(names)
    const plan: ExportPlan = { kind: "garmin", ...part, parts: [], gear: [], summaries: garminSummariesOf(records.values()), nested: [] }
    return { plan, archive }
  }
  const layout = recogniseExport(names)
  const records = new Map<string, ReadonlyArray<MetadataRecord>>()
  const byName = new Map(entries.map((e) => [normalEntry(e.fileName), e]))
  for (const wanted of layout.metadataEntries) {
    const entry = byName.get(wanted)
    if (entry !== undefined) records.set(wanted, await entryRecords(zip, entry, layout.metadataFormat, budget))
  }
  return { plan: planExport(layout, names, records), archive: null }
}

/**
 * Unpacks `zipPath` into a staging folder of its own in `destDir` (the watch folder, where
 * `relative` is its path), all or nothing: the activity files its export's plan names, with what
 * the export says of each, the photos they name, and the activity files of the archives inside it
 * that the plan opens (a Garmin export's parts). Its metadata is read within `metadataLimits`
 * (MetadataRecords; past them the zip is refused naming the file). Fails with ZipProblem when it is refused,
 * ZipChanged when it changed while it was read (no staging folder is left either way). Null when
 * it is gone.
 */
export const stageZip = async (
  zipPath: string,
  destDir: string,
  relative?: string,
  metadataLimits: MetadataLimits = DEFAULT_EXPORT_METADATA_LIMITS
): Promise<StagedZip | null> => {
  const opened = openRegular(zipPath)
  if (opened === null) return null
  const { identity } = opened
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.fromFdPromise(opened.fd, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: false })
  } catch (e) {
    try {
      fs.closeSync(opened.fd)
    } catch {
      // closed by the reader already
    }
    if (!unchanged(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
    throw new ZipProblem(`it is not a readable zip file (${(e as Error).message})`)
  }
  // a dot-folder of its own (several zips may be unpacked at once), which the watcher ignores
  const into: Unpacking = { staging: fs.mkdtempSync(path.join(destDir, STAGING_PREFIX)), taken: new Set(), total: 0, imageBytes: 0 }
  try {
    const entries = await listEntries(zip)
    for (const entry of entries) {
      // refused by the reader as it reads (an absolute path, `..`): refused here before anything is written
      const error = yauzl.validateFileName(entry.fileName.replaceAll("\\", "/"))
      if (error !== null) throw new ZipProblem(`it holds a file whose path leads outside the archive (${error.replace(/^.*?: /, "")}); nothing was unpacked`)
    }
    const { archive, plan } = await planOf(zip, entries, destDir, relative, metadataLimits).catch((e) => {
      throw e instanceof MetadataOverLimit ? new ZipProblem(e.message) : e
    })
    const nested = plan.nested[0]
    if (nested !== undefined) {
      throw new ZipProblem(
        `it holds another archive, "${nested}", and archives inside an archive are not unpacked; nothing was unpacked. ` +
          `Unpack it and drop its activity files (or that archive on its own) into the watch folder, then drop this zip again without it`
      )
    }
    const byName = new Map(entries.map((e) => [e.fileName, e]))
    const files = await stageActivities(zip, byName, plan.activities, into)
    const skipped = new Map(plan.skipped.map((s) => [s.area, s.entries]))
    // a Garmin export's parts: each written out, its activity files staged, then dropped
    for (const partName of plan.parts) {
      const entry = byName.get(partName)
      if (entry === undefined) continue
      const partFile = path.join(into.staging, `.part-${into.taken.size}.zip`)
      into.total += await streamEntry(zip, entry, fs.createWriteStream(partFile, { flags: "wx" }), ZIP_LIMITS.totalBytes)
      const part = await openZip(partFile).catch((e: Error) => {
        throw new ZipProblem(`its part "${partName}" is not a readable zip file (${e.message})`)
      })
      try {
        const partEntries = await listEntries(part)
        const partPlan = planPart(partEntries.map((e) => e.fileName))
        files.push(...await stageActivities(part, new Map(partEntries.map((e) => [e.fileName, e])), partPlan.activities, into))
        for (const s of partPlan.skipped) skipped.set(s.area, (skipped.get(s.area) ?? 0) + s.entries)
      } finally {
        part.close()
        fs.rmSync(partFile, { force: true })
      }
    }
    // the photos the export gives its activities: a budget of their own; one too large, or past it, is left out, never the export with it
    const images: Array<StagedZip["images"][number]> = []
    const wanted = new Set(plan.activities.flatMap((a) => a.metadata?.images ?? []))
    for (const imageName of wanted) {
      const entry = byName.get(imageName)
      if (entry === undefined || !IMAGE.test(imageName)) continue
      if (entry.uncompressedSize > ZIP_LIMITS.entryBytes || into.imageBytes + entry.uncompressedSize > ZIP_LIMITS.totalBytes) continue
      const name = freeNameIn(into.staging, path.posix.basename(imageName), into.taken)
      into.imageBytes += await streamEntry(zip, entry, fs.createWriteStream(path.join(into.staging, name), { flags: "wx" }), ZIP_LIMITS.entryBytes)
      images.push({ entry: imageName, name })
    }
    // a zip still being copied, or replaced meanwhile: none of its files enter the folder
    if (!unchanged(zipPath, identity)) throw new ZipChanged(`${zipPath} changed while it was read`)
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
