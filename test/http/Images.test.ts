import { describe, expect, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { fileForm, JPEG_HEAD, PNG_1x1, rawMultipart, seedActivity, send, snapshot, TestDaemon, WEBP_HEAD } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

const PLACEHOLDER = fs.readFileSync(fileURLToPath(new URL("../../assets/placeholder.png", import.meta.url)))
const LIMITS = { UPLOAD_MAX_FILESIZE: "1K", POST_MAX_SIZE: "4K" }
const fileNameOf = (url: string) => url.split("/").pop()!

describe("activity images", () => {
  layer(TestDaemon.layer({ env: LIMITS }), { excludeTestServices: true })("add and remove", (it) => {
    it.effect("201 ActivityImage; stored by its sniffed type; listed on the activity; served at its URL", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const id = yield* seedActivity()
        const answer = yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("photo.png", PNG_1x1) })
        expect(answer.status).toBe(201)
        expect(Object.keys(answer.json).sort()).toEqual(["id", "url"])
        const uuid = answer.json.id.replace("activityImage-", "")
        expect(answer.json.id).toMatch(/^activityImage-[0-9a-f-]{36}$/)
        expect(answer.json.url).toBe(`http://waymark.test/files/activities/${uuid}.png`)
        expect(fs.readFileSync(path.join(daemon.imagesDir, `${uuid}.png`))).toEqual(PNG_1x1)
        const activity = yield* send("GET", `/api/v1/activities/${id}`)
        expect(activity.json.images).toEqual([answer.json])
        const served = yield* send("GET", `/files/activities/${uuid}.png`)
        expect(served.status).toBe(200)
        expect(served.headers["content-type"]).toBe("image/png")
      }))

    it.effect("the type comes from the bytes, not the name: a PNG called .jpg is stored as .png, JPEG and WebP are accepted", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity()
        const lying = yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("photo.jpg", PNG_1x1) })
        expect(lying.status).toBe(201)
        expect(lying.json.url).toMatch(/\.png$/)
        const jpeg = yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("noext", JPEG_HEAD) })
        expect(jpeg.json.url).toMatch(/\.jpg$/)
        const webp = yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("x.gif", WEBP_HEAD) })
        expect(webp.json.url).toMatch(/\.webp$/)
      }))

    const refused = (what: string, status: number, code: string, body: () => HttpBody.HttpBody, activity?: string) =>
      it.effect(`${status} ${code}: ${what}; nothing is written`, () =>
        Effect.gen(function*() {
          const id = activity ?? (yield* seedActivity())
          const before = yield* snapshot
          expectError(yield* send("POST", `/api/v1/activities/${id}/images`, { body: body() }), status, code)
          expect(yield* snapshot).toEqual(before)
        }))

    refused("a text file named .jpg", 422, "unsupported_file_type", () => fileForm("photo.jpg", "not an image at all"))
    refused("a GIF", 422, "unsupported_file_type", () => fileForm("a.gif", Buffer.from("GIF89a\x01\x00\x01\x00", "latin1")))
    refused("a truncated PNG signature", 422, "unsupported_file_type", () => fileForm("a.png", PNG_1x1.subarray(0, 5)))
    refused("an SVG", 422, "unsupported_file_type", () => fileForm("a.svg", '<svg xmlns="http://www.w3.org/2000/svg"/>'))
    refused("no file part", 400, "missing_file", () => rawMultipart([{ name: "image", filename: "a.png", content: PNG_1x1 }]))
    refused("an empty file", 400, "missing_file", () => fileForm("a.png", ""))
    refused("an image over UPLOAD_MAX_FILESIZE", 413, "file_too_large", () => fileForm("big.png", Buffer.concat([PNG_1x1, Buffer.alloc(1100)])))
    it.effect("the 413 of an image names its limit and setting, not the watch folder (images are not imported from there)", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity()
        const answer = yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("big.png", Buffer.concat([PNG_1x1, Buffer.alloc(1100)])) })
        expect(answer.json.message).toBe("The uploaded file is too large: at most 1 KB is accepted (UPLOAD_MAX_FILESIZE). Raise UPLOAD_MAX_FILESIZE in the service's settings.")
      }))
    refused("a JSON body", 415, "unsupported_media_type", () => HttpBody.text("{}", "application/json"))
    refused("a raw image body", 415, "unsupported_media_type", () => HttpBody.uint8Array(PNG_1x1, "image/png"))
    refused("an unknown activity", 404, "not_found", () => fileForm("a.png", PNG_1x1), "activity-nope")

    it.effect("DELETE removes the image from the activity and deletes its file (204, no body)", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const id = yield* seedActivity()
        const image = (yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("p.png", PNG_1x1) })).json
        const file = path.join(daemon.imagesDir, fileNameOf(image.url))
        expect(fs.existsSync(file)).toBe(true)
        const answer = yield* send("DELETE", `/api/v1/activities/${id}/images/${image.id}`)
        expect(answer.status).toBe(204)
        expect(answer.text).toBe("")
        expect(fs.existsSync(file)).toBe(false)
        expect((yield* send("GET", `/api/v1/activities/${id}`)).json.images).toEqual([])
        expectError(yield* send("DELETE", `/api/v1/activities/${id}/images/${image.id}`), 404, "not_found")
      }))

    it.effect("DELETE: 404 not_found for an unknown activity, or an image of another activity; nothing removed", () =>
      Effect.gen(function*() {
        const owner = yield* seedActivity()
        const other = yield* seedActivity()
        const image = (yield* send("POST", `/api/v1/activities/${owner}/images`, { body: fileForm("p.png", PNG_1x1) })).json
        const before = yield* snapshot
        expectError(yield* send("DELETE", `/api/v1/activities/${other}/images/${image.id}`), 404, "not_found")
        expectError(yield* send("DELETE", `/api/v1/activities/activity-nope/images/${image.id}`), 404, "not_found")
        expectError(yield* send("DELETE", `/api/v1/activities/${owner}/images/activityImage-nope`), 404, "not_found")
        expect(yield* snapshot).toEqual(before)
      }))

    it.effect("without DEMO_MODE an image is served as it is, and unknown or odd names are 404", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity()
        const image = (yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("p.png", PNG_1x1) })).json
        const served = yield* send("GET", `/files/activities/${fileNameOf(image.url)}`, { key: null })
        expect(served.status).toBe(200)
        for (const name of ["00000000-0000-0000-0000-000000000000.png", "..%2F..%2Fdatabase%2Fwaymark.sqlite", "x.png"]) {
          expect((yield* send("GET", `/files/activities/${name}`)).status).toBe(404)
        }
      }))
  })

  layer(TestDaemon.layer({ env: { DEMO_MODE: "true" } }), { excludeTestServices: true })("DEMO_MODE", (it) => {
    it.effect("requests without a valid key get the bundled placeholder PNG; with the key, the image", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity()
        const image = (yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("p.jpg", JPEG_HEAD) })).json
        const url = `/files/activities/${fileNameOf(image.url)}`
        for (const key of [null, "wmk_" + "0".repeat(64)]) {
          const anonymous = yield* send("GET", url, { key })
          expect(anonymous.status).toBe(200)
          expect(anonymous.headers["content-type"]).toBe("image/png")
          expect(anonymous.bytes).toEqual(PLACEHOLDER)
        }
        const owner = yield* send("GET", url)
        expect(owner.status).toBe(200)
        expect(owner.headers["content-type"]).toBe("image/jpeg")
        expect(owner.bytes).toEqual(JPEG_HEAD)
      }))
  })
})

