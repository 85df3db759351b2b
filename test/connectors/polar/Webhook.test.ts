import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { MAX_WEBHOOK_BODY } from "../../../src/connectors/polar/PolarHttp.ts"
import { signatureMatches } from "../../../src/connectors/polar/WebhookKeeper.ts"
import { MAX_JSON_DEPTH } from "../../../src/schema/JsonDepth.ts"
import { fitActivity } from "../../support/ImportHarness.ts"
import { freePort } from "../../support/freePort.ts"
import { envFor, listWatch, pollerOf, runEntry, scopedDirs, scopedFake, startConnector, waitFor } from "./harness.ts"

const HOUR = 3_600_000
const track = (hours: number) => ({ start: new Date(Date.now() - hours * HOUR), seconds: 300 })

/** The connector with WEBHOOK_URL on its own loopback port; polling every hour, so only a trigger explains a quick cycle. */
const webhookEnv = (port: number, env: Record<string, string>) => ({
  ...env,
  HTTP_ADDR: `127.0.0.1:${port}`,
  PUBLIC_URL: `http://127.0.0.1:${port}`,
  WEBHOOK_URL: `http://127.0.0.1:${port}/webhook`,
  POLL_INTERVAL: "3600"
})

const post = (url: string, body: string, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
    return { status: response.status, text: await response.text() }
  })

describe("Polar connector webhook", () => {
  it.scopedLive("registers the EXERCISE webhook at start, keeps its key in POLAR_TOKENS, answers PING, refuses unsigned or wrongly signed deliveries, and a signed one starts a cycle", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const port = yield* freePort
      const connector = yield* startConnector(webhookEnv(port, envFor(fake, dirs)))
      // Polar knows the webhook before the connector has stored its key: wait for the connector's side
      const registered = yield* waitFor("the registration", Effect.map(connector.status, (s) => (s.webhook.active === true && s.webhook.id !== null ? s : undefined)))
      const hook = fake.webhook()!
      expect(registered.webhook.id).toBe(hook.id)
      expect(hook.url).toBe(`http://127.0.0.1:${port}/webhook`)
      expect(hook.events).toEqual(["EXERCISE"])
      const stored = fs.readdirSync(dirs.tokensDir).map((f) => fs.readFileSync(path.join(dirs.tokensDir, f), "utf8")).join("\n")
      expect(stored).toContain(hook.key)
      for (const f of fs.readdirSync(dirs.tokensDir)) expect(fs.statSync(path.join(dirs.tokensDir, f)).mode & 0o777).toBe(0o600)
      const status = yield* connector.status
      expect(status.webhook).toMatchObject({ configured: true, active: true, id: hook.id, lastEventAt: null })
      expect(JSON.stringify(status)).not.toContain(hook.key)

      const ping = yield* post(hook.url, JSON.stringify({ event: "PING", timestamp: new Date().toISOString() }), { "Polar-Webhook-Event": "PING" })
      expect(ping.status).toBe(200)

      // authorize, and let the authorization's own cycle finish
      const answer = yield* Effect.promise(() => fake.browserAuthorize(`${connector.baseUrl}/authorize`))
      expect(answer.status).toBe(200)
      const poller = pollerOf(connector)
      yield* waitFor("the first cycle", Effect.map(poller.status, (s) => (s.cycles >= 2 && s.phase === "waiting" ? true : undefined)))
      const cycles = (yield* poller.status).cycles

      fake.addExercise({ id: "W1", startTime: track(1).start.toISOString(), files: { fit: fitActivity(track(1)) } })
      const event = JSON.stringify({ event: "EXERCISE", user_id: fake.userId, entity_id: "W1", timestamp: new Date().toISOString() })
      const unsigned = yield* post(hook.url, event, { "Polar-Webhook-Event": "EXERCISE" })
      expect(unsigned.status).toBe(401)
      const forged = createHmac("sha256", "not-the-key").update(event).digest("hex")
      const wrong = yield* post(hook.url, event, { "Polar-Webhook-Event": "EXERCISE", "Polar-Webhook-Signature": forged })
      expect(wrong.status).toBe(401)
      // a valid signature over another body does not pass either
      const other = createHmac("sha256", hook.key).update(event + " ").digest("hex")
      expect((yield* post(hook.url, event, { "Polar-Webhook-Signature": other })).status).toBe(401)
      yield* Effect.sleep("300 millis")
      expect((yield* poller.status).cycles).toBe(cycles)
      expect(listWatch(dirs)).toEqual([])

      expect(yield* Effect.promise(() => fake.deliverEvent("W1"))).toBe(200)
      yield* waitFor("the delivery the event started", Effect.sync(() => (listWatch(dirs).includes("W1.fit") ? true : undefined)), "5 seconds")
      expect((yield* connector.status).webhook.lastEventAt).not.toBeNull()
    }))

  it.scopedLive("a delivery nested deeper than the JSON limit is refused 400 naming the limit, one over the size limit 413 naming it, before any signature check", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs))
      const url = `${connector.baseUrl}/webhook`
      const deep = yield* post(url, `{"event":"EXERCISE","entity_id":${"[".repeat(5_000)}${"]".repeat(5_000)}}`, { "Polar-Webhook-Signature": "00" })
      expect(deep.status).toBe(400)
      expect(JSON.parse(deep.text)).toEqual({ error: `the body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are accepted` })
      const big = yield* post(url, JSON.stringify({ event: "EXERCISE", pad: "x".repeat(MAX_WEBHOOK_BODY) }), {})
      expect(big.status).toBe(413)
      expect(JSON.parse(big.text)).toEqual({ error: `the body is over ${MAX_WEBHOOK_BODY} bytes` })
    }))

  it.scopedLive("at the next start it finds its own webhook and re-activates it when Polar deactivated it", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const port = yield* freePort
      const env = webhookEnv(port, envFor(fake, dirs))
      const first = yield* Scope.make()
      const running = yield* startConnector(env).pipe(Scope.extend(first))
      yield* waitFor("the registration", Effect.map(running.status, (s) => (s.webhook.active === true ? true : undefined)))
      const hook = fake.webhook()!
      yield* Scope.close(first, Exit.void)
      fake.deactivateWebhook()
      expect(fake.webhook()?.active).toBe(false)

      yield* startConnector(env)
      yield* waitFor("the re-activation", Effect.sync(() => (fake.webhook()?.active === true ? true : undefined)))
      expect(fake.webhook()?.id).toBe(hook.id)
      expect(fake.requests.filter((r) => r.method === "POST" && r.path === "/v3/webhooks")).toHaveLength(1)
      expect(fake.requests.some((r) => r.path === "/v3/webhooks/activate")).toBe(true)
    }))

  it.scopedLive("`webhook register`, `show` and `delete` manage it from the terminal", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const port = yield* freePort
      const env = webhookEnv(port, envFor(fake, dirs))
      // the running process answers Polar's PING; its own registration happens first, so drop it
      yield* startConnector({ ...env, WEBHOOK_URL: "" })
      const registered = yield* runEntry(["webhook", "register"], env)
      expect(registered.code, registered.output).toBe(0)
      expect(JSON.parse(registered.output.slice(registered.output.indexOf("{")))).toMatchObject({ url: env.WEBHOOK_URL, active: true })
      expect(fake.webhook()?.url).toBe(env.WEBHOOK_URL)

      const shown = yield* runEntry(["webhook", "show"], env)
      expect(shown.code, shown.output).toBe(0)
      expect(shown.output).toContain(fake.webhook()!.id)
      expect(shown.output).not.toContain(fake.webhook()!.key)

      const deleted = yield* runEntry(["webhook", "delete"], env)
      expect(deleted.code, deleted.output).toBe(0)
      expect(deleted.output).toContain("Deleted the webhook")
      expect(fake.webhook()).toBeUndefined()

      // without WEBHOOK_URL, register says what is missing
      const missing = yield* runEntry(["webhook", "register"], { ...env, WEBHOOK_URL: "" })
      expect(missing.code).toBe(1)
      expect(missing.output).toContain("set WEBHOOK_URL first")
    }), { timeout: 120_000 })

  it("signatures are compared on the raw bytes, hex of any case or base64", () => {
    const body = new TextEncoder().encode('{"event":"EXERCISE"}')
    const mac = createHmac("sha256", "k").update(body).digest()
    expect(signatureMatches(body, mac.toString("hex"), "k")).toBe(true)
    expect(signatureMatches(body, mac.toString("hex").toUpperCase(), "k")).toBe(true)
    expect(signatureMatches(body, mac.toString("base64"), "k")).toBe(true)
    expect(signatureMatches(body, mac.toString("hex"), "other")).toBe(false)
    expect(signatureMatches(body, mac.toString("hex").slice(2), "k")).toBe(false)
    expect(signatureMatches(new TextEncoder().encode('{"event":"EXERCISE"} '), mac.toString("hex"), "k")).toBe(false)
  })
})
