import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../support/corpus.ts"
import { REPO_DIR, startChildDaemon } from "../support/ChildDaemon.ts"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { commandNames } from "../../src/runtime/Commands.ts"
import { docsPages, headingAnchors, pageLinks, README, readmeBlocks } from "./ReadmeCommands.ts"

const blocks = readmeBlocks()
/** The commands of the README and of every page under docs/ (the commands' list is in docs/OPERATIONS.md). */
const allBlocks = [README, ...docsPages()].flatMap((file) => readmeBlocks(file))
const curlBlocks = blocks.filter((b) => b.commands.some((c) => /\bcurl\b/.test(c)))

/** The lines a reader adapts to their own setup; the test sets KEY and API itself. */
const isReaderSetting = (command: string) => /^export (KEY|API)=/.test(command)

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

/**
 * One bash script running the commands in order, as a reader pasting them would; curl fails
 * on an HTTP error status (--fail-with-body), and the script stops at the first command that
 * exits non-zero, naming it. After the upload it waits for the import, as a reader would.
 */
const scriptOf = (commands: ReadonlyArray<string>, baseUrl: string) =>
  [
    "set -o pipefail",
    "curl() { command curl --fail-with-body --max-time 20 \"$@\"; }",
    ...commands.filter((c) => !isReaderSetting(c)).flatMap((command) => {
      const line = command.replaceAll("http://localhost:8080", baseUrl)
      return [
        line,
        `rc=$?; if [ $rc -ne 0 ]; then echo; echo "README command failed with exit code $rc: "${quote(command)} >&2; exit 1; fi`,
        ...(/activity\/upload/.test(command)
          ? ["for i in $(seq 1 150); do command curl -sg \"${auth[@]}\" \"$API/file-imports?filters[status]=success\" | grep -q '\"status\":\"success\"' && break; sleep 0.2; done"]
          : [])
      ]
    })
  ].join("\n")

const runBash = (script: string, cwd: string, env: Record<string, string>) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn("bash", ["-c", script], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const relative = (file: string) => path.relative(REPO_DIR, file)

describe("README", () => {
  it("keeps to what a newcomer needs, under 400 lines: what it is, the commands, the walk-through, the settings, where to read more", () => {
    const text = fs.readFileSync(README, "utf8")
    expect(text.split("\n").length).toBeLessThan(400)
    const headings = [...text.matchAll(/^## (.*)$/gm)].map((m) => m[1])
    for (const heading of ["Quick start", "Walk-through with curl", "Configuration", "Where to read more"]) {
      expect(headings).toContain(heading)
    }
  })

  it("links every page under docs/", () => {
    const linked = new Set(pageLinks(README).map((l) => path.resolve(REPO_DIR, l.target.split("#")[0]!)))
    for (const page of docsPages()) expect(linked.has(page), relative(page)).toBe(true)
  })

  it("has no link, in the README or under docs/, to a file or heading that does not exist", () => {
    const checked: Array<string> = []
    for (const file of [README, ...docsPages()]) {
      for (const { line, target } of pageLinks(file)) {
        if (/^[a-z]+:/i.test(target)) continue
        const [where, anchor] = target.split("#") as [string, string | undefined]
        const resolved = where === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(where))
        const at = `${relative(file)}:${line} -> ${target}`
        expect(fs.existsSync(resolved), at).toBe(true)
        if (anchor !== undefined && anchor !== "" && resolved.endsWith(".md")) {
          expect([...headingAnchors(resolved)], at).toContain(anchor)
        }
        checked.push(at)
      }
    }
    expect(checked.length).toBeGreaterThan(15)
  })

  it("has a walk-through with curl commands", () => {
    expect(curlBlocks.length).toBeGreaterThan(0)
    expect(curlBlocks.flatMap((b) => b.commands).filter((c) => /\bcurl\b/.test(c)).length).toBeGreaterThan(10)
  })

  it("names only npm scripts that package.json defines", () => {
    const scripts = Object.keys(JSON.parse(fs.readFileSync(path.join(REPO_DIR, "package.json"), "utf8")).scripts)
    const named = allBlocks.flatMap((b) => b.commands).flatMap((c) => [...c.matchAll(/\bnpm run (?:--silent )?([\w:-]+)/g)].map((m) => m[1]!))
    expect(named.length).toBeGreaterThan(0)
    for (const name of named) expect(scripts, `npm run ${name}`).toContain(name)
  })

  it("names only commands that the command line has", () => {
    const named = allBlocks.flatMap((b) => b.commands).flatMap((c) => [...c.matchAll(/\bnpm run (?:--silent )?cli -- ([\w:-]+)/g)].map((m) => m[1]!))
    expect(named.length).toBeGreaterThan(0)
    for (const name of named) expect([...commandNames, "--help"], `npm run cli -- ${name}`).toContain(name)
  })

  it("gives curl every URL with brackets with -g (curl reads unescaped brackets as a range)", () => {
    for (const command of allBlocks.flatMap((b) => b.commands).filter((c) => /\bcurl\b/.test(c))) {
      for (const segment of command.split("|")) {
        if (/\bcurl\b/.test(segment) && /\[[^\]]*\]/.test(segment.replace(/"\$\{auth\[@\]\}"/g, ""))) {
          expect(segment, command).toMatch(/\bcurl\s+(-\w*g\w*|--globoff)\b/)
        }
      }
    }
  })

  describe.skipIf(!CORPUS_DIR)("commands against a started daemon", () => {
    if (!CORPUS_DIR) it.skip(CORPUS_MISSING_MESSAGE, () => {})

    it.scopedLive("every curl command of the walk-through runs as printed and succeeds", () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-readme-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
        const work = path.join(dir, "work")
        fs.mkdirSync(work)
        fs.writeFileSync(path.join(work, "morning-ride.fit"), readCorpusFile("fit/garmin-edge1000-ride.fit"))
        // a JPEG is recognised by its first bytes
        fs.writeFileSync(path.join(work, "summit.jpg"), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 1)]))
        const key = generateApiKey()
        const daemon = yield* startChildDaemon({
          apiKey: key,
          cwd: dir,
          env: { STORAGE_DIR: path.join(dir, "storage"), WATCH_DIR: path.join(dir, "watch"), TZ: "UTC", SERVICE_API_KEY: key }
        })
        for (const block of curlBlocks) {
          const result = yield* runBash(scriptOf(block.commands, daemon.baseUrl), work, { KEY: key, API: `${daemon.baseUrl}/api/v1` })
          expect(result.stderr + (result.code === 0 ? "" : result.stdout.slice(-2000)), block.heading).not.toContain("README command failed")
          expect(result.code).toBe(0)
        }
        // the walk-through saved the route and deleted what it created
        expect(fs.readdirSync(work).some((f) => f.endsWith(".gpx"))).toBe(true)
        const activities = yield* daemon.get("/api/v1/activities")
        expect(activities.json.activities).toEqual([])
      }), 120_000)
  })
})
