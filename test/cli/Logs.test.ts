import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { localTime, parseSince, readableLine } from "../../src/cli/LogsCommand.ts"
import { runCli, spawnCli } from "./runCli.ts"

const entry = (at: Date, level: string, channel: string, message: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ timestamp: at.toISOString(), level, message, annotations: {}, spans: {}, ...extra, channel })

const utcDay = (d: Date) => d.toISOString().slice(0, 10)

describe("app:logs", () => {
  it("prints every channel's JSON lines as readable lines in the local time zone, oldest first; a channel alone; --since keeps the last while", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-logs-"))
    try {
      const logs = path.join(dir, "storage", "files", "logs")
      fs.mkdirSync(logs, { recursive: true })
      const now = new Date()
      const old = new Date(now.getTime() - 3 * 3_600_000)
      const recent = new Date(now.getTime() - 60_000)
      fs.writeFileSync(
        path.join(logs, `daemon-${utcDay(old)}.log`),
        entry(old, "INFO", "daemon", "waymark v1 started") + "\n" +
          entry(recent, "WARN", "daemon", `imported "a.fit": failed (no records)`, { annotations: { fileImportId: "fi-1" } }) + "\n"
      )
      fs.writeFileSync(path.join(logs, `errors-${utcDay(old)}.log`), entry(new Date(old.getTime() + 1000), "ERROR", "errors", "boom", { cause: "Error: boom" }) + "\n")
      const env = { STORAGE_DIR: path.join(dir, "storage"), TZ: "America/New_York" }

      const all = runCli(["app:logs"], { env })
      expect(all.status, all.stderr).toBe(0)
      const lines = all.stdout.trimEnd().split("\n")
      // New York is behind UTC: the local hour differs from the stored one
      const localOld = new Date(old.toLocaleString("en-US", { timeZone: "America/New_York" }))
      expect(lines[0]).toBe(`${localTime(localOld)} INFO    [daemon] waymark v1 started`)
      expect(lines[1]).toMatch(/ERROR +\[errors\] boom$/)
      expect(lines[2]).toBe("    Error: boom")
      expect(lines[3]).toMatch(/WARNING \[daemon\] imported "a\.fit": failed \(no records\) fileImportId=fi-1$/)
      expect(all.stdout).not.toContain("{")

      const daemonOnly = runCli(["app:logs", "daemon"], { env })
      expect(daemonOnly.stdout).not.toContain("boom")
      expect(daemonOnly.stdout.trimEnd().split("\n")).toHaveLength(2)

      const lastHour = runCli(["app:logs", "--since", "1h"], { env })
      expect(lastHour.status).toBe(0)
      expect(lastHour.stdout.trimEnd().split("\n")).toHaveLength(1)
      expect(lastHour.stdout).toContain(`imported "a.fit"`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("--follow prints the lines there, then each line written to the file while it runs (a line half written only once whole, a new day's file too), until it is stopped", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-logs-"))
    const child = { process: undefined as ReturnType<typeof spawnCli> | undefined }
    try {
      const logs = path.join(dir, "storage", "files", "logs")
      fs.mkdirSync(logs, { recursive: true })
      const now = new Date()
      const today = path.join(logs, `daemon-${utcDay(now)}.log`)
      fs.writeFileSync(today, entry(now, "INFO", "daemon", "already there") + "\n")
      const follower = spawnCli(["app:logs", "daemon", "--follow"], { env: { STORAGE_DIR: path.join(dir, "storage"), TZ: "UTC" } })
      child.process = follower
      let stdout = ""
      let stderr = ""
      follower.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
      follower.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        follower.once("exit", (code, signal) => resolve({ code, signal }))
      )
      const printed = async (text: string) => {
        for (const deadline = Date.now() + 45_000; !stdout.includes(text);) {
          if (Date.now() > deadline) throw new Error(`"${text}" never printed; stdout: ${stdout}; stderr: ${stderr}`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
      await printed("already there")

      fs.appendFileSync(today, entry(new Date(), "WARN", "daemon", "written while following") + "\n")
      await printed("written while following")
      // half a line waits for its end
      const half = entry(new Date(), "INFO", "daemon", "written in two parts")
      fs.appendFileSync(today, half.slice(0, 20))
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(stdout).not.toContain(half.slice(0, 20))
      fs.appendFileSync(today, half.slice(20) + "\n")
      await printed("written in two parts")
      // the next day's file is picked up without a restart
      const tomorrow = new Date(now.getTime() + 86_400_000)
      fs.writeFileSync(path.join(logs, `daemon-${utcDay(tomorrow)}.log`), entry(tomorrow, "INFO", "daemon", "in the next day's file") + "\n")
      await printed("in the next day's file")

      const lines = stdout.trimEnd().split("\n")
      expect(lines).toHaveLength(4)
      expect(lines[0]).toMatch(/ INFO +\[daemon\] already there$/)
      expect(lines[1]).toMatch(/ WARNING \[daemon\] written while following$/)
      expect(lines[2]).toMatch(/ INFO +\[daemon\] written in two parts$/)
      expect(lines[3]).toMatch(/ INFO +\[daemon\] in the next day's file$/)

      follower.kill("SIGTERM")
      const exit = await exited
      expect(exit.code, stderr).toBe(0)
      expect(stderr).toBe("")
    } finally {
      if (child.process !== undefined && child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL")
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("an unknown channel or a --since that is not a duration is a usage error, exit code 2", () => {
    const bad = runCli(["app:logs", "--since", "yesterday"])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain("--since takes a duration such as 30s, 15m, 1h or 2d")
    const unknown = runCli(["app:logs", "nonsense"])
    expect(unknown.status).toBe(2)
  }, 60_000)

  it("reads durations and leaves a line that is not an entry as it is", () => {
    expect(parseSince("90s")).toBe(90_000)
    expect(parseSince("2d")).toBe(172_800_000)
    expect(parseSince("1 week")).toBeNull()
    expect(readableLine("not json").text).toBe("not json")
  })
})

describe("exit codes", () => {
  it("app:activities:reprocess without ids or --all is a usage error, exit code 2", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-cli-"))
    try {
      const result = runCli(["app:activities:reprocess"], { env: { STORAGE_DIR: path.join(dir, "storage") } })
      expect(result.status).toBe(2)
      expect(result.stderr).toContain("Name the activities to reprocess, or pass --all.")
      expect(result.stderr).toContain("Usage: waymark app:activities:reprocess")
      // refused before anything was opened
      expect(fs.existsSync(path.join(dir, "storage"))).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
