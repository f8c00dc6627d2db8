// The V8 flags every Assay process runs with (`npm start` and `npm run worker` pass them on node's command
// line, which is the only place V8 reads them; the benchmarks start their servers with them too).
//
// --max-semi-space-size=32: the young generation's two halves at 32 MB each instead of V8's 16 MB. A
// request's garbage (parsed rows, the answer, headers) then dies young far more often instead of being
// promoted, so a burst of creates no longer leaves an old generation that the next reads pay to collect:
// docs/performance.md ("The young generation") has the figures. Costs up to 48 MB more memory per process.
export const NODE_FLAGS = ['--max-semi-space-size=32'];
