import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Compiles each program (src/<program>.ts: the daemon, the command line, the two connectors)
 * into dist/<program>.js and the files they share or load when first needed (dist/chunk-*.js:
 * each `import()` of the sources, a file of its own), beside the compiled modules of `tsc`,
 * which the parse and training workers and the tests still run. One esbuild run for all of
 * them: a chunk holds the modules reached from the same programs, so each program loads at
 * start only the code it imports (the command line none of the daemon's HTTP server, a
 * connector none of the import pipeline). A few dozen files hold what a thousand modules held:
 * a program loads, parses and keeps in memory the code it runs without the libraries' comments
 * and documentation (V8 keeps every module's source as long as the process lives, and a source
 * with a single character beyond Latin-1 twice over), and a command that starts, prints and
 * ends costs a third of the processor time it did.
 *
 * - The output files lie in dist/ itself, so that a module's `import.meta.url` can stand for
 *   the compiled module it replaces (`./services/import/ParseWorker.js` beside them): the
 *   workers' entries, the dashboard's assets, the city data and package.json are found where
 *   they were.
 * - Native packages (better-sqlite3, resvg) and the watcher chosen at run time stay in
 *   node_modules; so does what is loaded by `createRequire` (the country borders), every
 *   library the sources load by `import()` at first use (the YAML writer, the zip reader, the
 *   metadata and XML parsers: in a bundle a CommonJS one would lose its named exports), and
 *   OpenTelemetry's packages (loaded with an exporter; one copy of their global API). None of
 *   them imports Effect: each program has one copy of it, in the bundle.
 * - Three libraries that Effect's modules import when they load and the programs do not use
 *   at rest are loaded from node_modules on their first use instead: fast-check (Effect's
 *   Schema imports it for its arbitraries: 240 modules), undici (the Node HTTP server's
 *   module imports its HTTP client: 110) and ws (the server's WebSockets). Each stands behind
 *   a module that forwards every name Effect's modules use to the library, required then.
 * - No `keepNames`: it wraps every function made at run time in a call that names it, and the
 *   schemas' decoding makes several for each parameter it checks: the activities' search
 *   asked 27 % more processor time per request than the modules compiled one by one.
 *   Nothing reads a function's or a class's name (errors carry their tag), and esbuild renames
 *   a name only where two modules' top levels would clash. Not minified into one line: a
 *   stack trace still has lines.
 */

/** The programs, each bundled from src/<program>.ts into dist/<program>.js. */
export const PROGRAMS = ["main", "cli", "polar", "wahoo"] as const

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const SRC = path.join(ROOT, "src")
const DIST = path.join(ROOT, "dist")

/** The names Effect's modules (effect, @effect/platform-node) use of each library loaded at first use. */
const LAZY: Record<string, ReadonlyArray<string>> = {
  "fast-check": [
    "anything", "array", "bigInt", "boolean", "constant", "constantFrom", "date", "double", "float", "integer", "letrec",
    "maxSafeNat", "object", "oneof", "record", "string", "stringMatching", "tuple", "uint", "ulid", "uuid", "webUrl"
  ],
  undici: ["Agent", "getGlobalDispatcher"],
  ws: ["WebSocket", "WebSocketServer"]
}

/** A module standing for `library`: each name a function (or class) that requires the library on its first call. */
const forwarder = (library: string, names: ReadonlyArray<string>) =>
  [
    `import { createRequire } from "node:module"`,
    `let loaded`,
    `const lib = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(library)}))`,
    `const forward = (name) => new Proxy(function () {}, {`,
    `  apply: (_, self, args) => Reflect.apply(lib()[name], self, args),`,
    `  construct: (_, args) => Reflect.construct(lib()[name], args),`,
    `  get: (_, key) => lib()[name][key]`,
    `})`,
    ...names.map((name) => `export const ${name} = forward(${JSON.stringify(name)})`),
    `export default new Proxy({}, { get: (_, key) => lib()[key], has: (_, key) => key in lib() })`
  ].join("\n")

const lazyLibraries: esbuild.Plugin = {
  name: "lazy-libraries",
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(LAZY).join("|")})$`)
    build.onResolve({ filter }, (args) =>
      /[\\/]node_modules[\\/](effect|@effect)[\\/]/.test(args.importer) ? { path: args.path, namespace: "lazy-library" } : undefined)
    build.onLoad({ filter: /.*/, namespace: "lazy-library" }, (args) => ({ contents: forwarder(args.path, LAZY[args.path]!), loader: "js", resolveDir: DIST }))
  }
}

/** Libraries loaded from node_modules at run time, as Node loads them. */
const fromNodeModules: esbuild.Plugin = {
  name: "from-node-modules",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:")) return undefined
      const lazy = args.kind === "dynamic-import" && args.importer.startsWith(SRC + path.sep) && !/^(effect|@effect)(\/|$)/.test(args.path)
      return lazy || args.path.startsWith("@opentelemetry/") ? { path: args.path, external: true } : undefined
    })
  }
}

/** `import.meta.url` in a source file: the URL of the module `tsc` compiles it to, relative to the output file (in dist/). */
const moduleUrls: esbuild.Plugin = {
  name: "module-urls",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(SRC + path.sep)) return undefined
      const source = fs.readFileSync(args.path, "utf8")
      if (!source.includes("import.meta.url")) return undefined
      const compiled = "./" + path.relative(SRC, args.path).split(path.sep).join("/").replace(/\.ts$/, ".js")
      return { contents: source.replaceAll("import.meta.url", `new URL(${JSON.stringify(compiled)}, import.meta.url).href`), loader: "ts" }
    })
  }
}

/** The output files `entry` loads at start (itself and the chunks it imports, not those it loads by `import()`). */
const loadedAtStart = (outputs: esbuild.Metafile["outputs"], entry: string): ReadonlySet<string> => {
  const loaded = new Set<string>()
  const visit = (file: string) => {
    if (loaded.has(file)) return
    loaded.add(file)
    for (const imported of outputs[file]?.imports ?? []) if (imported.kind === "import-statement" && !imported.external) visit(imported.path)
  }
  visit(entry)
  return loaded
}

export const bundlePrograms = async () => {
  for (const name of fs.readdirSync(DIST)) if (/^chunk-.*\.js$/.test(name)) fs.rmSync(path.join(DIST, name))
  const result = await esbuild.build({
    entryPoints: Object.fromEntries(PROGRAMS.map((program) => [program, path.join(SRC, `${program}.ts`)])),
    absWorkingDir: ROOT,
    outdir: DIST,
    chunkNames: "chunk-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["better-sqlite3", "@resvg/resvg-js", "fsevents"],
    minifySyntax: true,
    legalComments: "none",
    charset: "ascii",
    // the libraries written as CommonJS require Node's modules
    banner: { js: `import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);` },
    plugins: [lazyLibraries, fromNodeModules, moduleUrls],
    metafile: true,
    logLevel: "warning"
  })
  const outputs = result.metafile.outputs
  const megabytes = (files: Iterable<string>) => ([...files].reduce((sum, file) => sum + outputs[file]!.bytes, 0) / 1048576).toFixed(1)
  for (const program of PROGRAMS) {
    const entry = path.relative(ROOT, path.join(DIST, `${program}.js`)).split(path.sep).join("/")
    const atStart = loadedAtStart(outputs, entry)
    console.log(`${program}: ${entry}, ${atStart.size} files loaded at start (${megabytes(atStart)} MB)`)
  }
  console.log(`${Object.keys(outputs).length} files in all, ${megabytes(Object.keys(outputs))} MB`)
}

if (import.meta.url === `file://${process.argv[1]}`) await bundlePrograms()
