import { afterEach, assert, describe, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { type FakeStrava, startFakeStrava, TINY_JPEG } from "./FakeStrava.ts"

const opened: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()))
})

const start = async (options?: Parameters<typeof startFakeStrava>[0]) => {
  const fake = await startFakeStrava(options)
  opened.push(fake)
  return fake
}

const grant = async (fake: FakeStrava) => {
  const res = await fetch(`${fake.url}/oauth/token`, {
    method: "POST",
    body: new URLSearchParams({
      client_id: fake.state.clientId,
      client_secret: fake.state.clientSecret,
      grant_type: "refresh_token",
      refresh_token: fake.state.refreshToken
    })
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

const get = async (fake: FakeStrava, path: string, token?: string) => {
  const res = await fetch(`${fake.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {})
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) as unknown }
}

/** A stand-in for Waymark's /external/webhook, recording what it receives. */
const startCallback = async () => {
  const received: Array<{ method: string; url: URL; body: string }> = []
  const server = http.createServer((req, res) => {
    let body = ""
    req.on("data", (c: Buffer) => (body += c.toString()))
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x")
      received.push({ method: req.method ?? "", url, body })
      res.writeHead(200, { "content-type": "application/json" })
      res.end(req.method === "GET" ? JSON.stringify({ "hub.challenge": url.searchParams.get("hub.challenge") }) : "")
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const handle = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/external/webhook`,
    received,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())))
  }
  opened.push(handle)
  return handle
}

describe("FakeStrava", () => {
  it("grants tokens for the right credentials only, rotating the refresh token", async () => {
    const fake = await start()
    const first = fake.state.refreshToken
    const ok = await grant(fake)
    assert.strictEqual(ok.status, 200)
    assert.strictEqual(ok.body.token_type, "Bearer")
    assert.strictEqual(ok.body.refresh_token, fake.state.refreshToken)
    assert.notStrictEqual(fake.state.refreshToken, first)
    assert.strictEqual(fake.tokenGrants, 1)
    const bad = await fetch(`${fake.url}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ client_id: fake.state.clientId, client_secret: "x", grant_type: "refresh_token", refresh_token: first })
    })
    assert.strictEqual(bad.status, 400)
    assert.deepStrictEqual(await bad.json(), {
      message: "Bad Request",
      errors: [{ resource: "RefreshToken", field: "refresh_token", code: "invalid" }]
    })
    assert.strictEqual(fake.tokenGrants, 1)
  })

  it("checks the bearer token and counts requests in the rate-limit headers", async () => {
    const fake = await start({ limits: { read15: 3 } })
    const token = (await grant(fake)).body.access_token as string
    const denied = await get(fake, "/api/v3/athlete")
    assert.strictEqual(denied.status, 401)
    assert.deepStrictEqual(denied.body, {
      message: "Authorization Error",
      errors: [{ resource: "Athlete", field: "access_token", code: "invalid" }]
    })
    const ok = await get(fake, "/api/v3/athlete", token)
    assert.strictEqual(ok.status, 200)
    assert.strictEqual(ok.headers.get("x-ratelimit-limit"), "200,2000")
    assert.strictEqual(ok.headers.get("x-ratelimit-usage"), "2,2")
    assert.strictEqual(ok.headers.get("x-readratelimit-limit"), "3,1000")
    assert.strictEqual(ok.headers.get("x-readratelimit-usage"), "2,2")
    assert.strictEqual((await get(fake, "/api/v3/athlete", token)).status, 200)
    const over = await get(fake, "/api/v3/athlete", token)
    assert.strictEqual(over.status, 429)
    fake.resetWindow("15min")
    const again = await get(fake, "/api/v3/athlete", token)
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.headers.get("x-readratelimit-usage"), "1,5")
  })

  it("lists activities newest first with paging and reflects updates and removals", async () => {
    const fake = await start()
    const token = (await grant(fake)).body.access_token as string
    const [newest, middle, oldest] = fake.addActivities(3)
    const page = (n: number) => get(fake, `/api/v3/athlete/activities?page=${n}&per_page=2`, token)
    const ids = (r: { body: unknown }) => (r.body as Array<{ id: number }>).map((a) => a.id)
    assert.deepStrictEqual(ids(await page(1)), [newest!.id, middle!.id])
    assert.deepStrictEqual(ids(await page(2)), [oldest!.id])
    assert.deepStrictEqual(await page(3).then((r) => r.body), [])
    fake.updateActivity(middle!.id, { name: "Renamed" })
    assert.strictEqual(((await get(fake, `/api/v3/activities/${middle!.id}`, token)).body as { name: string }).name, "Renamed")
    fake.removeActivity(middle!.id)
    const gone = await get(fake, `/api/v3/activities/${middle!.id}`, token)
    assert.strictEqual(gone.status, 404)
    assert.deepStrictEqual(gone.body, { message: "Record Not Found", errors: [{ resource: "Activity", field: "id", code: "invalid" }] })
  })

  it("serves streams keyed by type, photos and their JPEG bytes", async () => {
    const fake = await start()
    const token = (await grant(fake)).body.access_token as string
    const { id } = fake.addActivity()
    const streams = (await get(fake, `/api/v3/activities/${id}/streams?keys=latlng,heartrate&key_by_type=true`, token)).body as
      Record<string, { data: Array<unknown>; series_type: string; original_size: number; resolution: string }>
    assert.deepStrictEqual(Object.keys(streams).sort(), ["distance", "heartrate", "latlng", "time"])
    assert.strictEqual(streams.latlng!.original_size, 1801)
    assert.strictEqual((streams.latlng!.data[0] as Array<number>).length, 2)
    const photos = (await get(fake, `/api/v3/activities/${id}/photos?size=5000`, token)).body as Array<{ urls: Record<string, string> }>
    const res = await fetch(photos[0]!.urls["5000"]!)
    assert.strictEqual(res.headers.get("content-type"), "image/jpeg")
    const bytes = Buffer.from(await res.arrayBuffer())
    assert.deepStrictEqual(bytes, TINY_JPEG)
    assert.deepStrictEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff])
    assert.deepStrictEqual([...bytes.subarray(-2)], [0xff, 0xd9])
  })

  it("validates the callback before creating the single subscription, and sends webhook events", async () => {
    const fake = await start()
    const callback = await startCallback()
    const form = (callbackUrl: string) =>
      new URLSearchParams({ client_id: fake.state.clientId, client_secret: fake.state.clientSecret, callback_url: callbackUrl, verify_token: "tok" })
    const created = await fetch(`${fake.url}/api/v3/push_subscriptions`, { method: "POST", body: form(callback.url) })
    assert.strictEqual(created.status, 201)
    const { id } = (await created.json()) as { id: number }
    const validation = callback.received[0]!
    assert.strictEqual(validation.method, "GET")
    assert.strictEqual(validation.url.searchParams.get("hub.mode"), "subscribe")
    assert.strictEqual(validation.url.searchParams.get("hub.verify_token"), "tok")
    const second = await fetch(`${fake.url}/api/v3/push_subscriptions`, { method: "POST", body: form(callback.url) })
    assert.strictEqual(second.status, 400)
    assert.strictEqual(((await second.json()) as { errors: Array<{ code: string }> }).errors[0]!.code, "already exists")

    const sent = await fake.sendWebhookEvent(callback.url, { aspect_type: "create", object_id: 42 })
    assert.strictEqual(sent.status, 200)
    const event = JSON.parse(callback.received[1]!.body) as Record<string, unknown>
    assert.deepInclude(event, { aspect_type: "create", object_id: 42, object_type: "activity", subscription_id: id, updates: {} })
    assert.isNumber(event.event_time)
    assert.isNumber(event.owner_id)

    const q = `client_id=${fake.state.clientId}&client_secret=${fake.state.clientSecret}`
    assert.strictEqual((await fetch(`${fake.url}/api/v3/push_subscriptions/${id}?${q}`, { method: "DELETE" })).status, 204)
    assert.strictEqual((await fetch(`${fake.url}/api/v3/push_subscriptions/${id}?${q}`, { method: "DELETE" })).status, 404)
  })

  it("switches to 401, 403 Inactive and queued 429 answers at run time", async () => {
    const fake = await start()
    const token = (await grant(fake)).body.access_token as string
    fake.setFailure("inactive")
    const inactive = await get(fake, "/api/v3/athlete", token)
    assert.strictEqual(inactive.status, 403)
    assert.deepStrictEqual(inactive.body, { message: "Forbidden", errors: [{ resource: "Application", field: "status", code: "Inactive" }] })
    fake.setFailure("unauthorized")
    assert.strictEqual((await get(fake, "/api/v3/athlete", token)).status, 401)
    fake.setFailure("none")
    fake.rateLimitNext(1, "daily")
    const limited = await get(fake, "/api/v3/athlete", token)
    assert.strictEqual(limited.status, 429)
    assert.strictEqual(limited.headers.get("x-ratelimit-usage"), "200,2000")
    assert.strictEqual((await get(fake, "/api/v3/athlete", token)).status, 200)
  })
})
