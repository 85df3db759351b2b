import * as Cause from "effect/Cause"
import { InsufficientStorage } from "../schema/ApiErrors.ts"

/**
 * A write that failed because the disk, the user's quota or the database file is full:
 * `ENOSPC`, `EDQUOT` or `SQLITE_FULL`, found on the error or on the errors it wraps.
 */

const DISK_FULL_CODES: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"])
const DISK_FULL_TEXT = /\b(ENOSPC|EDQUOT|SQLITE_FULL)\b|database or disk is full|no space left on device|disk quota exceeded/i

export const isDiskFull = (error: unknown, depth = 0): boolean => {
  if (depth > 8 || typeof error !== "object" || error === null) return false
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown }
  if (typeof code === "string" && DISK_FULL_CODES.has(code)) return true
  if (typeof message === "string" && DISK_FULL_TEXT.test(message)) return true
  // Effect.try wraps what was thrown in an UnknownException's `error`
  const wrapped = (error as { error?: unknown }).error
  return isDiskFull(cause, depth + 1) || (wrapped !== error && isDiskFull(wrapped, depth + 1))
}

export const causeIsDiskFull = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some((e) => isDiskFull(e))

export const diskFull = () => new InsufficientStorage()
