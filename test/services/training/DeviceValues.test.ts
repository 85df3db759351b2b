import { Decoder, Stream } from "@garmin/fitsdk"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"
import { dropFile, waitForRow } from "../../support/ImportHarness.ts"
import { send, TestDaemon } from "../../support/TestDaemon.ts"

/**
 * Our normalized power, intensity factor, training stress and work against the values the
 * recording devices wrote in their own session messages (read here with Garmin's FIT SDK, not
 * our parser), each ride analysed with the FTP the device used (its session's threshold power,
 * else the FTP of its zones). Printed as a table; asserted within the tolerances below.
 *
 * Devices compute over their timer (auto-pause left out), we over the recorded seconds with
 * pauses of over a minute left out, as GoldenCheetah does: a ride whose device stood paused
 * for long while still recording (elapsed far beyond its timer) differs by more.
 */

const RIDES = [
  "fit/garmin-edge1030-ride-power-dynamics.fit",
  "fit/garmin-edge800-indoor-trainer-no-gps.fit",
  "fit/garmin-edge810-vector-power-ride.fit",
  "fit/garmin-fr935-ironman-triathlon.fit",
  "fit/sigma-rox11-road-ride.fit",
  "fit/srm-ride-broken-start-latlng.fit",
  "fit/wahoo-elemnt-ride-long-pauses.fit",
  "fit/wahoo-elemnt-bolt-ride-dev-data-no-app-id.fit"
]

interface DeviceSession {
  readonly normalizedPower: number
  readonly intensityFactor: number
  readonly trainingStressScore: number
  readonly totalWork: number | undefined
  readonly ftp: number
  readonly timer: number
  readonly elapsed: number
}

/** The session with power of a FIT file, as the device wrote it. */
const deviceSession = (bytes: Uint8Array): DeviceSession => {
  const { messages } = new Decoder(Stream.fromByteArray(bytes)).read()
  const session = (messages.sessionMesgs as Array<Record<string, number>>).find((s) => (s["normalizedPower"] ?? 0) > 0)!
  const zonesFtp = (messages.zonesTargetMesgs as Array<Record<string, number>> | undefined)?.find((z) => (z["functionalThresholdPower"] ?? 0) > 0)?.["functionalThresholdPower"]
  return {
    normalizedPower: session["normalizedPower"]!,
    intensityFactor: session["intensityFactor"]!,
    trainingStressScore: session["trainingStressScore"]!,
    totalWork: session["totalWork"],
    ftp: (session["thresholdPower"] ?? 0) > 0 ? session["thresholdPower"]! : zonesFtp!,
    timer: session["totalTimerTime"]!,
    elapsed: session["totalElapsedTime"]!
  }
}

const off = (ours: number, theirs: number) => Math.abs(ours - theirs) / theirs

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

describe.skipIf(!CORPUS_DIR)("training figures against the devices' own", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("corpus rides with a power meter", (it) => {
    it.effect("normalized power, IF, TSS and work agree with the device's session values", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const rides: Array<{ file: string; id: string; day: string; device: DeviceSession }> = []
        for (const file of RIDES) {
          const bytes = readCorpusFile(file)
          const name = file.slice(4)
          dropFile(daemon.watchDir, name, bytes)
          const row = yield* waitForRow(name, "60 seconds")
          expect(row.status, `${file}: ${row.error_message}`).toBe("success")
          // a triathlon makes one activity per leg: the ride is the one with power
          const ids: Array<string> = (yield* send("GET", `/api/v1/file-imports?filters[filename]=${encodeURIComponent(name)}`)).json.fileImports[0].activityIds
          for (const id of ids) {
            const activity = (yield* send("GET", `/api/v1/activities/${id}`)).json
            if (activity.averagePower === null || !activity.sportType.endsWith("Ride")) continue
            rides.push({ file, id, day: activity.startDateLocal.slice(0, 10), device: deviceSession(bytes) })
          }
        }
        expect(rides).toHaveLength(RIDES.length)
        expect(new Set(rides.map((r) => r.day)).size).toBe(rides.length)
        // each ride's day gets the device's FTP, in force until the next ride's day
        for (const ride of rides) {
          expect((yield* send("POST", "/api/v1/athlete/thresholds", { json: { on: ride.day, cyclingFtp: ride.device.ftp } })).status).toBe(200)
        }
        const lines: Array<string> = []
        const problems: Array<string> = []
        for (const { file, id, device } of rides) {
          const a = (yield* send("GET", `/api/v1/activities/${id}/analysis`)).json
          expect(a.ftp).toBe(device.ftp)
          const paused = device.elapsed > device.timer * 1.05
          const short = device.timer < 600
          const work = device.totalWork === undefined ? null : device.totalWork / 1000
          lines.push([
            file.slice(4).padEnd(48),
            `NP ${a.normalizedPower} / ${device.normalizedPower}`.padEnd(14),
            `IF ${a.intensityFactor.toFixed(3)} / ${device.intensityFactor.toFixed(3)}`.padEnd(20),
            `TSS ${a.trainingStressScore.toFixed(1)} / ${device.trainingStressScore.toFixed(1)}`.padEnd(20),
            work === null ? "work -" : `work ${a.workInKilojoules.toFixed(0)} / ${work.toFixed(0)} kJ`,
            paused ? " (paused while recording)" : "",
            short ? ` (${device.timer} s)` : ""
          ].join(" "))
          // a ride of a couple of minutes: the device's own TSS does not follow from its NP, IF and time
          if (short) continue
          const npTolerance = paused ? 0.05 : 0.02
          if (off(a.normalizedPower, device.normalizedPower) > npTolerance) problems.push(`${file}: NP ${a.normalizedPower} vs ${device.normalizedPower}`)
          if (off(a.intensityFactor, device.intensityFactor) > npTolerance) problems.push(`${file}: IF ${a.intensityFactor} vs ${device.intensityFactor}`)
          if (off(a.trainingStressScore, device.trainingStressScore) > 0.03) problems.push(`${file}: TSS ${a.trainingStressScore} vs ${device.trainingStressScore}`)
          if (work !== null && off(a.workInKilojoules, work) > 0.01) problems.push(`${file}: work ${a.workInKilojoules} vs ${work} kJ`)
        }
        console.log(`ours / the device's:\n${lines.join("\n")}`)
        expect(problems).toEqual([])
      }), 180_000)
  })
})
