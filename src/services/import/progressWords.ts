/** The words of an import's progress, the same in the daemon log and in the API's answer (the dashboard's import page shows them). */

/** `45 s`, `2 min 30 s`, `1 h 5 min`: at least a second. */
export const durationWords = (ms: number): string => {
  const s = Math.max(1, Math.round(ms / 1000))
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

/** `50 of 100 files done (10.0 files/s, about 5 s left)`; the rate and time left once a file is done. */
export const progressWords = (p: { readonly done: number; readonly total: number; readonly filesPerSecond: number | null; readonly secondsLeft: number | null }): string =>
  `${p.done} of ${p.total} file${p.total === 1 ? "" : "s"} done` +
  (p.filesPerSecond === null || p.secondsLeft === null ? "" : ` (${p.filesPerSecond.toFixed(1)} files/s, about ${durationWords(p.secondsLeft * 1000)} left)`)
