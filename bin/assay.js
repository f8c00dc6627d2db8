#!/usr/bin/env node
// `npx assay …`: runs the TypeScript CLI straight from the checkout (no build step) through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../src/cli/index.ts', import.meta.url).href);
