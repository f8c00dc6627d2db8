// The V8 flags every Assay process runs with (`npm start` and `npm run worker` pass them on node's command
// line, which is the only place V8 reads them; the benchmarks start their servers with them too).
//
// --max-semi-space-size=32: the young generation's two halves at 32 MB each instead of V8's 16 MB. A
// request's garbage (parsed rows, the answer, headers) then dies young far more often instead of being
// promoted, so a burst of creates no longer leaves an old generation that the next reads pay to collect:
// docs/performance.md ("The young generation") has the figures. Costs up to 48 MB more memory per process.
//
// --initial-old-space-size=256: the old generation's first limit at 256 MB. With the larger young
// generation, a process whose old generation had settled small (about 70 MB live, a limit of about 110)
// had less room left below that limit than the young generation can promote at once, and V8 then kept
// starting a full marking: in bench:uploads about two runs in three collected the old generation 150-170
// times (three or four times a second) instead of 2-4, each freeing about 2 MB, and the uploads and the
// partner read slowed with it (docs/performance.md, "Two states of the collector"). The memory is not
// taken up front; the heap may grow to about that before its first full collection.
//
// --no-allocation-site-pretenuring: V8 otherwise starts allocating an object straight in the old
// generation once most objects from the same place in the code have outlived a young collection. A
// request's objects often have (they are in flight while one runs), so they were made old, died there,
// and kept what they pointed to alive through every young collection until the next full one. Without
// it, a young collection under partner reads promotes 0.2 MB instead of 0.94 MB, and garbage collection
// during the read fell from 80-150 to 30-60 ms per 2 s (docs/performance.md, "The old generation's
// garbage at the start").
//
// --expose-gc: gives src/platform/settle-heap.ts V8's collector, to run once after start-up, before the
// first request: booting's garbage then does not slow the first tens of seconds of load.
export const NODE_FLAGS = ['--max-semi-space-size=32', '--initial-old-space-size=256', '--no-allocation-site-pretenuring', '--expose-gc'];
