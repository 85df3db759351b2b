import "./runtime/leanHeap.ts"

// loaded once the heap is set up: loading the daemon's modules is what would otherwise grow it
const { runDaemon } = await import("./runtime/runDaemon.ts")
runDaemon()
