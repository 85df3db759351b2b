// Loads a TypeScript worker entry (the parse and training workers) when the daemon runs from
// source (tests, tsx); the built daemon (dist/) starts its compiled worker entry directly.
//
// The entry and everything it imports are bundled by esbuild into one module, kept in the
// system's temporary folder and built again only when one of its inputs changed: a worker that
// loaded its thousand modules one by one through tsx's loader cost about 3 s of processor time
// to start (the test daemons start one for their first file, and one for each worker replaced),
// where one module costs a tenth of that. Each source module keeps its own `import.meta.url`
// (the city data and the libraries it requires are found beside the sources), and a bundle is
// written whole under a new name before it is named as current, so that daemons of several
// processes starting workers side by side never read half of one.
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { workerData } from "node:worker_threads"

const entry = fileURLToPath(workerData.entry)
const base = path.join(os.tmpdir(), `waymark-worker-${crypto.createHash("sha1").update(entry).digest("hex").slice(0, 16)}`)
const currentFile = `${base}.json`

/** The bundle named as current, when none of its inputs changed since it was built. */
const current = () => {
  try {
    const { bundle, inputs } = JSON.parse(fs.readFileSync(currentFile, "utf8"))
    for (const [file, mtimeMs, size] of inputs) {
      const stat = fs.statSync(file)
      if (stat.mtimeMs !== mtimeMs || stat.size !== size) return null
    }
    return fs.existsSync(bundle) ? bundle : null
  } catch {
    return null
  }
}

const writeWhole = (file, contents) => {
  const part = `${file}.${process.pid}.${crypto.randomUUID()}.part`
  fs.writeFileSync(part, contents)
  fs.renameSync(part, file)
}

const build = async () => {
  const esbuild = await import("esbuild")
  const sourceRoot = path.resolve(path.dirname(entry), "../..")
  // each source module's own URL where it reads `import.meta.url`, as it would unbundled
  const ownUrls = {
    name: "own-import-meta-url",
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        if (!args.path.startsWith(sourceRoot + path.sep)) return undefined
        const text = fs.readFileSync(args.path, "utf8")
        return {
          contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
          loader: args.path.endsWith("ts") ? "ts" : "js"
        }
      })
    }
  }
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: `node${process.versions.node.split(".")[0]}`,
    write: false,
    metafile: true,
    // no `__name` around every function made at run time: it cost the parsers' loops about a
    // sixth of their time, and nothing reads a function's name
    logLevel: "silent",
    // the libraries bundled from CommonJS require Node's own modules
    banner: { js: `import { createRequire as __workerRequire } from "node:module"; const require = __workerRequire(${JSON.stringify(pathToFileURL(entry).href)});` },
    plugins: [ownUrls]
  })
  // its service process is not left running beside the worker
  await esbuild.stop()
  const contents = result.outputFiles[0].contents
  // this file too: a change of how the bundle is made makes it again
  const inputs = [...Object.keys(result.metafile.inputs), fileURLToPath(import.meta.url)].map((input) => {
    const file = path.resolve(input)
    const stat = fs.statSync(file)
    return [file, stat.mtimeMs, stat.size]
  })
  const bundle = `${base}-${crypto.createHash("sha1").update(contents).digest("hex").slice(0, 16)}.mjs`
  if (!fs.existsSync(bundle)) writeWhole(bundle, contents)
  writeWhole(currentFile, JSON.stringify({ bundle, inputs }))
  // the bundles of earlier sources, once no worker can still be about to load one
  const folder = path.dirname(base)
  for (const name of fs.readdirSync(folder)) {
    const file = path.join(folder, name)
    if (file !== bundle && name.startsWith(path.basename(base) + "-") && name.endsWith(".mjs")) {
      try {
        if (Date.now() - fs.statSync(file).mtimeMs > 600_000) fs.rmSync(file, { force: true })
      } catch {
        // another process removed it first
      }
    }
  }
  return bundle
}

const bundle = current() ?? (await build())
await import(pathToFileURL(bundle).href)
