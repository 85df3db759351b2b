import * as fs from "node:fs"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import { Transform } from "node:stream"
import * as yauzl from "yauzl"
import { formatOf } from "./ActivityFileName.ts"

/**
 * Unpacks a zip of activity files (a Strava bulk export, or a plain zip) into a folder, each
 * activity file under its own name (folders inside the zip flattened, so no entry can write
 * outside the folder). Other entries are left out, nested archives are refused by name, and
 * the limits below stop a zip bomb while it is unpacked, whatever the headers claim.
 */
export const ZIP_LIMITS = {
  entries: 20_000,
  entryBytes: 64 * 1024 * 1024,
  totalBytes: 4 * 1024 * 1024 * 1024
} as const

export interface UnpackedZip {
  /** Names of the activity files written, as they are in the folder. */
  readonly files: ReadonlyArray<{ readonly entry: string; readonly name: string }>
  /** `activities.csv` of a Strava export, when the zip has one at its root. */
  readonly activitiesCsv: string | null
  /** Entries refused: nested archives. */
  readonly refused: ReadonlyArray<string>
}

export class ZipProblem extends Error {}

const NESTED = /\.(zip|tar|tgz|7z|rar|gz)$/i

/** `name`, or `stem-1.ext`, `stem-2.ext`, ... when the folder has it already. */
const freeName = (dir: string, name: string, taken: Set<string>) => {
  const match = /^(.*?)(\.(?:fit|tcx|gpx)(?:\.gz)?)$/i.exec(name)
  const [stem, ext] = match ? [match[1]!, match[2]!] : [name, ""]
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? name : `${stem}-${i}${ext}`
    if (!taken.has(candidate) && !fs.existsSync(path.join(dir, candidate))) {
      taken.add(candidate)
      return candidate
    }
  }
}

/** Counts the bytes going through, failing past `limit`. */
const limited = (limit: number, counted: { bytes: number }, entry: string) =>
  new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted.bytes += chunk.length
      if (counted.bytes > limit) callback(new ZipProblem(`"${entry}" unpacks to more than ${limit} bytes`))
      else callback(null, chunk)
    }
  })

export const unpackZip = async (zipPath: string, destDir: string): Promise<UnpackedZip> => {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(zipPath, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false })
  } catch (e) {
    throw new ZipProblem(`it is not a readable zip file (${(e as Error).message})`)
  }
  const files: Array<{ entry: string; name: string }> = []
  const refused: Array<string> = []
  const taken = new Set<string>()
  const total = { bytes: 0 }
  let activitiesCsv: string | null = null
  let count = 0
  // unpacked into a dot-folder (which the watcher ignores) and moved in only once all went well
  const staging = path.join(destDir, `.unzip-${path.basename(zipPath)}`)
  fs.rmSync(staging, { recursive: true, force: true })
  fs.mkdirSync(staging)
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
          if (formatOf(base) === null && !isCsv) {
            if (NESTED.test(base)) refused.push(entryName)
            return
          }
          if (entry.uncompressedSize > ZIP_LIMITS.entryBytes) throw new ZipProblem(`"${entryName}" unpacks to more than ${ZIP_LIMITS.entryBytes} bytes`)
          const stream = await zip.openReadStreamPromise(entry)
          const counted = { bytes: 0 }
          const guard = limited(ZIP_LIMITS.entryBytes, counted, entryName)
          if (isCsv) {
            const chunks: Array<Buffer> = []
            await pipeline(stream, guard, async function*(source) {
              for await (const chunk of source) chunks.push(chunk as Buffer)
            })
            activitiesCsv = Buffer.concat(chunks).toString("utf8")
          } else {
            const name = freeName(staging, base, taken)
            await pipeline(stream, guard, fs.createWriteStream(path.join(staging, name), { flags: "wx" }))
            files.push({ entry: entryName, name })
          }
          total.bytes += counted.bytes
          if (total.bytes > ZIP_LIMITS.totalBytes) throw new ZipProblem(`it unpacks to more than ${ZIP_LIMITS.totalBytes} bytes`)
        }
        handle().then(() => zip.readEntry(), reject)
      })
      zip.readEntry()
    })
    // all or nothing: a zip that fails half way leaves none of its files behind
    const moved = files.map((file) => {
      const name = freeName(destDir, file.name, new Set())
      fs.renameSync(path.join(staging, file.name), path.join(destDir, name))
      return { entry: file.entry, name }
    })
    return { files: moved, activitiesCsv, refused }
  } catch (e) {
    if (e instanceof ZipProblem) throw e
    const message = (e as Error).message
    throw new ZipProblem(
      /invalid relative path|absolute path/.test(message)
        ? `it holds a file whose path leads outside the archive (${message.replace(/^.*?: /, "")}); nothing was unpacked`
        : `it is damaged (${message}); nothing was unpacked`
    )
  } finally {
    zip.close()
    fs.rmSync(staging, { recursive: true, force: true })
  }
}
