/**
 * Local wall time (`YYYY-MM-DDTHH:mm:ss`) of a UTC instant, through Intl (DST-correct).
 */
const formatters = new Map<string, Intl.DateTimeFormat | null>()

const formatterFor = (timeZone: string): Intl.DateTimeFormat | null => {
  let f = formatters.get(timeZone)
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit"
      })
    } catch {
      f = null
    }
    formatters.set(timeZone, f)
  }
  return f
}

export const isValidTimeZone = (timeZone: string): boolean => timeZone !== "" && formatterFor(timeZone) !== null

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** The wall time of `epochMs` shifted by a fixed offset (seconds east of UTC). */
export const localWithOffset = (epochMs: number, offsetSeconds: number): string => {
  const shifted = epochMs + offsetSeconds * 1000
  const d = new Date(Number.isFinite(shifted) ? shifted : 0)
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${
    pad(d.getUTCMinutes())
  }:${pad(d.getUTCSeconds())}`
}

/** The wall time of `epochMs` in an IANA zone; UTC when the zone is unknown. */
export const localInZone = (epochMs: number, timeZone: string): string => {
  const f = formatterFor(timeZone)
  if (!f || !Number.isFinite(epochMs)) return localWithOffset(epochMs, 0)
  const parts: Record<string, string> = {}
  for (const p of f.formatToParts(new Date(epochMs))) parts[p.type] = p.value
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
}
