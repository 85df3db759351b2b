import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import { stdoutLogger } from "../services/platform/Logs.ts"

/** A program's log lines on stdout from `level` up, as LOG_FORMAT says (the daemon's format). */
export const consoleLogging = (format: "text" | "json", level: LogLevel.LogLevel) =>
  Layer.mergeAll(Logger.replace(Logger.defaultLogger, stdoutLogger(format)), Logger.minimumLogLevel(level))
