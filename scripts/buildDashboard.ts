import * as HttpApi from "@effect/platform/HttpApi"
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as zlib from "node:zlib"
import { WaymarkApi } from "../src/http/Api.ts"

/**
 * Bundles the dashboard's browser code and styles (with Leaflet's and uPlot's) into
 * dist/dashboard, minified, each beside a gzipped copy that the daemon sends to browsers that
 * take it. The code is split: app.js holds the router and what every page shares, each page
 * is a file of its own loaded when it is first opened, and the map and chart libraries are
 * files of their own loaded by the pages that draw with them (map.css with the map). The
 * method and path of every endpoint are written into the bundle from the HttpApi's
 * declaration (the module `waymark:endpoints`), so that the client calls endpoints by name.
 * Prints the compressed weight of every script and style together.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const CLIENT = path.join(ROOT, "src/http/dashboard/client")
export const DASHBOARD_OUT = path.join(ROOT, "dist/dashboard")

export interface BuiltDashboard {
  /** bytes of every script and style, gzipped */
  readonly compressedBytes: number
  readonly rawBytes: number
}

/** Every endpoint's method and declared path, by `<group>.<endpoint>`. */
export const endpointTable = (): Record<string, readonly [string, string]> => {
  const table: Record<string, readonly [string, string]> = {}
  HttpApi.reflect(WaymarkApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      table[`${group.identifier}.${endpoint.name}`] = [endpoint.method, endpoint.path]
    }
  })
  return table
}

/** The module `waymark:endpoints`, made at build time. */
const endpointsModule: esbuild.Plugin = {
  name: "waymark-endpoints",
  setup: (build) => {
    build.onResolve({ filter: /^waymark:endpoints$/ }, (args) => ({ path: args.path, namespace: "waymark" }))
    build.onLoad({ filter: /.*/, namespace: "waymark" }, () => ({ contents: `export const ENDPOINTS = ${JSON.stringify(endpointTable())}`, loader: "js" }))
  }
}

export const buildDashboard = async (outDir = DASHBOARD_OUT): Promise<BuiltDashboard> => {
  fs.mkdirSync(outDir, { recursive: true })
  const scripts = await esbuild.build({
    entryPoints: { app: path.join(CLIENT, "main.ts") },
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    target: ["es2022", "chrome110", "firefox115", "safari16"],
    outdir: outDir,
    chunkNames: "chunk-[hash]",
    plugins: [endpointsModule],
    metafile: true,
    logLevel: "warning",
    legalComments: "none"
  })
  const styles = await esbuild.build({
    entryPoints: { app: path.join(CLIENT, "styles.css"), map: path.join(CLIENT, "map.css") },
    bundle: true,
    minify: true,
    outdir: outDir,
    loader: { ".png": "dataurl", ".svg": "dataurl" },
    metafile: true,
    logLevel: "warning"
  })
  fs.copyFileSync(path.join(CLIENT, "icon.svg"), path.join(outDir, "icon.svg"))
  const built = [...Object.keys(scripts.metafile.outputs), ...Object.keys(styles.metafile.outputs)].map((file) => path.basename(file)).concat("icon.svg")
  // chunks are named by their content: those of an earlier build go (another build at the same time writes the same names)
  for (const name of fs.readdirSync(outDir)) {
    if (!built.includes(name.replace(/\.gz$/, ""))) fs.rmSync(path.join(outDir, name), { force: true })
  }
  let compressedBytes = 0
  let rawBytes = 0
  for (const name of built) {
    const bytes = fs.readFileSync(path.join(outDir, name))
    const gzipped = zlib.gzipSync(bytes, { level: 9 })
    fs.writeFileSync(path.join(outDir, `${name}.gz`), gzipped)
    if (/\.(js|css)$/.test(name)) {
      compressedBytes += gzipped.length
      rawBytes += bytes.length
    }
  }
  return { compressedBytes, rawBytes }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const built = await buildDashboard()
  console.log(`dashboard: scripts and styles ${(built.rawBytes / 1024).toFixed(1)} KB, ${(built.compressedBytes / 1024).toFixed(1)} KB gzipped`)
}
