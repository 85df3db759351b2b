// Checks an HTTP answer saved by curl (`-D headers -o body`) against what a program of the
// image documents; prints what is wrong and exits 1, or exits 0 silently.
//
//   checkAnswer.mjs unauthorized <headers> <body>
//       a connector's /healthz before anyone authorized: 503, JSON, `healthy: false`, a
//       `reason` saying why, `checks.authorization` "required"
//   checkAnswer.mjs metrics <headers> <body> <service> [expectation...]
//       /metrics in the Prometheus text format (read by a Prometheus text parser): every
//       sample a number, `target_info` naming <service>, the process's memory; each
//       expectation is a family and its type (`name:histogram`) or a series and its value
//       (`name{label=value,...}=1`)
import * as fs from "node:fs"
import parsePrometheusTextFormat from "parse-prometheus-text-format"

const [mode, headersFile, bodyFile, ...rest] = process.argv.slice(2)
const problems = []
const expect = (ok, problem) => {
  if (!ok) problems.push(problem)
}

/** The status code and the headers (names in lower case) of the last answer in a curl -D file. */
const readHeaders = (file) => {
  const blocks = fs.readFileSync(file, "utf8").split(/\r?\n\r?\n/).filter((b) => b.trim() !== "")
  const [statusLine = "", ...lines] = (blocks.at(-1) ?? "").split(/\r?\n/)
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(":")).trim().toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]))
  return { status: Number(statusLine.split(" ")[1]), headers }
}

const { status, headers } = readHeaders(headersFile)
const body = fs.readFileSync(bodyFile, "utf8")
const contentType = headers.get("content-type") ?? ""

const unauthorized = () => {
  expect(status === 503, `status ${status}, expected 503 before anyone authorized`)
  expect(contentType.startsWith("application/json"), `content-type '${contentType}', expected application/json`)
  let health
  try {
    health = JSON.parse(body)
  } catch {
    problems.push("the body is not JSON")
    return
  }
  expect(health.healthy === false, `healthy is ${JSON.stringify(health.healthy)}, expected false`)
  expect(typeof health.reason === "string" && health.reason.trim() !== "", `reason is ${JSON.stringify(health.reason)}, expected a sentence`)
  expect(health.checks?.authorization === "required", `checks.authorization is ${JSON.stringify(health.checks?.authorization)}, expected "required"`)
}

// a sample value as the text format writes it: a float, +Inf, -Inf or NaN
const NUMBER = /^(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?Inf|NaN)$/

const metrics = () => {
  const [service, ...expectations] = rest
  expect(status === 200, `status ${status}, expected 200`)
  expect(/^text\/plain; *version=0\.0\.4/.test(contentType), `content-type '${contentType}', expected text/plain; version=0.0.4`)
  let families, series
  try {
    families = parsePrometheusTextFormat(body)
    // the parser folds a labelled histogram's series into one: read the series again untyped
    series = parsePrometheusTextFormat(body.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"))
  } catch (error) {
    problems.push(`not the Prometheus text format: ${error.message}`)
    return
  }
  expect(families.length > 0, "no metric family")
  for (const family of families) {
    for (const sample of family.metrics) {
      const values = [sample.value, sample.count, sample.sum, ...Object.values(sample.buckets ?? {})].filter((v) => v !== undefined)
      for (const value of values) expect(NUMBER.test(value), `${family.name}: '${value}' is not a number`)
    }
  }
  const samplesOf = (name) => series.filter((f) => f.name === name).flatMap((f) => f.metrics)
  expect(
    samplesOf("target_info").some((s) => s.labels?.service_name === service),
    `no target_info{service_name="${service}"}`
  )
  expect(samplesOf("process_resident_memory_bytes").some((s) => Number(s.value) > 0), "no process_resident_memory_bytes above 0")
  for (const expectation of expectations) {
    const typed = /^([a-zA-Z_:][\w:]*):(\w+)$/.exec(expectation)
    const valued = /^([a-zA-Z_:][\w:]*)\{(.*)\}=(.+)$/.exec(expectation)
    if (typed) {
      const family = families.find((f) => f.name === typed[1])
      expect(family?.type === typed[2].toUpperCase(), `${typed[1]} is ${family ? family.type : "absent"}, expected ${typed[2]}`)
    } else if (valued) {
      const wanted = Object.fromEntries(valued[2].split(",").filter((p) => p !== "").map((p) => p.split("=")))
      const values = samplesOf(valued[1])
        .filter((s) => Object.entries(wanted).every(([k, v]) => s.labels?.[k] === v))
        .map((s) => s.value)
      expect(values.length === 1 && Number(values[0]) === Number(valued[3]), `${valued[1]}{${valued[2]}} is ${values.join(", ") || "absent"}, expected ${valued[3]}`)
    } else {
      problems.push(`cannot read the expectation '${expectation}'`)
    }
  }
}

if (mode === "unauthorized") unauthorized()
else if (mode === "metrics") metrics()
else problems.push(`unknown mode '${mode}' (unauthorized or metrics)`)

if (problems.length > 0) {
  console.error(problems.map((p) => `  ${p}`).join("\n"))
  console.error(`  body: ${body.slice(0, 300)}`)
  process.exit(1)
}
