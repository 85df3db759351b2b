import { execFileSync, execSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Worker } from "node:worker_threads"

/** Helpers shared by the benchmarks. */

export const quantile = (xs: ReadonlyArray<number>, q: number) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Peak and current resident set of a process (all its threads), from /proc; null elsewhere. */
export const memoryOf = (pid: number): { peak: number; current: number } | null => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024
    return { peak: kb("VmHWM"), current: kb("VmRSS") }
  } catch {
    return null
  }
}

/**
 * The environment a bench gives its daemon to be looked into: BENCH_PROFILE_DIR=dir writes a CPU
 * profile of its main thread there (bench/cpuProfile.mjs), BENCH_DAEMON_NODE_OPTIONS="..." adds
 * Node flags (those NODE_OPTIONS allows, e.g. --heapsnapshot-signal=SIGUSR2). Empty when neither is set.
 */
export const daemonDiagnostics = (): Record<string, string> => {
  const profileDir = process.env.BENCH_PROFILE_DIR
  const nodeOptions = [
    ...(profileDir ? [`--import ${path.join(import.meta.dirname, "cpuProfile.mjs")}`] : []),
    ...(process.env.BENCH_DAEMON_NODE_OPTIONS ? [process.env.BENCH_DAEMON_NODE_OPTIONS] : [])
  ].join(" ")
  return {
    ...(nodeOptions !== "" ? { NODE_OPTIONS: nodeOptions } : {}),
    ...(profileDir ? { BENCH_PROFILE_DIR: path.resolve(profileDir) } : {})
  }
}

export const mb = (bytes: number | undefined) => (bytes === undefined || Number.isNaN(bytes) ? "n/a" : `${(bytes / 1048576).toFixed(0)} MB`)

/** Prints rows as aligned columns under a header and a rule. */
export const printTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  console.log(line(header))
  console.log(line(widths.map((w) => "-".repeat(w))))
  for (const row of rows) console.log(line(row))
}

/** CPU time (user + system, ms) a process has used so far, from /proc; NaN elsewhere. */
export const cpuMillisOf = (pid: number): number => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    // utime and stime, fields 14 and 15 of the line (11 and 12 after the command), in clock ticks (100 per second)
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return NaN
  }
}

/** A plain node:http server in its own process, answering each path with the given bytes once the request's body is read. */
export const startPlainServer = async (bodies: ReadonlyMap<string, Buffer>) => {
  const file = path.join(os.tmpdir(), `waymark-bench-bodies-${process.pid}.json`)
  fs.writeFileSync(file, JSON.stringify(Object.fromEntries([...bodies].map(([k, v]) => [k, v.toString("base64")]))))
  const script = `
    const http = require("node:http")
    const bodies = new Map(Object.entries(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"))).map(([k, v]) => [k, Buffer.from(v, "base64")]))
    const server = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        const body = bodies.get(req.url)
        if (body === undefined) { res.writeHead(404); res.end(); return }
        res.writeHead(200, { "content-type": "application/json", "content-length": body.length })
        res.end(body)
      })
    })
    server.listen(0, "127.0.0.1", () => console.log(server.address().port))
  `
  const child = spawn(process.execPath, ["-e", script, file], { stdio: ["ignore", "pipe", "inherit"] })
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())))
    child.once("exit", (code) => reject(new Error(`the plain server exited (${code})`)))
  })
  return {
    base: `http://127.0.0.1:${port}`,
    stop: () => {
      child.kill("SIGKILL")
      fs.rmSync(file, { force: true })
    }
  }
}

const REPO = path.join(import.meta.dirname, "..")

/**
 * The built daemon of another commit (`ref`), to measure beside this build in the same run:
 * its files exported into a temporary folder (no worktree of the repository is made) and
 * built there, once per commit; its dependencies are this checkout's (a baseline's are a
 * subset of them). Null, said on the console, when it cannot be built.
 */
export const baselineBuild = (ref: string): { readonly main: string; readonly ref: string } | null => {
  try {
    const commit = execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], { cwd: REPO, encoding: "utf8" }).trim()
    const dir = path.join(os.tmpdir(), `waymark-baseline-${commit.slice(0, 12)}`)
    const main = path.join(dir, "dist", "main.js")
    if (!fs.existsSync(main)) {
      console.log(`building the baseline ${ref} (${commit.slice(0, 12)}) in ${dir} ...`)
      fs.rmSync(dir, { recursive: true, force: true })
      fs.mkdirSync(dir, { recursive: true })
      execSync(`git archive ${commit} | tar -x -C ${JSON.stringify(dir)}`, { cwd: REPO, stdio: "ignore" })
      fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"))
      execFileSync("npm", ["run", "build"], { cwd: dir, stdio: "ignore" })
    }
    // a baseline built from another checkout links to that checkout's packages, gone with it
    const modules = path.join(dir, "node_modules")
    if (!fs.existsSync(modules)) {
      fs.rmSync(modules, { force: true })
      fs.symlinkSync(path.join(REPO, "node_modules"), modules)
    }
    return { main, ref: `${ref} ${commit.slice(0, 12)}` }
  } catch (e) {
    console.log(`the baseline ${ref} could not be built (${(e as Error).message}); only this build is measured`)
    return null
  }
}

/** The daemon's API at `base` with the key `key`: authorised GETs and uploads. */
export const api = (base: string, key: string) => ({
  get: (p: string) => fetch(`${base}${p}`, { headers: { authorization: `Bearer ${key}` } }),
  upload: (name: string, bytes: Uint8Array) => {
    const form = new FormData()
    form.append("file", new Blob([bytes]), name)
    return fetch(`${base}/api/v1/activity/upload`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
  }
})

/**
 * The files whose import ended (success, skipped or failed): the import log lists the queued
 * files and every row. A file that failed young stays in the folder a while, in case it was
 * still being copied, but its row says `failed` at once: it counts as done.
 */
export const finishedRows = async (client: ReturnType<typeof api>): Promise<number> => {
  const total = async (query: string) =>
    ((await (await client.get(`/api/v1/file-imports?${query}pagination[size]=1`)).json()) as { pagination: { total: number } }).pagination.total
  return (await total("")) - (await total("filters[status]=queued&"))
}

/** One probe's answer: how long it took, its status (0: no answer), when it was sent (epoch ms). */
export interface Probe {
  readonly ms: number
  readonly status: number
  readonly at: number
}

/**
 * Probes `url` one request at a time on one kept-alive connection, 20 ms apart, in a worker
 * thread (so that the load the bench makes does not delay the probes' own timing), until
 * `stop` is called; resolves each probe's time and status.
 */
export const probeLoop = (base: string, url: string, headers: Readonly<Record<string, string>> = {}) => {
  const worker = new Worker(
    `
    const http = require("node:http")
    const { parentPort, workerData } = require("node:worker_threads")
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const probes = []
    let running = true
    parentPort.once("message", () => (running = false))
    const once = () => new Promise((resolve) => {
      const t0 = performance.now()
      const at = Date.now()
      const request = http.get(workerData.base + workerData.url, { agent, headers: workerData.headers }, (response) => {
        response.resume()
        response.on("end", () => resolve([performance.now() - t0, response.statusCode, at]))
      })
      request.on("error", () => resolve([performance.now() - t0, 0, at]))
    })
    ;(async () => {
      while (running) {
        probes.push(await once())
        await new Promise((r) => setTimeout(r, 20))
      }
      agent.destroy()
      parentPort.postMessage(probes)
    })()
    `,
    { eval: true, workerData: { base, url, headers } }
  )
  const done = new Promise<Array<Probe>>((resolve, reject) => {
    worker.once("message", (probes: Array<[number, number, number]>) => resolve(probes.map(([ms, status, at]) => ({ ms, status, at }))))
    worker.once("error", reject)
  })
  return {
    stop: async () => {
      worker.postMessage("stop")
      const probes = await done
      await worker.terminate()
      return probes
    }
  }
}
