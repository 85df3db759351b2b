import type uPlot from "uplot"
import { css } from "./palette.ts"

/**
 * The stretches of one activity its page draws over its charts, in metres along it: the one
 * shown (a segment effort or a climb, also on the map) and the one being chosen to make a
 * segment. While a stretch is being chosen, a chart takes a click as one end and a drag across
 * it as both; the page (the map as well) hears them through `onPick`.
 */

export interface Stretch {
  readonly from: number
  readonly to: number
  readonly label: string
}

export interface Stretches {
  readonly shown: () => Stretch | null
  readonly chosen: () => Stretch | null
  readonly show: (stretch: Stretch | null) => void
  readonly choose: (stretch: Stretch | null) => void
  /** while set, the charts take clicks and drags: one distance (a click) or two (a drag) */
  readonly picking: () => ((from: number, to?: number) => void) | null
  readonly onPick: (pick: ((from: number, to?: number) => void) | null) => void
  /** `listener` is called on every change; returns its removal */
  readonly subscribe: (listener: () => void) => () => void
}

export const stretches = (): Stretches => {
  let shown: Stretch | null = null
  let chosen: Stretch | null = null
  let pick: ((from: number, to?: number) => void) | null = null
  const listeners = new Set<() => void>()
  const changed = () => listeners.forEach((f) => f())
  return {
    shown: () => shown,
    chosen: () => chosen,
    show: (s) => {
      shown = s
      changed()
    },
    choose: (s) => {
      chosen = s
      changed()
    },
    picking: () => pick,
    onPick: (f) => {
      pick = f
      changed()
    },
    subscribe: (f) => {
      listeners.add(f)
      return () => listeners.delete(f)
    }
  }
}

/** The first sample at or past `meters` along the activity (the last when none is). */
export const indexAt = (distance: ReadonlyArray<number | null>, meters: number) => {
  let last = 0
  for (let i = 0; i < distance.length; i++) {
    const d = distance[i]
    if (d === null || d === undefined) continue
    if (d >= meters) return i
    last = i
  }
  return last
}

/** The distance recorded at a sample, or the nearest one recorded before it. */
export const distanceAt = (distance: ReadonlyArray<number | null>, index: number) => {
  for (let i = Math.min(index, distance.length - 1); i >= 0; i--) {
    const d = distance[i]
    if (d !== null && d !== undefined) return d
  }
  return 0
}

/** Pixels a press may move and still be a click rather than a drag. */
const CLICK = 5

/**
 * uPlot hooks and a setup for one chart of the activity: the stretches drawn as bands over its
 * plot (the shown one filled, the chosen one hatched by its dashed edges), redrawn on every
 * change; clicks and drags handed to the page while it picks.
 */
export const stretchBands = (state: Stretches, distance: ReadonlyArray<number | null>) => {
  const band = (u: uPlot, stretch: Stretch, dashed: boolean) => {
    const xs = u.data[0]
    const i0 = indexAt(distance, stretch.from)
    const i1 = indexAt(distance, stretch.to)
    const left = u.valToPos(xs[i0]!, "x", true)
    const right = u.valToPos(xs[i1]!, "x", true)
    const { top, height } = u.bbox
    const ctx = u.ctx
    const color = css("--link")
    ctx.save()
    ctx.fillStyle = color
    ctx.globalAlpha = dashed ? 0.12 : 0.22
    ctx.fillRect(left, top, Math.max(right - left, 1), height)
    ctx.globalAlpha = 1
    ctx.strokeStyle = color
    ctx.lineWidth = 2 * devicePixelRatio
    if (dashed) ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio])
    ctx.beginPath()
    for (const x of i1 === i0 ? [left] : [left, right]) {
      ctx.moveTo(x, top)
      ctx.lineTo(x, top + height)
    }
    ctx.stroke()
    ctx.restore()
  }
  const draw = (u: uPlot) => {
    const shown = state.shown()
    const chosen = state.chosen()
    if (shown !== null) band(u, shown, false)
    if (chosen !== null) band(u, chosen, true)
  }

  /** Redraws on every change, and hands clicks and drags over the plot to the page while it picks; returns the undoing. */
  const attach = (u: uPlot) => {
    const over = u.over
    const at = (x: number) => distanceAt(distance, u.posToIdx(Math.min(Math.max(x, 0), over.clientWidth)))
    let start: number | null = null
    const down = (e: PointerEvent) => {
      if (state.picking() === null || e.button !== 0) return
      start = e.offsetX
      over.setPointerCapture(e.pointerId)
    }
    const up = (e: PointerEvent) => {
      const pick = state.picking()
      if (start === null || pick === null) return
      const from = start
      start = null
      if (Math.abs(e.offsetX - from) <= CLICK) pick(at(e.offsetX))
      else pick(at(Math.min(from, e.offsetX)), at(Math.max(from, e.offsetX)))
    }
    const cancel = () => {
      start = null
    }
    over.addEventListener("pointerdown", down)
    over.addEventListener("pointerup", up)
    over.addEventListener("pointercancel", cancel)
    const mark = () => over.classList.toggle("picking", state.picking() !== null)
    mark()
    const unsubscribe = state.subscribe(() => {
      mark()
      u.redraw(false, false)
    })
    return () => {
      unsubscribe()
      over.removeEventListener("pointerdown", down)
      over.removeEventListener("pointerup", up)
      over.removeEventListener("pointercancel", cancel)
    }
  }
  return { draw, attach }
}
