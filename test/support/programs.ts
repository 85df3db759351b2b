import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { PROGRAMS } from "../../scripts/bundlePrograms.ts"

export const REPO_DIR = fileURLToPath(new URL("../..", import.meta.url))

/** The programs `npm run build` bundles into dist/ (the daemon, the command line, the connectors). */
export type Program = (typeof PROGRAMS)[number]

/**
 * A program as `npm start` (and the image) runs it: `node dist/<program>.js`. The suite's global
 * setup (test/support/buildOnce.ts) builds dist/ once before the files that spawn programs run,
 * so a child starts at once instead of compiling a thousand modules through tsx.
 */
export const programFile = (program: Program): string => path.join(REPO_DIR, "dist", `${program}.js`)

/**
 * The dashboard's bundle in dist/dashboard, which the daemon serves: built with dist/ by the
 * global setup; a test file that serves the dashboard calls this first, so that it runs after the build.
 */
export const builtDashboard = (): void => {
  if (!fs.existsSync(path.join(REPO_DIR, "dist", "dashboard", "app.js"))) {
    throw new Error("dist/dashboard is not built: run the tests through vitest (its global setup builds dist/) or run npm run build")
  }
}
