import { assert, describe, it } from "@effect/vitest"
import { ValidationSeverity, validate } from "dockerfile-utils"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import selfsigned from "selfsigned"
import * as semver from "semver"

const ROOT = path.join(import.meta.dirname, "..", "..")
const DOCKERFILE = fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8")
const ENTRYPOINT = path.join(ROOT, "docker", "entrypoint.sh")
const IS_ROOT = process.getuid?.() === 0

/** Every rule of the linter raised to a warning at least, so that nothing it knows is let through. */
const STRICT = {
  deprecatedMaintainer: ValidationSeverity.WARNING,
  directiveCasing: ValidationSeverity.WARNING,
  emptyContinuationLine: ValidationSeverity.WARNING,
  instructionCasing: ValidationSeverity.WARNING,
  instructionCmdMultiple: ValidationSeverity.WARNING,
  instructionEntrypointMultiple: ValidationSeverity.WARNING,
  instructionHealthcheckMultiple: ValidationSeverity.WARNING,
  instructionJSONInSingleQuotes: ValidationSeverity.WARNING,
  instructionWorkdirRelative: ValidationSeverity.WARNING
}

/** The instructions of the last stage of the Dockerfile, as [keyword, arguments]. */
const lastStage = () => {
  const lines = DOCKERFILE.replace(/\\\n/g, " ").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"))
  const from = lines.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0)
  return lines.slice(from.at(-1)).map((l) => [l.split(/\s+/)[0]!.toUpperCase(), l.slice(l.indexOf(" ") + 1)] as const)
}

describe("Dockerfile", () => {
  it("passes the dockerfile-utils linter with every rule at warning level: no error, no warning", () => {
    const problems = validate(DOCKERFILE, STRICT).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)
    assert.deepStrictEqual(problems, [])
  })

  it("the linter catches what it should (an unknown instruction, a bad health-check flag)", () => {
    assert.isNotEmpty(validate(`${DOCKERFILE}\nRUNN true\n`, STRICT))
    assert.isNotEmpty(validate(DOCKERFILE.replace("--interval=30s", "--interval=30"), STRICT))
  })

  it("builds in two stages on a pinned release of Node 26 (the Active LTS line) on Debian slim, compiles better-sqlite3 in the build stage and ships only production packages", () => {
    assert.match(DOCKERFILE, /^ARG NODE_IMAGE=node:26\.\d+\.\d+-bookworm-slim$/m)
    assert.match(DOCKERFILE, /^FROM \$\{NODE_IMAGE\} AS build$/m)
    assert.match(DOCKERFILE, /apt-get install -y --no-install-recommends python3 make g\+\+/)
    // compiled from its sources with npm's node-gyp, never a prebuilt binary fetched by an install script
    assert.match(DOCKERFILE, /npm ci --ignore-scripts .*\n.*npm run --prefix node_modules\/better-sqlite3 .*build-release/)
    assert.match(DOCKERFILE, /npm prune --omit=dev/)
    const stage = lastStage()
    assert.deepStrictEqual(stage[0], ["FROM", "${NODE_IMAGE}"])
    assert.deepInclude(stage, ["COPY", "--from=build /app/node_modules ./node_modules"])
    assert.deepStrictEqual(stage.filter(([k, a]) => k === "RUN" && /\bnpm\b/.test(a)), [], "no package is installed in the runtime stage")
    assert.deepInclude(stage, ["ENTRYPOINT", `["waymark-entrypoint"]`])
    assert.deepInclude(stage, ["CMD", `["node", "dist/main.js"]`])
    assert.deepInclude(stage, ["VOLUME", `["/app/storage", "/app/watch"]`])
    const health = stage.find(([k]) => k === "HEALTHCHECK")
    assert.include(health?.[1], `CMD ["node", "/usr/local/lib/waymark/healthcheck.mjs"]`)
    // no USER root: the entrypoint starts as the image's user and the program never stays root
    assert.isUndefined(stage.find(([k, a]) => k === "USER" && /^(root|0)(:|$)/.test(a)))
  })

  it("its Node is one every package of the lock file accepts (the image's, and the development ones CI tests with on it), chokidar 6 included", () => {
    const version = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(DOCKERFILE)?.[1]
    assert.isDefined(version)
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { name?: string; version?: string; engines?: { node?: string } }>
    }
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node !== undefined && !semver.satisfies(version!, entry.engines.node))
      .map(([where, entry]) => `${where} ${entry.version}: ${entry.engines!.node}`)
    assert.deepStrictEqual(refusing, [])
    assert.strictEqual(lock.packages["node_modules/chokidar6"]?.name, "chokidar")
    assert.match(lock.packages["node_modules/chokidar6"]?.version ?? "", /^6\./)
    // and the check can fail: Node 20 is refused by chokidar 6
    assert.isFalse(semver.satisfies("20.20.2", lock.packages["node_modules/chokidar6"]!.engines!.node!))
  })

  it("copies only files that exist and that .dockerignore lets into the build context", () => {
    const allowed = fs.readFileSync(path.join(ROOT, ".dockerignore"), "utf8").split("\n").filter((l) => l.startsWith("!")).map((l) => l.slice(1).replace(/\/$/, ""))
    const sources = DOCKERFILE.split("\n").filter((l) => /^COPY\s/.test(l) && !l.includes("--from=")).flatMap((l) => l.trim().split(/\s+/).slice(1, -1))
    assert.isNotEmpty(sources)
    for (const source of sources) {
      assert.isTrue(fs.existsSync(path.join(ROOT, source)), `${source} exists`)
      assert.isTrue(allowed.some((a) => source === a || source.startsWith(`${a}/`)), `${source} is in the build context`)
    }
    for (const secret of [".env", "node_modules", "storage", "watch", ".git"]) assert.notInclude(allowed, secret)
  })
})

/** Runs the entrypoint with a fake program and answers what that program saw. */
const runEntrypoint = (args: ReadonlyArray<string>, env: Record<string, string>, options: { prefix?: ReadonlyArray<string>; cwd?: string } = {}) => {
  const command = [...(options.prefix ?? []), "sh", ENTRYPOINT, ...args]
  const result = childProcess.spawnSync(command[0]!, command.slice(1), {
    cwd: options.cwd ?? os.tmpdir(),
    env: { PATH: process.env["PATH"]!, ...env },
    encoding: "utf8"
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, seen: result.status === 0 ? JSON.parse(result.stdout) : undefined }
}

/** A folder laid out like the image (`<root>/dist/<program>.js`) whose programs print who they run as. */
const fakeImage = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-image-"))
  fs.chmodSync(root, 0o755)
  fs.mkdirSync(path.join(root, "dist"))
  const program = `const fs = require("node:fs")
const out = { uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(), umask: process.umask().toString(8), argv: process.argv.slice(2), home: process.env.HOME }
if (process.env.PROBE_FILE) { fs.writeFileSync(process.env.PROBE_FILE, "x"); out.probeMode = (fs.statSync(process.env.PROBE_FILE).mode & 0o777).toString(8) }
process.stdout.write(JSON.stringify(out))
`
  for (const name of ["main", "polar", "wahoo", "cli"]) fs.writeFileSync(path.join(root, "dist", `${name}.cjs`), program)
  for (const name of ["main", "polar", "wahoo", "cli"]) fs.symlinkSync(`${name}.cjs`, path.join(root, "dist", `${name}.js`))
  return root
}

const ownerOf = (p: string) => {
  const s = fs.statSync(p)
  return `${s.uid}:${s.gid}`
}

describe("docker/entrypoint.sh", () => {
  it.skipIf(!IS_ROOT)("started as root, the daemon runs as PUID:PGID with UMASK; its storage folder and the top of its watch folder are handed over", () => {
    const root = fakeImage()
    try {
      const storage = path.join(root, "storage")
      const watch = path.join(root, "watch")
      fs.mkdirSync(path.join(storage, "database"), { recursive: true })
      fs.writeFileSync(path.join(storage, "database", "waymark.sqlite"), "")
      fs.mkdirSync(watch)
      fs.writeFileSync(path.join(watch, "ride.fit"), "")
      const run = runEntrypoint(["node", path.join(root, "dist", "main.js"), "--flag"], {
        PUID: "4321", PGID: "4322", UMASK: "027", TZ: "Europe/Paris",
        STORAGE_DIR: storage, WATCH_DIR: watch, PROBE_FILE: path.join(storage, "probe")
      })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.seen.uid, 4321)
      assert.strictEqual(run.seen.gid, 4322)
      assert.deepStrictEqual(run.seen.groups, [4322], "no supplementary group of root is kept")
      assert.strictEqual(run.seen.umask, "27")
      assert.strictEqual(run.seen.probeMode, "640")
      assert.deepStrictEqual(run.seen.argv, ["--flag"])
      assert.strictEqual(ownerOf(storage), "4321:4322")
      assert.strictEqual(ownerOf(path.join(storage, "database", "waymark.sqlite")), "4321:4322")
      assert.strictEqual(ownerOf(watch), "4321:4322")
      assert.strictEqual(ownerOf(path.join(watch, "ride.fit")), "0:0", "files in the watch folder keep their owner")
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it.skipIf(!IS_ROOT)("a connector hands over only its own state folders, never the shared watch folder", () => {
    const root = fakeImage()
    try {
      const dirs = { STATE_DIR: path.join(root, "state"), POLAR_TOKENS: path.join(root, "tokens"), WATCH_DIR: path.join(root, "watch") }
      fs.mkdirSync(dirs.WATCH_DIR)
      const polar = runEntrypoint(["node", path.join(root, "dist", "polar.js")], { PUID: "4321", PGID: "4321", ...dirs })
      assert.strictEqual(polar.code, 0, polar.stderr)
      assert.strictEqual(polar.seen.uid, 4321)
      assert.strictEqual(ownerOf(dirs.STATE_DIR), "4321:4321")
      assert.strictEqual(ownerOf(dirs.POLAR_TOKENS), "4321:4321")
      assert.strictEqual(ownerOf(dirs.WATCH_DIR), "0:0")

      const data = path.join(root, "data")
      fs.mkdirSync(path.join(data, "downloads"), { recursive: true })
      const wahoo = runEntrypoint(["wahoo"], { PUID: "4321", PGID: "4321", DATA_DIR: data }, { cwd: root })
      // the short form runs /app/dist/wahoo.js, absent here: what matters is which folders were handed over
      assert.notStrictEqual(wahoo.code, 0)
      assert.strictEqual(ownerOf(path.join(data, "config")), "4321:4321")
      assert.strictEqual(ownerOf(path.join(data, "downloads")), "0:0")
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it.skipIf(!IS_ROOT)("without PUID/PGID the program runs as the image's unprivileged user 1000, never as root", () => {
    const root = fakeImage()
    try {
      const run = runEntrypoint(["node", path.join(root, "dist", "cli.js"), "app:backup", "x"], { STORAGE_DIR: path.join(root, "s"), WATCH_DIR: path.join(root, "w") })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.seen.uid, 1000)
      assert.strictEqual(run.seen.gid, 1000)
      assert.deepStrictEqual(run.seen.argv, ["app:backup", "x"])
      const asRoot = runEntrypoint(["node", path.join(root, "dist", "main.js")], { PUID: "0" })
      assert.strictEqual(asRoot.code, 1)
      assert.include(asRoot.stderr, "PUID=0")
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it.skipIf(!IS_ROOT)("started as another user already, it keeps that user, says PUID is ignored and changes no owner", () => {
    const root = fakeImage()
    try {
      const storage = path.join(root, "storage")
      fs.mkdirSync(storage, { mode: 0o777 })
      fs.chmodSync(storage, 0o777)
      const run = runEntrypoint(["node", path.join(root, "dist", "main.js")], { PUID: "5000", STORAGE_DIR: storage }, {
        prefix: ["setpriv", "--reuid=4321", "--regid=4321", "--clear-groups", "--"]
      })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.seen.uid, 4321)
      assert.include(run.stderr, "PUID=5000 ignored")
      assert.strictEqual(ownerOf(storage), "0:0")
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("refuses a malformed UMASK, an unknown TZ and a non-numeric PUID with one line naming the setting", () => {
    const root = fakeImage()
    try {
      const program = ["node", path.join(root, "dist", "main.js")]
      const umask = runEntrypoint(program, { UMASK: "rw-r--r--" })
      assert.strictEqual(umask.code, 1)
      assert.match(umask.stderr, /^waymark-entrypoint: UMASK must be an octal mask/)
      const tz = runEntrypoint(program, { TZ: "Mars/Olympus_Mons" })
      assert.strictEqual(tz.code, 1)
      assert.include(tz.stderr, "TZ 'Mars/Olympus_Mons' is not a known time zone")
      if (IS_ROOT) {
        const puid = runEntrypoint(program, { PUID: "node" })
        assert.strictEqual(puid.code, 1)
        assert.include(puid.stderr, "PUID must be a numeric user id")
      }
      // blank values count as unset, as compose passes them
      const blank = runEntrypoint(program, { UMASK: "", TZ: "", PUID: "", PGID: "", STORAGE_DIR: path.join(root, "s"), WATCH_DIR: path.join(root, "w") })
      assert.strictEqual(blank.code, 0, blank.stderr)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})

interface HealthcheckModule {
  readonly runningProgram: (procDir?: string) => string | undefined
  readonly probeUrls: (program: string | undefined, variables?: Record<string, string>) => ReadonlyArray<string> | undefined
  readonly check: (program: string | undefined, variables?: Record<string, string>) => Promise<{ healthy: boolean; message: string }>
}
const healthcheck = (): Promise<HealthcheckModule> => import(path.join(ROOT, "docker", "healthcheck.mjs"))

const listen = (server: http.Server | https.Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

describe("docker/healthcheck.mjs", () => {
  it("finds the running program from the processes' command lines", async () => {
    const { runningProgram } = await healthcheck()
    const proc = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-proc-"))
    try {
      const processOf = (pid: number, args: ReadonlyArray<string>) => {
        fs.mkdirSync(path.join(proc, String(pid)))
        fs.writeFileSync(path.join(proc, String(pid), "cmdline"), args.join("\0") + "\0")
      }
      fs.mkdirSync(path.join(proc, "self"))
      processOf(1, ["/sbin/docker-init", "--", "waymark-entrypoint", "node", "dist/polar.js"])
      assert.strictEqual(runningProgram(proc), "polar")
      fs.rmSync(path.join(proc, "1"), { recursive: true })
      processOf(7, ["node", "/app/dist/main.js"])
      assert.strictEqual(runningProgram(proc), "daemon")
      fs.rmSync(path.join(proc, "7"), { recursive: true })
      processOf(9, ["sh"])
      assert.isUndefined(runningProgram(proc))
    } finally {
      fs.rmSync(proc, { recursive: true, force: true })
    }
  })

  it("asks each program's /healthz where its settings put it", async () => {
    const { probeUrls } = await healthcheck()
    assert.deepStrictEqual(probeUrls("daemon", {}), ["http://127.0.0.1:8080/healthz"])
    assert.deepStrictEqual(probeUrls("daemon", { PORT: "9000", HOST: "::" }), ["http://127.0.0.1:9000/healthz"])
    assert.deepStrictEqual(probeUrls("polar", {}), ["http://127.0.0.1:8080/healthz"])
    assert.deepStrictEqual(probeUrls("polar", { HTTP_ADDR: "10.0.0.5:9090" }), ["http://10.0.0.5:9090/healthz"])
    assert.deepStrictEqual(probeUrls("polar", { HTTP_ADDR: "off" }), [])
    assert.deepStrictEqual(probeUrls("wahoo", {}), ["https://127.0.0.1:8085/healthz", "http://127.0.0.1:8085/healthz"])
    assert.isUndefined(probeUrls(undefined, {}))
  })

  it("healthy on 200, unhealthy on 503 or when nothing listens; the Wahoo connector over its self-signed HTTPS", async () => {
    const { check } = await healthcheck()
    let status = 200
    const plain = http.createServer((req, res) => {
      res.statusCode = req.url === "/healthz" ? status : 404
      res.end()
    })
    const pems = await selfsigned.generate([{ name: "commonName", value: "localhost" }], { keySize: 2048 })
    const secure = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      res.statusCode = req.url === "/healthz" ? 200 : 404
      res.end()
    })
    const port = await listen(plain)
    const securePort = await listen(secure)
    try {
      assert.isTrue((await check("daemon", { PORT: String(port) })).healthy)
      status = 503
      const failing = await check("daemon", { PORT: String(port) })
      assert.isFalse(failing.healthy)
      assert.include(failing.message, "503")
      assert.isTrue((await check("wahoo", { PORT: String(securePort) })).healthy, "HTTPS with its own certificate")
      status = 200
      assert.isTrue((await check("wahoo", { PORT: String(port) })).healthy, "plain HTTP when HTTPS is off")
      assert.isTrue((await check("polar", { HTTP_ADDR: "off" })).healthy)
      assert.isFalse((await check(undefined, {})).healthy)
    } finally {
      await new Promise((r) => plain.close(r))
      await new Promise((r) => secure.close(r))
    }
    assert.isFalse((await check("daemon", { PORT: String(port) })).healthy, "nothing listens any more")
  })
})
