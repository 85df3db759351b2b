import * as fs from "node:fs"
import * as os from "node:os"

/**
 * Linux's nice value of the calling thread, raised to at least `nice`: a worker thread's work
 * (parsing, analysing) yields to the daemon's event loop, so that when every core is busy the
 * API's requests and the commits are served first and the worker takes what is left, as fast as
 * before on an idle core. Nice is per thread on Linux (this thread's id is the last part of
 * /proc/thread-self); elsewhere, or where it is not allowed, the thread keeps the process's
 * priority.
 */
export const lowerThreadPriority = (nice: number): void => {
  const tid = currentThreadId()
  if (tid === null) return // not Linux: the thread runs at the process's priority
  try {
    os.setPriority(tid, Math.max(os.getPriority(tid), nice))
  } catch {
    // not allowed: the thread runs at the process's priority
  }
}

/**
 * Sets the calling thread's nice value to `nice` where the system allows it (raising a thread's
 * priority needs CAP_SYS_NICE or RLIMIT_NICE); answers whether it did.
 */
export const setThreadPriority = (nice: number): boolean => {
  const tid = currentThreadId()
  if (tid === null) return false
  try {
    os.setPriority(tid, nice)
    return true
  } catch {
    return false
  }
}

/** The calling thread's id in the system (Linux: the last part of /proc/thread-self); null elsewhere. */
export const currentThreadId = (): number | null => {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop())
    return Number.isSafeInteger(tid) && tid > 0 ? tid : null
  } catch {
    return null
  }
}
