/** The V8 flags every Assay process runs with (bin/node-flags.js). */
export declare const NODE_FLAGS: readonly string[];
