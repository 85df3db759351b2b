import * as Cause from "effect/Cause"

/** Error codes of a full disk: the file system's (ENOSPC, EDQUOT over quota) and SQLite's. */
const STORAGE_FULL_CODES: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"])

const fullError = (error: unknown, depth: number): boolean => {
  if (typeof error !== "object" || error === null || depth > 8) return false
  const code = (error as { readonly code?: unknown }).code
  if (typeof code === "string" && STORAGE_FULL_CODES.has(code)) return true
  // SqlError and friends keep the driver's error as their cause
  return fullError((error as { readonly cause?: unknown }).cause, depth + 1)
}

/** Whether an import stopped because the disk (or the database) is full: not a fault of the file. */
export const isStorageFull = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.defects(cause), ...Cause.failures(cause)].some((e) => fullError(e, 0))
