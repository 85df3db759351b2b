/**
 * Preloaded into the daemon by bench:api when BENCH_PROFILE_DIR is set (`--import`, which
 * NODE_OPTIONS allows where `--cpu-prof` it does not): samples the main thread's CPU from
 * start to exit and writes `<BENCH_PROFILE_DIR>/daemon-<pid>.cpuprofile` (open it in Chrome
 * DevTools or speedscope).
 */
import * as fs from "node:fs"
import * as inspector from "node:inspector"
import * as path from "node:path"

const dir = process.env.BENCH_PROFILE_DIR
if (dir) {
  const session = new inspector.Session()
  session.connect()
  session.post("Profiler.enable")
  session.post("Profiler.setSamplingInterval", { interval: 250 })
  session.post("Profiler.start")
  // the in-process session answers synchronously, so the profile is written before the exit
  process.once("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (error) return
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, `daemon-${process.pid}.cpuprofile`), JSON.stringify(result.profile))
    })
  })
}
