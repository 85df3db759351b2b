import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as fs from "node:fs"
import * as path from "node:path"
import type { LogFormat, LogLevelName } from "./AppConfig.ts"
import { appendWhole, writeStdout } from "./wholeLines.ts"

/**
 * The log channels of the daemon. A log line goes to a channel's file when it carries the
 * annotation `channel`; every line also goes to stdout (text or JSON).
 */
export const LOG_CHANNELS = ["strava-api", "console-output", "daemon", "webhooks", "errors"] as const
export type LogChannel = (typeof LOG_CHANNELS)[number]

export const LOG_RETENTION_DAYS = 5

/** Annotates every log line of `effect` with its channel. */
export const inChannel = (channel: LogChannel) => Effect.annotateLogs("channel", channel)

const pad = (n: number) => String(n).padStart(2, "0")
export const utcDay = (date: Date): string =>
  `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`

export const logFileName = (channel: string, day: string) => `${channel}-${day}.log`

/**
 * Characters that would let a text written into a log line (a file name, a client's value)
 * act on the line or the terminal showing it: C0 and C1 control characters (a newline that
 * starts a forged line, an ANSI escape), DEL, the Unicode line and paragraph separators, and
 * the bidirectional overrides that make a text read other than it is.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/** `text` with every unsafe character written as an escape (`\n`, `\x1b`, `\u2028`): one line, shown as it is. */
export const escapeControl = (text: string): string =>
  text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0)
    return SHORT_ESCAPES[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`)
  })

/** A stack or a cause over several lines: each line escaped (a text shows them indented under its entry, see `indented`). */
export const escapeLines = (text: string): string => text.split("\n").map(escapeControl).join("\n")

/** The lines after the first indented: no line of an entry's stack or cause starts where an entry does. */
export const indented = (text: string): string => text.replaceAll("\n", "\n    ")

const toText = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return escapeControl(parts.map((p) => (typeof p === "string" ? p : Inspectable.toStringUnknown(p))).join(" "))
}

interface Entry {
  readonly timestamp: string
  readonly level: string
  readonly channel: string | undefined
  readonly message: string
  readonly annotations: Record<string, unknown>
  readonly spans: Record<string, number>
  /** the trace and span the line was logged in, so that a log line leads to its trace */
  readonly traceId?: string
  readonly spanId?: string
  readonly cause?: string
}

const currentSpan = (options: Logger.Logger.Options<unknown>) =>
  Context.getOption(FiberRefs.getOrDefault(options.context, FiberRef.currentContext), Tracer.ParentSpan)

const toEntry = (options: Logger.Logger.Options<unknown>): Entry => {
  const annotations: Record<string, unknown> = {}
  for (const [key, value] of options.annotations) {
    // a stack keeps its lines (each escaped); any other text is one line
    if (key !== "channel") annotations[key] = typeof value !== "string" ? value : key === "stack" ? escapeLines(value) : escapeControl(value)
  }
  const spans: Record<string, number> = {}
  const now = options.date.getTime()
  for (const span of List.toArray(options.spans)) spans[span.label] = now - span.startTime
  const channel = Option.getOrUndefined(HashMap.get(options.annotations, "channel"))
  const span = Option.getOrUndefined(currentSpan(options))
  return {
    timestamp: options.date.toISOString(),
    level: options.logLevel.label,
    channel: typeof channel === "string" ? channel : undefined,
    message: toText(options.message),
    annotations,
    spans,
    ...(span !== undefined ? { traceId: span.traceId, spanId: span.spanId } : {}),
    ...(Cause.isEmpty(options.cause) ? {} : { cause: escapeLines(Cause.pretty(options.cause, { renderErrorCause: true })) })
  }
}

/**
 * Appends JSON lines to `<dir>/<channel>-YYYY-MM-DD.log`, opening a new file each UTC day; each
 * line whole or not at all (a full disk loses the line, never tears it: appendWhole).
 */
export const makeChannelFileLogger = (dir: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      fs.mkdirSync(dir, { recursive: true })
      const open = new Map<string, { day: string; fd: number }>()
      const write = (channel: string, date: Date, line: string) => {
        const day = utcDay(date)
        let current = open.get(channel)
        if (current === undefined || current.day !== day) {
          if (current !== undefined) fs.closeSync(current.fd)
          current = { day, fd: fs.openSync(path.join(dir, logFileName(channel, day)), "a") }
          open.set(channel, current)
        }
        appendWhole(current.fd, line + "\n")
      }
      const logger = Logger.make<unknown, void>((options) => {
        // most lines (a request's, at debug) belong to no channel: no entry is built for them
        const channel = Option.getOrUndefined(HashMap.get(options.annotations, "channel"))
        if (typeof channel !== "string" || !(LOG_CHANNELS as ReadonlyArray<string>).includes(channel)) return
        const entry = toEntry(options)
        const { channel: _, ...rest } = entry
        try {
          write(channel, options.date, JSON.stringify({ ...rest, channel }))
        } catch {
          // a full or read-only disk must never take the daemon down through its logger
        }
      })
      return { logger, open }
    }),
    ({ open }) =>
      Effect.sync(() => {
        for (const { fd } of open.values()) fs.closeSync(fd)
        open.clear()
      })
  ).pipe(Effect.map(({ logger }) => logger))

/** One line per log entry on stdout, as text or JSON. */
export const stdoutLogger = (format: LogFormat) =>
  Logger.make<unknown, void>((options) => {
    const entry = toEntry(options)
    const line = format === "json"
      ? JSON.stringify(entry)
      : `${entry.timestamp} ${entry.level.padEnd(5)}${entry.channel ? ` [${entry.channel}]` : ""} ${entry.message}` +
        Object.entries(entry.annotations).map(([k, v]) => ` ${k}=${typeof v === "string" ? indented(v) : JSON.stringify(v)}`).join("") +
        (entry.traceId !== undefined ? ` traceId=${entry.traceId}` : "") +
        (entry.cause ? `\n    ${indented(entry.cause)}` : "")
    writeStdout(line + "\n")
  })

const LEVELS: Record<LogLevelName, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal
}

/**
 * The level of the channel files: info, or LOG_LEVEL when that is lower (debug, trace). A
 * quieter stdout (LOG_LEVEL=error) keeps the files whole: they are what a person reads later.
 */
export const channelFileLevel = (level: LogLevelName): LogLevel.LogLevel =>
  LogLevel.lessThan(LEVELS[level], LogLevel.Info) ? LEVELS[level] : LogLevel.Info

/**
 * Replaces the default logger: stdout in `text` or `json` at LOG_LEVEL, and every channel
 * line into its daily file under `logsDir` at `channelFileLevel`.
 */
export const LogsLive = (options: { readonly logsDir: string; readonly format: LogFormat; readonly level: LogLevelName }) =>
  Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, Logger.filterLogLevel(stdoutLogger(options.format), LogLevel.greaterThanEqual(LEVELS[options.level]))),
    Logger.addScoped(makeChannelFileLogger(options.logsDir)),
    Logger.minimumLogLevel(channelFileLevel(options.level))
  )

/** Deletes channel files older than the retention; returns the names removed. */
export const pruneLogs = (dir: string, now: Date, keepDays = LOG_RETENTION_DAYS): Array<string> => {
  if (!fs.existsSync(dir)) return []
  const cutoff = utcDay(new Date(now.getTime() - (keepDays - 1) * 86_400_000))
  const removed: Array<string> = []
  for (const name of fs.readdirSync(dir)) {
    const match = /^(.+)-(\d{4}-\d{2}-\d{2})\.log$/.exec(name)
    if (match && match[2]! < cutoff) {
      fs.rmSync(path.join(dir, name), { force: true })
      removed.push(name)
    }
  }
  return removed
}
