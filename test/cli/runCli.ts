import { type ChildProcess, spawn, spawnSync, type SpawnSyncReturns } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"
import { REPO_DIR } from "../support/ChildDaemon.ts"

const TSX = path.join(REPO_DIR, "node_modules", ".bin", "tsx")
const CLI = path.join(REPO_DIR, "src", "cli.ts")

/**
 * Runs `npm run cli -- <args>` as a person would (through tsx), with only the given
 * environment (plus PATH and HOME), its output piped (not a terminal) and no stdin.
 */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string; readonly input?: string } = {}
): SpawnSyncReturns<string> =>
  spawnSync(TSX, [CLI, ...args], {
    cwd: options.cwd ?? os.tmpdir(),
    env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...options.env },
    encoding: "utf8",
    timeout: 60_000,
    input: options.input ?? ""
  })

/** `npm run cli -- <args>` as a running process (through tsx), with only the given environment (plus PATH and HOME). */
export const spawnCli = (args: ReadonlyArray<string>, options: { readonly env?: Record<string, string> } = {}): ChildProcess =>
  spawn(TSX, [CLI, ...args], {
    cwd: os.tmpdir(),
    env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
