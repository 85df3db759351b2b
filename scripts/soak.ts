/**
 * `npm run soak`: the daemon under everything at once, for real. 2,000 activity files are
 * dropped into the watch folder (in batches, as a connector or a person copies them) while 200
 * uploads and a stream of reads and probes run, and the daemon is killed (SIGKILL) three times
 * along the way and started again over the same folders. At the end every file dropped and
 * every upload the daemon accepted (202) must have exactly one import row, `success`, its
 * activity, and its original; nothing may wait in the watch folder; no original may lack its
 * row. Prints the counts, the timings and the probes' latencies; exits 1 on any loss.
 *
 * Options: --files 2000 --uploads 200 --kills 3 (the daemon runs from source, as the tests do).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { Effect, Exit, Scope } from "effect"
import { type ChildDaemon, startChildDaemon } from "../test/support/ChildDaemon.ts"
import { fitActivity, gpxActivity, makeRoot, tcxActivity } from "../test/support/ImportHarness.ts"

const { values: args } = parseArgs({
  options: { files: { type: "string", default: "2000" }, uploads: { type: "string", default: "200" }, kills: { type: "string", default: "3" } }
})
const FILES = Number(args.files)
const UPLOADS = Number(args.uploads)
const KILLS = Number(args.kills)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Activity n: 20 minutes, three hours apart from 2015 on (never the same activity twice), in the three formats. */
const activityFile = (n: number): { readonly name: string; readonly bytes: Uint8Array } => {
  const shape = { start: new Date(Date.UTC(2015, 0, 1, 6) + n * 3 * 3600_000), seconds: 1200, step: 5 }
  const format = n % 3
  const bytes = format === 0 ? fitActivity(shape) : new TextEncoder().encode(format === 1 ? gpxActivity(shape) : tcxActivity(shape))
  return { name: `soak-${String(n).padStart(5, "0")}.${["fit", "gpx", "tcx"][format]}`, bytes }
}

const quantile = (xs: Array<number>, q: number) => {
  if (xs.length === 0) return NaN
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

const main = async () => {
  const scope = Effect.runSync(Scope.make())
  const root = makeRoot({ LOG_LEVEL: "warning", WATCH_SETTLE: "1s" })
  const start = () => Effect.runPromise(Scope.extend(startChildDaemon({ env: root.env, apiKey: root.apiKey, readyTimeout: "300 seconds" }), scope))
  const began = Date.now()
  let daemon: ChildDaemon = await start()
  let restarting = false
  const auth = { authorization: `Bearer ${root.apiKey}` }

  // the reads and probes: latencies per probe, errors while the daemon is down are not counted
  const latencies: Record<string, Array<number>> = { "/status": [], "/healthz": [], "/api/v1/activities": [], "/api/v1/file-imports": [] }
  let reading = true
  const reader = (async () => {
    while (reading) {
      for (const url of Object.keys(latencies)) {
        if (restarting) continue
        const t0 = performance.now()
        try {
          const response = await fetch(daemon.baseUrl + url, { headers: auth, signal: AbortSignal.timeout(30_000) })
          await response.arrayBuffer()
          latencies[url]!.push(performance.now() - t0)
        } catch {
          // the daemon was killed under the request
        }
      }
      await sleep(50)
    }
  })()

  // the uploads: each retried until it is accepted (202); a killed daemon loses none it accepted
  const accepted = new Set<string>()
  let uploadRetries = 0
  const uploads = (async () => {
    const queue = Array.from({ length: UPLOADS }, (_, i) => activityFile(10_000 + i))
    const worker = async () => {
      for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
        for (;;) {
          try {
            const form = new FormData()
            form.append("file", new Blob([file.bytes]), file.name)
            const response = await fetch(`${daemon.baseUrl}/api/v1/activity/upload`, { method: "POST", headers: auth, body: form, signal: AbortSignal.timeout(60_000) })
            await response.arrayBuffer()
            if (response.status === 202) {
              accepted.add(file.name)
              break
            }
          } catch {
            // killed meanwhile
          }
          uploadRetries++
          await sleep(500)
        }
        await sleep(100)
      }
    }
    await Promise.all(Array.from({ length: 10 }, worker))
  })()

  // the drops, in batches of 50, and the kills at a quarter, half and three quarters of them
  const killed: Array<string> = []
  const killAt = new Set(Array.from({ length: KILLS }, (_, k) => Math.floor(((k + 1) * FILES) / (KILLS + 1) / 50) * 50))
  for (let n = 0; n < FILES; n++) {
    const { name, bytes } = activityFile(n)
    const staging = path.join(root.watchDir, `.${name}`)
    fs.writeFileSync(staging, bytes)
    fs.renameSync(staging, path.join(root.watchDir, name))
    if ((n + 1) % 50 === 0) await sleep(250)
    if (killAt.has(n + 1)) {
      restarting = true
      const exit = await Effect.runPromise(daemon.kill("SIGKILL"))
      killed.push(`after ${n + 1} drops, ${((Date.now() - began) / 1000).toFixed(0)} s: ${JSON.stringify(exit)}`)
      daemon = await start()
      restarting = false
    }
  }
  const droppedAt = Date.now()
  await uploads
  const uploadedAt = Date.now()

  // drained: nothing waits in the folder, nothing queued
  const candidates = () => fs.readdirSync(root.watchDir, { recursive: true, encoding: "utf8" }).filter((n) => /\.(fit|gpx|tcx)$/.test(n) && !n.split("/").some((p) => p.startsWith(".")))
  for (;;) {
    const queued = await fetch(`${daemon.baseUrl}/api/v1/file-imports?filters[status]=queued&pagination[size]=1`, { headers: auth })
      .then((r) => r.json() as Promise<{ pagination?: { total: number } }>).catch(() => null)
    if (candidates().length === 0 && queued?.pagination?.total === 0) break
    await sleep(1000)
  }
  const drainedAt = Date.now()
  reading = false
  await reader

  // every file accounted for, through the API
  const rows: Array<{ filename: string; status: string; activityId: string | null }> = []
  for (let page = 1; ; page++) {
    const answer = await fetch(`${daemon.baseUrl}/api/v1/file-imports?pagination[size]=100&pagination[page]=${page}`, { headers: auth })
      .then((r) => r.json() as Promise<{ fileImports: typeof rows; pagination: { totalPages: number } }>)
    rows.push(...answer.fileImports)
    if (page >= answer.pagination.totalPages) break
  }
  const activities = (await fetch(`${daemon.baseUrl}/api/v1/activities?pagination[size]=1`, { headers: auth })
    .then((r) => r.json() as Promise<{ pagination: { total: number } }>)).pagination.total
  await Effect.runPromise(daemon.kill("SIGTERM"))
  const expected = new Set([...Array.from({ length: FILES }, (_, n) => activityFile(n).name), ...accepted])
  const byName = new Map<string, Array<string>>()
  for (const row of rows) byName.set(row.filename, [...(byName.get(row.filename) ?? []), row.status])
  const problems: Array<string> = []
  for (const name of expected) {
    const statuses = byName.get(name) ?? []
    if (statuses.length !== 1 || statuses[0] !== "success") problems.push(`${name}: ${statuses.join(", ") || "no row"}`)
  }
  for (const name of byName.keys()) if (!expected.has(name)) problems.push(`a row for ${name}, never dropped or accepted`)
  const originals = fs.readdirSync(root.originalsDir).filter((n) => !n.startsWith("."))
  if (activities !== expected.size) problems.push(`${activities} activities for ${expected.size} files`)
  if (originals.length !== expected.size) problems.push(`${originals.length} originals for ${expected.size} files`)
  if (candidates().length > 0) problems.push(`${candidates().length} files still in the watch folder`)

  const ms = (x: number) => `${x.toFixed(0)} ms`
  console.log(`soak: ${FILES} files dropped, ${UPLOADS} uploads (${accepted.size} accepted, ${uploadRetries} retried after a refusal or a kill), ${KILLS} kills`)
  for (const line of killed) console.log(`  kill -9 ${line}`)
  console.log(`  dropped in ${((droppedAt - began) / 1000).toFixed(0)} s, uploads done at ${((uploadedAt - began) / 1000).toFixed(0)} s, drained at ${((drainedAt - began) / 1000).toFixed(0)} s`)
  console.log(`  ${rows.length} import rows, ${activities} activities, ${originals.length} originals, ${candidates().length} files left in the watch folder`)
  for (const [url, xs] of Object.entries(latencies)) {
    console.log(`  ${url}: ${xs.length} answered, p50 ${ms(quantile(xs, 0.5))}, p99 ${ms(quantile(xs, 0.99))}, max ${ms(Math.max(...xs))}`)
  }
  console.log(problems.length === 0 ? "  every file accounted for" : `  ${problems.length} problems:\n    ${problems.slice(0, 50).join("\n    ")}`)
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(root.root, { recursive: true, force: true })
  process.exit(problems.length === 0 ? 0 : 1)
}

void main()
