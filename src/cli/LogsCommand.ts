import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { escapeControl, escapeLines, indented, LOG_CHANNELS, type LogChannel } from "../services/platform/Logs.ts"
import { StoragePaths } from "../services/platform/StoragePaths.ts"

/**
 * `app:logs [channel] [--since 1h] [--follow]`: the channel log files (JSON lines, UTC) as
 * lines a person reads, in the local time zone (TZ), oldest first, every channel merged
 * when none is named. `--follow` goes on printing lines as they are written.
 */

const FOLLOW_EVERY_MS = 500
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** "90s", "15m", "1h", "2d" in milliseconds; null when it is none of these. */
export const parseSince = (text: string): number | null => {
  const match = /^\s*(\d+)\s*([smhd])\s*$/i.exec(text)
  return match === null ? null : Number(match[1]) * UNITS[match[2]!.toLowerCase()]!
}

interface Entry {
  readonly timestamp: string
  readonly level: string
  readonly channel?: string
  readonly message: string
  readonly annotations?: Record<string, unknown>
  readonly cause?: string
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** `2026-11-25 06:13:02` in the local time zone. */
export const localTime = (date: Date): string =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`

/** One entry as one readable line (a cause on the lines after it); a line that is not an entry as it is. */
export const readableLine = (raw: string): { readonly at: number; readonly text: string } => {
  let entry: Entry
  try {
    entry = JSON.parse(raw) as Entry
  } catch {
    return { at: Number.NaN, text: escapeControl(raw) }
  }
  const at = Date.parse(entry.timestamp)
  if (Number.isNaN(at) || typeof entry.message !== "string") return { at: Number.NaN, text: escapeControl(raw) }
  // lines written before their texts were escaped are escaped here (escaping twice changes nothing)
  const annotations = Object.entries(entry.annotations ?? {})
    .map(([key, value]) => ` ${escapeControl(key)}=${typeof value === "string" ? indented(escapeLines(value)) : JSON.stringify(value)}`)
    .join("")
  const level = entry.level === "WARN" ? "WARNING" : entry.level
  return {
    at,
    text: `${localTime(new Date(at))} ${escapeControl(level.padEnd(7))} [${escapeControl(entry.channel ?? "?")}] ${escapeControl(entry.message)}${annotations}` +
      (typeof entry.cause === "string" ? `\n${escapeLines(entry.cause).replace(/^/gm, "    ")}` : "")
  }
}

const FILE = /^(.+)-(\d{4}-\d{2}-\d{2})\.log$/

/** The channel files of `dir`, oldest day first; only `channel`'s when named. */
const logFiles = (dir: string, channel: LogChannel | undefined): Array<string> => {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir)
    .flatMap((name) => {
      const match = FILE.exec(name)
      if (match === null || !(LOG_CHANNELS as ReadonlyArray<string>).includes(match[1]!)) return []
      return channel === undefined || match[1] === channel ? [{ name, day: match[2]! }] : []
    })
    .sort((a, b) => a.day.localeCompare(b.day) || a.name.localeCompare(b.name))
    .map((f) => path.join(dir, f.name))
}

/** Reads what each file holds past its offset (whole lines only), and moves the offsets on. */
const readNew = (files: ReadonlyArray<string>, offsets: Map<string, number>): Array<string> => {
  const lines: Array<string> = []
  for (const file of files) {
    const from = offsets.get(file) ?? 0
    let size: number
    try {
      size = fs.statSync(file).size
    } catch {
      continue
    }
    if (size <= from) continue
    const fd = fs.openSync(file, "r")
    try {
      const buffer = Buffer.alloc(size - from)
      fs.readSync(fd, buffer, 0, buffer.length, from)
      const text = buffer.toString("utf8")
      const end = text.lastIndexOf("\n")
      if (end === -1) continue
      offsets.set(file, from + Buffer.byteLength(text.slice(0, end + 1)))
      lines.push(...text.slice(0, end).split("\n").filter((l) => l.trim() !== ""))
    } finally {
      fs.closeSync(fd)
    }
  }
  return lines
}

/** The lines from `since` (epoch ms) on, oldest first. */
const readable = (raw: ReadonlyArray<string>, since: number | undefined) =>
  raw.map(readableLine)
    .filter((line) => since === undefined || Number.isNaN(line.at) || line.at >= since)
    .sort((a, b) => (Number.isNaN(a.at) || Number.isNaN(b.at) ? 0 : a.at - b.at))
    .map((line) => line.text)

export const logsCommand = Command.make(
  "app:logs",
  {
    channel: Args.choice(LOG_CHANNELS.map((c) => [c, c] as const), { name: "channel" }).pipe(
      Args.withDescription(`one of ${LOG_CHANNELS.join(", ")}; every channel when left out`),
      Args.optional
    ),
    since: Options.text("since").pipe(
      Options.withDescription("only lines of this last while: 30s, 15m, 1h, 2d"),
      Options.mapEffect((text) => {
        const ms = parseSince(text)
        return ms === null ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--since takes a duration such as 30s, 15m, 1h or 2d, not "${text}"`))) : Effect.succeed(ms)
      }),
      Options.optional
    ),
    follow: Options.boolean("follow").pipe(Options.withAlias("f"), Options.withDescription("go on printing lines as they are written"))
  },
  ({ channel, follow, since }) =>
    Effect.gen(function*() {
      const paths = yield* StoragePaths
      const named = Option.getOrUndefined(channel)
      const from = Option.match(since, { onNone: () => undefined, onSome: (ms) => Date.now() - ms })
      const offsets = new Map<string, number>()
      const first = readable(readNew(logFiles(paths.logsDir, named), offsets), from)
      if (first.length === 0 && !follow) {
        yield* Console.error(`No log lines${named === undefined ? "" : ` in the ${named} channel`}${from === undefined ? "" : " in that while"} under ${paths.logsDir}.`)
      }
      for (const line of first) yield* Console.log(line)
      while (follow) {
        yield* Effect.sleep(FOLLOW_EVERY_MS)
        // a new day opens new files: they are listed again each time
        for (const line of readable(readNew(logFiles(paths.logsDir, named), offsets), undefined)) yield* Console.log(line)
      }
    })
).pipe(Command.withDescription("Print the log files as readable lines in the local time zone (--since 1h, --follow)"))
