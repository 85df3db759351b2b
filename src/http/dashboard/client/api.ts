import { ENDPOINTS } from "waymark:endpoints"
import type { AddressOf, EndpointName, RequestOf, SuccessOf } from "./endpoints.ts"

/**
 * The public API, called by the name of an endpoint ("activities.get") with the parameters its
 * declaration types, with the session cookie (the API key never reaches the page). A 401 means
 * the session ended: back to the sign-in page.
 */

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

const failure = async (response: Response): Promise<ApiError> => {
  if (response.status === 401) location.assign("/")
  try {
    const body = await response.json() as { error?: string; message?: string }
    return new ApiError(response.status, body.error ?? "error", body.message ?? response.statusText)
  } catch {
    return new ApiError(response.status, "error", `${response.status} ${response.statusText}`)
  }
}

type QueryValue = string | number | boolean | ReadonlyArray<string> | undefined

/** A query string of the given parameters, leaving out empty ones; a list as the API takes it, comma-separated. */
const queryOf = (params: Readonly<Record<string, QueryValue>>): string => {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    const text = Array.isArray(v) ? v.join(",") : v === undefined ? "" : String(v)
    if (text !== "") search.set(k, text)
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

interface AnyRequest {
  readonly path?: Readonly<Record<string, string>>
  readonly query?: Readonly<Record<string, QueryValue>>
  readonly payload?: unknown
}

/** The address of an endpoint: its declared path with the parameters filled in, and the query (a download link, the upload). */
export const urlOf = <N extends EndpointName>(name: N, ...[address]: {} extends AddressOf<N> ? [AddressOf<N>?] : [AddressOf<N>]): string => {
  const { path = {}, query = {} } = (address ?? {}) as AnyRequest
  return ENDPOINTS[name][1].replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(path[key]!)) + queryOf(query)
}

/** Calls an endpoint and answers its declared success (JSON; nothing for a 204 or an empty 202). */
export const call = async <N extends EndpointName>(name: N, ...[request]: {} extends RequestOf<N> ? [RequestOf<N>?] : [RequestOf<N>]): Promise<SuccessOf<N>> => {
  const { payload } = (request ?? {}) as AnyRequest
  const response = await fetch(urlOf(name, ...([request] as [AddressOf<N>])), {
    method: ENDPOINTS[name][0],
    credentials: "same-origin",
    headers: { accept: "application/json", ...(payload === undefined ? {} : { "content-type": "application/json" }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) })
  })
  if (!response.ok) throw await failure(response)
  if (response.status === 204 || response.status === 202 && response.headers.get("content-length") === "0") return undefined as SuccessOf<N>
  return await response.json() as SuccessOf<N>
}

/** A file sent as the upload route expects it, reporting the bytes sent as they go. */
export const upload = (file: File, onProgress: (fraction: number) => void): Promise<{ status: string; message: string }> =>
  new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open(ENDPOINTS["activities.upload"][0], urlOf("activities.upload"))
    request.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total)
    })
    request.addEventListener("load", () => {
      let body: { error?: string; message?: string; status?: string } = {}
      try {
        body = JSON.parse(request.responseText)
      } catch {
        // not JSON: the status says enough
      }
      if (request.status === 401) location.assign("/")
      if (request.status >= 200 && request.status < 300) resolve({ status: body.status ?? "queued", message: body.message ?? "" })
      else reject(new ApiError(request.status, body.error ?? "error", body.message ?? `${request.status} ${request.statusText}`))
    })
    request.addEventListener("error", () => reject(new ApiError(0, "network", "The connection to the service was lost.")))
    const form = new FormData()
    form.append("file", file, file.name)
    request.send(form)
  })
