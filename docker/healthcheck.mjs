// Container health check of the Waymark image. The image runs one of three programs; this
// finds which one is running (from the processes of the container) and asks its own probe:
//   daemon  http://<HOST>:<PORT>/healthz            (PORT 8080)
//   polar   http://<HTTP_ADDR>/healthz              (HTTP_ADDR 0.0.0.0:8080; `off`: alive is healthy)
//   wahoo   https or http://127.0.0.1:<PORT>/healthz (PORT 8085, its own self-signed certificate)
// Exit code 0 healthy, 1 unhealthy, as Docker expects.
import * as fs from "node:fs"
import * as http from "node:http"
import * as https from "node:https"

const TIMEOUT_MS = 4000
const env = process.env

/** The program of the first process whose command line runs dist/<program>.js. */
export const runningProgram = (procDir = "/proc") => {
  for (const pid of fs.readdirSync(procDir).filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(a) - Number(b))) {
    let args
    try {
      args = fs.readFileSync(`${procDir}/${pid}/cmdline`, "utf8").split("\0")
    } catch {
      continue
    }
    for (const arg of args) {
      const match = /(?:^|\/)dist\/(main|polar|wahoo)\.js$/.exec(arg)
      if (match) return match[1] === "main" ? "daemon" : match[1]
    }
  }
  return undefined
}

/** An address to reach a listener bound to `host` from inside the container. */
const reachable = (host) => (host === "" || host === "0.0.0.0" || host === "::" || host === "[::]" ? "127.0.0.1" : host)

/** The probe URLs of a program, first choice first; an empty list means "alive is healthy". */
export const probeUrls = (program, variables = env) => {
  const value = (name, fallback) => (variables[name] ?? "").trim() || fallback
  switch (program) {
    case "daemon":
      return [`http://${reachable(value("HOST", "0.0.0.0"))}:${value("PORT", "8080")}/healthz`]
    case "polar": {
      const address = value("HTTP_ADDR", "0.0.0.0:8080")
      if (address.toLowerCase() === "off") return []
      const at = address.lastIndexOf(":")
      return [`http://${reachable(address.slice(0, at))}:${address.slice(at + 1)}/healthz`]
    }
    case "wahoo": {
      const port = value("PORT", "8085")
      return [`https://127.0.0.1:${port}/healthz`, `http://127.0.0.1:${port}/healthz`]
    }
    default:
      return undefined
  }
}

/** The status code of a GET, or the error that prevented one. */
const statusOf = (url) =>
  new Promise((resolve) => {
    const client = url.startsWith("https:") ? https : http
    // the Wahoo connector serves its own self-signed certificate: identity is not the question here
    const request = client.get(url, { timeout: TIMEOUT_MS, rejectUnauthorized: false }, (response) => {
      response.resume()
      resolve({ status: response.statusCode })
    })
    request.on("timeout", () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)))
    request.on("error", (error) => resolve({ error }))
  })

export const check = async (program, variables = env) => {
  const urls = probeUrls(program, variables)
  if (urls === undefined) return { healthy: false, message: "no Waymark program is running in this container" }
  if (urls.length === 0) return { healthy: true, message: `${program} is running (its HTTP server is off)` }
  let last = "no probe answered"
  for (const url of urls) {
    const answer = await statusOf(url)
    if (answer.status !== undefined) return { healthy: answer.status === 200, message: `${url}: ${answer.status}` }
    last = `${url}: ${answer.error.message}`
  }
  return { healthy: false, message: last }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await check(runningProgram())
  console.log(result.message)
  process.exit(result.healthy ? 0 : 1)
}
