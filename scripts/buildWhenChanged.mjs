// Builds dist/ (`npm run build`) only when what it is built from changed since the last build:
// what `npm start` (and `npm run polar`, `npm run wahoo`, `npm run cli`) runs first. A start whose
// settings are wrong then says so in a second instead of after compiling the daemon and the
// dashboard again; a fresh clone, or any change to the sources, the build scripts, the TypeScript
// settings or the installed packages, still builds first. Its lines and the build's go to stderr,
// so that what a command prints stays alone on stdout (`npm run -s cli -- app:api-key:generate`).
// Plain JavaScript run by node: nothing to compile.
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** What dist/ is built from (folders walked whole), relative to the repository. */
export const BUILD_INPUTS = [
  "src",
  "scripts/buildDashboard.ts",
  "scripts/buildCityData.ts",
  "scripts/bundlePrograms.ts",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  // rewritten by every npm install: a package changed
  "node_modules/.package-lock.json"
]

/** What a build leaves, all of which must be there for it to count. */
export const BUILD_OUTPUTS = ["dist/main.js", "dist/cli.js", "dist/polar.js", "dist/wahoo.js", "dist/data/cities.bin", "dist/dashboard"]

/** Where the last build notes the digest of its inputs. */
export const STAMP = "dist/.build-inputs"

const filesUnder = (root, relative) => {
  const full = path.join(root, relative)
  let stat
  try {
    stat = fs.statSync(full)
  } catch {
    return []
  }
  if (!stat.isDirectory()) return [relative]
  return fs.readdirSync(full).sort().flatMap((name) => filesUnder(root, path.posix.join(relative, name)))
}

/** The digest of every input's path and bytes. */
export const inputsDigest = (root) => {
  const hash = createHash("sha256")
  for (const input of BUILD_INPUTS) {
    for (const file of filesUnder(root, input)) {
      hash.update(`${file}\0`)
      hash.update(fs.readFileSync(path.join(root, file)))
      hash.update("\0")
    }
  }
  return hash.digest("hex")
}

/** Whether dist/ under `root` is whole and built from the inputs as they are now. */
export const builtAsIs = (root) => {
  if (!BUILD_OUTPUTS.every((output) => fs.existsSync(path.join(root, output)))) return false
  let stamp
  try {
    stamp = fs.readFileSync(path.join(root, STAMP), "utf8").trim()
  } catch {
    return false
  }
  return stamp === inputsDigest(root)
}

/**
 * Runs `build` (a whole build) unless dist/ is built from the inputs as they are; the digest is
 * noted only once a build succeeded (one cut short leaves none, and the next start builds).
 * Answers the build's exit code (0 when skipped).
 */
export const buildWhenChanged = (root, build, say = (line) => process.stderr.write(`${line}\n`)) => {
  if (builtAsIs(root)) {
    say("dist/ is built from the sources as they are: no build needed")
    return 0
  }
  fs.rmSync(path.join(root, STAMP), { force: true })
  const digest = inputsDigest(root)
  const code = build()
  if (code === 0) fs.writeFileSync(path.join(root, STAMP), `${digest}\n`)
  return code
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
  // the npm that runs this script runs the build too (npm_execpath); a plain `node` call uses the npm on the PATH
  const npm = process.env.npm_execpath
  const build = () => {
    const run = npm !== undefined && npm.endsWith(".js")
      ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: ["inherit", 2, "inherit"] })
      : spawnSync("npm", ["run", "build"], { cwd: root, stdio: ["inherit", 2, "inherit"] })
    return run.status ?? 1
  }
  process.exitCode = buildWhenChanged(root, build)
}
