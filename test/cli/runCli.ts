import { type ChildProcess, spawn, spawnSync, type SpawnSyncReturns } from "node:child_process"
import * as os from "node:os"
import { programFile } from "../support/programs.ts"

const CLI = programFile("cli")

/**
 * Runs the command line (`npm run cli -- <args>`, here built: `node dist/cli.js`), with only the given
 * environment (plus PATH and HOME), its output piped (not a terminal) and no stdin.
 */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string; readonly input?: string } = {}
): SpawnSyncReturns<string> =>
  spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? os.tmpdir(),
    env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...options.env },
    encoding: "utf8",
    timeout: 120_000,
    input: options.input ?? ""
  })

/** The command line (`node dist/cli.js <args>`) as a running process, with only the given environment (plus PATH and HOME). */
export const spawnCli = (args: ReadonlyArray<string>, options: { readonly env?: Record<string, string> } = {}): ChildProcess =>
  spawn(process.execPath, [CLI, ...args], {
    cwd: os.tmpdir(),
    env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
