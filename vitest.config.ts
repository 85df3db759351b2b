import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { defineConfig } from "vitest/config"

/**
 * The suite as three projects, told apart by what a test file does (read from its text and from
 * the helpers it imports from outside test/support), so that a new file lands in the right one
 * by itself:
 * - `unit`: no daemon, no database, no corpus, no child process, no browser (`npm run test:unit`);
 * - `daemon`: the daemon, its services over a database, or a connector, built in-process, and
 *   the corpora of real files;
 * - `programs`: spawns a program (`node dist/main.js`, the command line, the connectors),
 *   a shell or Chromium; its global setup builds dist/ once (test/support/buildOnce.ts).
 * All three run side by side, one file per worker: every file makes its own temporary folders
 * and takes free loopback ports, so that files share nothing but dist/, which is built before
 * any of them starts.
 */

const ROOT = import.meta.dirname
const TEST_DIR = path.join(ROOT, "test")
const SUPPORT_DIR = path.join(TEST_DIR, "support")

const PROGRAMS = /\b(child_process|programFile|builtDashboard|startChildDaemon|runDaemonToExit|runCli|spawnCli|spawnEntry|buildDashboard|openDashboardBrowser|launchChromium|playwright-core)\b/
const DAEMON = /\b(TestDaemon\.layer|daemonLayer|healthDaemon|makeDaemon|startConnector|ServicesLive|ImportHarness|corpus\.ts|exportArchives)\b/

/** A test file's text with that of the helpers it imports from test/ outside test/support, transitively. */
const textOf = (file: string, seen = new Set<string>()): string => {
  if (seen.has(file) || !fs.existsSync(file)) return ""
  seen.add(file)
  const text = fs.readFileSync(file, "utf8")
  const helpers = [...text.matchAll(/from\s+"(\.{1,2}\/[^"]+\.ts)"/g)]
    .map((m) => path.resolve(path.dirname(file), m[1]!))
    .filter((helper) => helper.startsWith(TEST_DIR + path.sep) && !helper.startsWith(SUPPORT_DIR + path.sep))
  return [text, ...helpers.map((helper) => textOf(helper, seen))].join("\n")
}

const testFiles = (fs.readdirSync(TEST_DIR, { recursive: true }) as Array<string>)
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => path.join("test", name).split(path.sep).join("/"))
  .sort()

const kindOf = (file: string): "unit" | "daemon" | "programs" => {
  const text = textOf(path.join(ROOT, file))
  return PROGRAMS.test(text) ? "programs" : DAEMON.test(text) ? "daemon" : "unit"
}
const kinds = new Map(testFiles.map((file) => [file, kindOf(file)]))
const filesOf = (kind: "unit" | "daemon" | "programs") => testFiles.filter((file) => kinds.get(file) === kind)

// Workers: one per core and one more, unless WAYMARK_TEST_WORKERS says otherwise: much of a
// file's time is spent waiting on a child process, a browser or a settle time, which a third
// worker fills on two cores. A worker runs its files one after another in one process (not
// isolated): the test files and the daemon's modules are loaded once per worker instead of once
// per file, which was most of the suite's time. What a process keeps between files (Effect's
// metrics) is read by the tests as what their own steps added.
const workers = Number(process.env["WAYMARK_TEST_WORKERS"] ?? os.availableParallelism() + 1)

export default defineConfig({
  test: {
    // a test waits on conditions, never on a fixed time: these limits only stop a hung test,
    // and stay far above what a busy machine needs
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    isolate: false,
    // as many forks from start to end: a fork let go while the projects change over (minForks
    // below maxForks) was terminated with its file still running, which ended the whole run
    poolOptions: { forks: { maxForks: workers, minForks: workers } },
    projects: [
      { extends: true, test: { name: "unit", include: filesOf("unit") } },
      { extends: true, test: { name: "daemon", include: filesOf("daemon") } },
      { extends: true, test: { name: "programs", include: filesOf("programs"), globalSetup: ["test/support/buildOnce.ts"] } }
    ]
  }
})
