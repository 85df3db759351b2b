import * as fs from "node:fs"

/**
 * The processor time (user and system, in milliseconds) a thread of this process has spent
 * so far, read from Linux's `/proc/self/task/<tid>/stat` (its 14th and 15th fields, in clock
 * ticks of 1/100 s: USER_HZ, which Linux fixes at 100 for every program); null when it cannot
 * be read (another system, or the thread is gone).
 */
export const threadCpuMillis = (tid: number): number | null => {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "latin1")
    // the command name (2nd field) may hold spaces and parentheses: the fields after it follow its last ")"
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? ticks * 10 : null
  } catch {
    return null
  }
}
