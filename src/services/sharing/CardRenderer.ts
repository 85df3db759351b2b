import * as Effect from "effect/Effect"
import * as fs from "node:fs"

/**
 * SVG to PNG with resvg, off the event loop (its render runs on libuv's thread pool). resvg
 * draws text only with a font it was given: the first of the fonts below that the system has
 * (the image installs DejaVu), else whatever fonts the system has.
 */

const FONT_FILES = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
  "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
  "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"
]

export class CardRenderer extends Effect.Service<CardRenderer>()("services/sharing/CardRenderer", {
  effect: Effect.gen(function*() {
    // resvg (a native library) loaded with the first card drawn: most days none is
    const resvg = yield* Effect.cached(Effect.promise(() => import("@resvg/resvg-js")))
    const fontFiles = FONT_FILES.filter((file) => fs.existsSync(file))
    const font = fontFiles.length > 0
      ? { loadSystemFonts: false, fontFiles, defaultFontFamily: fontFiles[0]!.includes("DejaVu") ? "DejaVu Sans" : "Liberation Sans" }
      : { loadSystemFonts: true }

    const png = Effect.fn("CardRenderer.png")(function*(svg: string) {
      const { renderAsync } = yield* resvg
      const rendered = yield* Effect.promise(() => renderAsync(svg, { font, fitTo: { mode: "original" } }))
      return rendered.asPng()
    })

    return { png, fonts: fontFiles } as const
  })
}) {}
