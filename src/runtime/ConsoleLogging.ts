import { Layer, Logger, type LogLevel } from "effect"
import { stdoutLogger } from "../services/platform/Logs.ts"

/** A program's log lines on stdout from `level` up, as LOG_FORMAT says (the daemon's format). */
export const consoleLogging = (format: "text" | "json", level: LogLevel.LogLevel) =>
  Layer.mergeAll(Logger.replace(Logger.defaultLogger, stdoutLogger(format)), Logger.minimumLogLevel(level))
