import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as zlib from "node:zlib"

/**
 * Bundles the dashboard's browser code and styles (with Leaflet's and uPlot's) into
 * dist/dashboard, minified, each beside a gzipped copy that the daemon sends to browsers that
 * take it. Prints the compressed weight of scripts and styles together.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const CLIENT = path.join(ROOT, "src/http/dashboard/client")
export const DASHBOARD_OUT = path.join(ROOT, "dist/dashboard")

export interface BuiltDashboard {
  /** bytes of app.js + app.css, gzipped */
  readonly compressedBytes: number
  readonly rawBytes: number
}

export const buildDashboard = async (outDir = DASHBOARD_OUT): Promise<BuiltDashboard> => {
  fs.mkdirSync(outDir, { recursive: true })
  await esbuild.build({
    entryPoints: { app: path.join(CLIENT, "main.ts") },
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022", "chrome110", "firefox115", "safari16"],
    outdir: outDir,
    logLevel: "warning",
    legalComments: "none"
  })
  await esbuild.build({
    entryPoints: { app: path.join(CLIENT, "styles.css") },
    bundle: true,
    minify: true,
    outdir: outDir,
    loader: { ".png": "dataurl", ".svg": "dataurl" },
    logLevel: "warning"
  })
  fs.copyFileSync(path.join(CLIENT, "icon.svg"), path.join(outDir, "icon.svg"))
  let compressedBytes = 0
  let rawBytes = 0
  for (const name of ["app.js", "app.css", "icon.svg"]) {
    const bytes = fs.readFileSync(path.join(outDir, name))
    const gzipped = zlib.gzipSync(bytes, { level: 9 })
    fs.writeFileSync(path.join(outDir, `${name}.gz`), gzipped)
    if (name !== "icon.svg") {
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
