import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { programFile } from "../support/programs.ts"
import { runCli } from "../cli/runCli.ts"

const ESC = "\u001b["

/** `script` (util-linux) gives the command a terminal; without it the colour test cannot run. */
const HAS_SCRIPT = spawnSync("script", ["--version"]).status === 0
if (!HAS_SCRIPT) console.warn("[command line] skipped: the colour test needs `script` (util-linux) to give the CLI a terminal")
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-cli-"))

const noEmptyErrorLine = (output: string) => expect(output.split("\n").filter((l) => /^\[error\]\s*$/.test(l))).toEqual([])

describe("command line", () => {
  it("a confirmation without a terminal refuses at once, says to pass --yes, exit code 2", () => {
    const dir = tempDir()
    try {
      const started = Date.now()
      const result = runCli(["app:external:webhooks-delete", "123"], { env: { STORAGE_DIR: path.join(dir, "storage") } })
      expect(result.status).toBe(2)
      expect(result.stderr.trim()).toBe("This command asks for a confirmation, but there is no terminal to ask on: pass --yes to confirm.")
      expect(Date.now() - started).toBeLessThan(30_000)
      noEmptyErrorLine(result.stdout + result.stderr)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("a missing argument is a usage error with the command's usage, not a dump, exit code 2", () => {
    const result = runCli(["app:external:webhooks-delete"])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain("Missing argument <subscription-id>")
    expect(result.stderr).toContain("Usage: waymark app:external:webhooks-delete [(-y, --yes)] <subscription-id>")
    expect(result.stdout + result.stderr).not.toContain("_tag")
    expect(result.stdout + result.stderr).not.toContain("timestamp=")
    noEmptyErrorLine(result.stdout + result.stderr)
  })

  it("an unknown command is a usage error listing the commands, exit code 2", () => {
    const result = runCli(["app:nothing"])
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/Usage: waymark <command> \[options\], one of: app:setup, /)
  })

  it("--help into a pipe has no colour codes", () => {
    const result = runCli(["--help"])
    expect(result.status).toBe(0)
    expect(result.stdout).toContain("app:setup")
    expect(result.stdout).not.toContain(ESC)
  })

  it.skipIf(!HAS_SCRIPT)("--help on a terminal is coloured unless NO_COLOR is set", () => {
    const onTerminal = (env: string) =>
      spawnSync("script", ["-qec", `${env} ${process.execPath} ${programFile("cli")} --help`, "/dev/null"], {
        cwd: os.tmpdir(),
        env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), TERM: "xterm" },
        encoding: "utf8",
        timeout: 60_000
      })
    const coloured = onTerminal("")
    expect(coloured.status).toBe(0)
    expect(coloured.stdout).toContain(ESC)
    const plain = onTerminal("NO_COLOR=1")
    expect(plain.status).toBe(0)
    expect(plain.stdout).toContain("app:setup")
    expect(plain.stdout).not.toContain(ESC)
  })

  it("a command that fails says why in one line, exit code 1", () => {
    const dir = tempDir()
    try {
      const result = runCli(["app:external:webhooks-view"], { env: { STORAGE_DIR: path.join(dir, "storage"), PORT: "eighty" } })
      expect(result.status).toBe(1)
      expect(result.stderr.trim()).toBe('error: invalid configuration: PORT must be a whole number from 0 to 65535, got "eighty"')
      noEmptyErrorLine(result.stdout + result.stderr)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
