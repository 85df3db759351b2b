/**
 * The public API, called with the session cookie (the API key never reaches the page). A
 * 401 means the session ended: back to the sign-in page.
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

export const api = async <A>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<A> => {
  const { json, ...rest } = init
  const response = await fetch(path.startsWith("/") ? path : `/api/v1/${path}`, {
    credentials: "same-origin",
    ...rest,
    headers: { accept: "application/json", ...(json === undefined ? {} : { "content-type": "application/json" }), ...rest.headers },
    ...(json === undefined ? {} : { body: JSON.stringify(json) })
  })
  if (!response.ok) throw await failure(response)
  if (response.status === 204 || response.status === 202 && response.headers.get("content-length") === "0") return undefined as A
  return await response.json() as A
}

/** A query string of the given parameters, leaving out empty ones. */
export const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v))
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

/** A file sent as the upload route expects it, reporting the bytes sent as they go. */
export const upload = (file: File, onProgress: (fraction: number) => void): Promise<{ status: string; message: string }> =>
  new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open("POST", "/api/v1/activity/upload")
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
