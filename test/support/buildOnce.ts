import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { REPO_DIR } from "./programs.ts"

/**
 * Global setup of the files that spawn the programs or serve the dashboard: `npm run build` once,
 * before any of them runs, unless dist/ was built by an earlier run from sources no newer than
 * it. Tests spawn `node dist/<program>.js` and read dist/dashboard, never build them again
 * themselves, so that files running side by side never see a half-written bundle.
 */

const STAMP = path.join(REPO_DIR, "dist", ".built-by-tests")
const INPUTS = ["src", "scripts", "assets", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"]

const newestMtime = (entry: string): number => {
  const stat = fs.statSync(entry, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)))
  return newest
}

export default function buildOnce() {
  const built = fs.statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0
  const sources = Math.max(...INPUTS.map((input) => newestMtime(path.join(REPO_DIR, input))))
  if (built > sources && process.env["WAYMARK_TEST_REBUILD"] === undefined) return
  const started = Date.now()
  const result = spawnSync("npm", ["run", "--silent", "build"], { cwd: REPO_DIR, stdio: ["ignore", "ignore", "inherit"] })
  if (result.status !== 0) throw new Error(`npm run build failed (exit code ${result.status}): the tests that spawn the programs need dist/`)
  fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`)
  console.log(`built dist/ for the tests in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}
