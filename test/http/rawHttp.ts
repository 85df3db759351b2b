import * as net from "node:net"

/**
 * HTTP/1.1 over a bare socket, for what an HTTP client library hides: aborting in the middle
 * of a body, `Expect: 100-continue`, endless chunked bodies, the connection state after an answer.
 */

export interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  /** every interim `1xx` status line seen before the final answer */
  readonly interim: ReadonlyArray<number>
}

/** Parses what the server sent: interim 1xx answers, then the final head and whatever body arrived. */
export const parseAnswer = (raw: Buffer): RawAnswer | undefined => {
  let text = raw.toString("latin1")
  const interim: Array<number> = []
  while (true) {
    const end = text.indexOf("\r\n\r\n")
    if (end === -1) return undefined
    const [statusLine, ...lines] = text.slice(0, end).split("\r\n")
    const status = Number(statusLine!.split(" ")[1])
    if (status >= 100 && status < 200) {
      interim.push(status)
      text = text.slice(end + 4)
      continue
    }
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(":")
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    return { status, headers, body: Buffer.from(text.slice(end + 4), "latin1").toString("utf8"), interim }
  }
}

export const connect = (port: number) =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => resolve(socket))
    socket.once("error", reject)
  })

export const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
  Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Sends the head and the first `offset` bytes of `body` (in slices of `slice` bytes, `pauseMs`
 * apart), then resets the connection (`RST`), as a client that crashes or loses its network does.
 */
export const abortUpload = async (
  port: number,
  requestHead: string,
  body: Buffer,
  options: { readonly offset: number; readonly slice: number; readonly pauseMs: number }
) => {
  const socket = await connect(port)
  socket.on("error", () => {})
  socket.write(requestHead)
  for (let sent = 0; sent < options.offset && !socket.destroyed;) {
    const end = Math.min(options.offset, sent + options.slice)
    socket.write(body.subarray(sent, end))
    sent = end
    if (options.pauseMs > 0) await sleep(options.pauseMs)
  }
  socket.resetAndDestroy()
}

/**
 * Sends a request and collects the answer. `body` is written as it comes (an async iterable
 * for chunked or slow bodies); `waitForContinue` holds the body until `100 Continue` or a
 * final answer arrives. Resolves once the final answer's head is in and the connection is
 * closed by the server, or `settleMs` after the head when it stays open.
 */
export const exchange = async (
  port: number,
  requestHead: string,
  body?: Buffer | AsyncIterable<Buffer>,
  options: { readonly waitForContinue?: boolean; readonly settleMs?: number } = {}
) => {
  const socket = await connect(port)
  const received: Array<Buffer> = []
  let closed = false
  let reset = false
  let bytesSent = 0
  let bytesSentAtAnswer: number | undefined
  const answered = new Promise<void>((resolve) => {
    const check = () => {
      const answer = parseAnswer(Buffer.concat(received))
      if (answer !== undefined && answer.status >= 200) {
        bytesSentAtAnswer ??= bytesSent
        resolve()
      }
      return answer
    }
    socket.on("data", (chunk) => {
      received.push(chunk)
      check()
    })
    socket.on("close", () => {
      closed = true
      resolve()
    })
  })
  const interimOrFinal = new Promise<void>((resolve) => socket.on("data", () => resolve()))
  socket.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "ECONNRESET" || e.code === "EPIPE") reset = true
  })
  const closedPromise = new Promise<void>((resolve) => socket.once("close", () => resolve()))
  socket.write(requestHead)
  const send = async () => {
    if (body === undefined) return
    if (options.waitForContinue) await Promise.race([interimOrFinal, closedPromise])
    const final = parseAnswer(Buffer.concat(received))
    if (final !== undefined && final.status >= 200) return
    const chunks = Buffer.isBuffer(body) ? [body] : body
    for await (const chunk of chunks) {
      if (socket.destroyed || closed || bytesSentAtAnswer !== undefined) return
      bytesSent += chunk.length
      if (!socket.write(chunk)) {
        await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closedPromise])
      }
    }
  }
  const sending = send().catch(() => {})
  await answered
  await Promise.race([closedPromise, sleep(options.settleMs ?? 300)])
  await Promise.race([sending, sleep(50)])
  const answer = parseAnswer(Buffer.concat(received))
  const closedByServer = closed || socket.readableEnded
  socket.destroy()
  return { answer, closedByServer, reset, bytesSent, bytesSentAtAnswer, raw: Buffer.concat(received) }
}

/**
 * A chunked body of `total` bytes in `size`-byte chunks, framed by hand, `pauseMs` apart. A
 * paced body lets a test tell "answered after the limit" from "answered after the whole body":
 * unpaced, loopback moves tens of megabytes into the kernel's socket buffers (up to 32 MB
 * here) before the server's answer can arrive, however early the server refuses.
 */
export async function* chunked(total: number, size = 64 * 1024, fill = 0x20, pauseMs = 0): AsyncIterable<Buffer> {
  const chunk = Buffer.alloc(size, fill)
  for (let sent = 0; sent < total; sent += size) {
    const n = Math.min(size, total - sent)
    yield Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), chunk.subarray(0, n), Buffer.from("\r\n")])
    if (pauseMs > 0) await sleep(pauseMs)
  }
  yield Buffer.from("0\r\n\r\n")
}

/** A multipart/form-data body with one `file` part. */
export const multipartBody = (filename: string, content: Buffer, boundary = "----waymark-raw-boundary") => ({
  boundary,
  body: Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])
})
