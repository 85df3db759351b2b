import { assert, describe, it } from "@effect/vitest"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const DEPLOY = path.join(import.meta.dirname, "..", "..", "deploy")
const UNITS = { daemon: "waymark.service", polar: "waymark-polar.service", wahoo: "waymark-wahoo.service" } as const

/** A unit file as section -> key -> values (keys may repeat; comments and blank lines dropped). */
const parseUnit = (text: string) => {
  const sections = new Map<string, Map<string, Array<string>>>()
  let current: Map<string, Array<string>> | undefined
  for (const raw of text.split("\n")) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const section = /^\[(.+)\]$/.exec(line)
    if (section) {
      current = new Map()
      sections.set(section[1]!, current)
      continue
    }
    const at = line.indexOf("=")
    assert.isAbove(at, 0, `a key=value line: ${line}`)
    assert.isDefined(current, `${line} is inside a section`)
    const key = line.slice(0, at)
    current!.set(key, [...(current!.get(key) ?? []), line.slice(at + 1)])
  }
  return sections
}

const unit = (name: string) => parseUnit(fs.readFileSync(path.join(DEPLOY, name), "utf8"))
const service = (name: string) => unit(name).get("Service")!
const one = (section: Map<string, Array<string>>, key: string) => section.get(key)?.at(-1)
const environment = (section: Map<string, Array<string>>) =>
  Object.fromEntries((section.get("Environment") ?? []).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]))

describe("deploy/*.service", () => {
  it("one unit per program, each starting its built entry point as an unprivileged user with its settings from an environment file", () => {
    const entries = { daemon: "main.js", polar: "polar.js", wahoo: "wahoo.js" }
    for (const [program, name] of Object.entries(UNITS)) {
      const s = service(name)
      assert.strictEqual(one(s, "ExecStart"), `/usr/bin/node /opt/waymark/dist/${entries[program as keyof typeof entries]}`, name)
      assert.strictEqual(one(s, "User"), "waymark", name)
      assert.match(one(s, "EnvironmentFile")!, /^\/etc\/waymark\/[a-z]+\.env$/, name)
      assert.deepStrictEqual(unit(name).get("Install")?.get("WantedBy"), ["multi-user.target"], name)
    }
  })

  it("hardened and restarted on failure, stopped with SIGTERM and a grace period", () => {
    for (const name of Object.values(UNITS)) {
      const s = service(name)
      const expect = { NoNewPrivileges: "yes", ProtectSystem: "strict", ProtectHome: "yes", PrivateTmp: "yes", Restart: "on-failure", KillSignal: "SIGTERM", CapabilityBoundingSet: "" }
      for (const [key, value] of Object.entries(expect)) assert.strictEqual(one(s, key), value, `${name} ${key}`)
      assert.match(one(s, "TimeoutStopSec")!, /^\d+s$/, name)
    }
  })

  it("every folder a program writes to is writable under ProtectSystem=strict, and the three share one watch folder", () => {
    const writable = (s: Map<string, Array<string>>) => [
      ...(s.get("ReadWritePaths") ?? []).flatMap((v) => v.split(/\s+/)),
      ...(s.get("StateDirectory") ?? []).flatMap((v) => v.split(/\s+/)).map((d) => `/var/lib/${d}`)
    ]
    const folders = { daemon: ["STORAGE_DIR", "WATCH_DIR"], polar: ["WATCH_DIR", "STATE_DIR", "POLAR_TOKENS"], wahoo: ["WATCH_DIR", "STATE_DIR", "DATA_DIR"] }
    const watch = new Set<string>()
    for (const [program, name] of Object.entries(UNITS)) {
      const s = service(name)
      const env = environment(s)
      for (const variable of folders[program as keyof typeof folders]) {
        const folder = env[variable]
        assert.isDefined(folder, `${name} sets ${variable}`)
        assert.isTrue(writable(s).some((w) => folder === w || folder!.startsWith(`${w}/`)), `${name}: ${variable}=${folder} is writable`)
      }
      watch.add(env["WATCH_DIR"]!)
    }
    assert.deepStrictEqual([...watch], ["/var/lib/waymark/watch"])
    // the connectors' HTTP servers do not take the daemon's port
    assert.strictEqual(environment(service(UNITS.polar))["HTTP_ADDR"], "0.0.0.0:8081")
  })

  it.skipIf(!fs.existsSync("/usr/bin/systemd-analyze"))("systemd-analyze verify accepts them without a single warning", () => {
    // a copy whose node is this one, wherever it is installed
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-units-"))
    try {
      for (const name of Object.values(UNITS)) {
        fs.writeFileSync(path.join(dir, name), fs.readFileSync(path.join(DEPLOY, name), "utf8").replaceAll("/usr/bin/node", process.execPath))
      }
      const verify = (name: string) => childProcess.spawnSync("systemd-analyze", ["verify", "--man=no", path.join(dir, name)], { encoding: "utf8", timeout: 30_000 })
      for (const name of Object.values(UNITS)) {
        const result = verify(name)
        assert.strictEqual(result.status, 0, result.stderr)
        assert.strictEqual(`${result.stdout}${result.stderr}`.trim(), "", name)
      }
      // and it does speak up on a mistake
      fs.writeFileSync(path.join(dir, UNITS.daemon), fs.readFileSync(path.join(DEPLOY, UNITS.daemon), "utf8").replaceAll("/usr/bin/node", process.execPath).replace("ProtectSystem=strict", "ProtectSystem=strictest"))
      assert.include(verify(UNITS.daemon).stderr, "strictest")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
