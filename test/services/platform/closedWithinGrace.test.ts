import { describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import * as net from "node:net"
import { closedWithinGrace } from "../../../src/services/platform/closedWithinGrace.ts"

const listening = (server: http.Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)))

const connected = (port: number) =>
  new Promise<net.Socket>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => resolve(socket))
    socket.on("error", () => {})
  })

const closed = (server: http.Server) => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))

describe("closedWithinGrace (a server whose stop never waits on a client)", () => {
  it("stops though one client sent half a request head and another nothing at all, each of which holds node's own close for ever", async () => {
    const server = closedWithinGrace(http.createServer((_request, response) => response.end("ok")))
    const port = await listening(server)
    const halfHead = await connected(port)
    halfHead.write("GET / HTTP/1.1\r\nHost: waymark\r\n")
    const silent = await connected(port)
    const cut = Promise.all([halfHead, silent].map((socket) => new Promise<void>((resolve) => socket.once("close", () => resolve()))))
    await closed(server)
    await cut
    expect([halfHead.destroyed, silent.destroyed]).toEqual([true, true])
  }, 60_000)

  it("a request under way when the stop begins is answered, with Connection: close", async () => {
    let stop: Promise<void> | undefined
    const server = closedWithinGrace(http.createServer((_request, response) => {
      stop = closed(server)
      response.end("answered")
    }))
    const port = await listening(server)
    const agent = new http.Agent({ keepAlive: true })
    const answer = await new Promise<{ body: string; connection: string | undefined }>((resolve, reject) =>
      http.get({ host: "127.0.0.1", port, agent }, (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (body += chunk))
        response.on("end", () => resolve({ body, connection: response.headers.connection }))
      }).on("error", reject))
    expect(answer).toEqual({ body: "answered", connection: "close" })
    await stop
    agent.destroy()
  }, 60_000)
})
