/**
 * Preloaded into the daemon by a bench when BENCH_MODULES_FILE is set (`--import`): counts the
 * modules (ESM and CommonJS, the daemon's and its dependencies', not Node's own) parsed from
 * the start, through the inspector's `Debugger.scriptParsed`, and writes their URLs, one a
 * line, to that file at exit.
 */
import * as fs from "node:fs"
import * as inspector from "node:inspector"

const file = process.env.BENCH_MODULES_FILE
if (file) {
  const urls = new Set()
  const session = new inspector.Session()
  session.connect()
  session.on("Debugger.scriptParsed", ({ params }) => {
    if (params.url.startsWith("file://") || params.url.startsWith("/")) urls.add(params.url)
  })
  session.post("Debugger.enable")
  process.once("exit", () => fs.writeFileSync(file, [...urls].join("\n") + "\n"))
}
