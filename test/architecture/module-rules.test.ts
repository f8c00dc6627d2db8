import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * The module rules of docs/architecture.md, held by dependency-cruiser with
 * the committed rule file (.dependency-cruiser.cjs): layers, no foreign
 * repository, platform as the floor, no file cycle. Beside them, an
 * independent count of cycles between modules over the same import graph, so
 * a rule file loosened by mistake cannot hide one.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const rules = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: IForbiddenRuleType[];
  options: Record<string, unknown>;
  LAYERS: string[][];
};

async function cruiseTree(baseDir: string, opts: { withTests?: boolean } = {}): Promise<ICruiseResult> {
  // With tests: the unit tests beside the code keep the layers too (a test that crosses layers lives in
  // test/ or in the highest module it exercises); only the layer rules apply to them.
  const forbidden = opts.withTests ? rules.forbidden.filter((r) => r.name?.startsWith('layer-')) : rules.forbidden;
  const { output } = await cruise(
    ['src'],
    {
      baseDir,
      validate: true,
      ruleSet: { forbidden },
      doNotFollow: { path: 'node_modules|^test/' },
      ...(opts.withTests ? { includeOnly: '^src/' } : { exclude: { path: '\\.test\\.ts$' } }),
      tsPreCompilationDeps: true,
      enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
    },
    { extensions: ['.ts', '.js', '.json'] },
  );
  return output as ICruiseResult;
}

/** The module a file belongs to: a folder directly under src/modules/ or src/platform/ (a file directly under platform is its own). */
function moduleOf(file: string): string | null {
  const m = /^src\/(modules|platform)\/([^/]+?)(?:\.ts)?(?:\/|$)/.exec(file);
  return m ? `${m[1]}/${m[2]}` : null;
}

/** Groups of modules that import each other directly or through others (Tarjan's strongly connected components of size > 1). */
function moduleCycles(result: ICruiseResult): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const m of result.modules) {
    const from = moduleOf(m.source);
    if (!from) continue;
    const out = edges.get(from) ?? edges.set(from, new Set()).get(from)!;
    for (const d of m.dependencies) {
      const to = moduleOf(d.resolved);
      if (to && to !== from) out.add(to);
    }
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return groups;
}

function violations(result: ICruiseResult): string[] {
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

/** A throwaway tree of TypeScript files: { 'src/modules/a/x.ts': "import '../b/y.js';" }. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-modules-'));
  for (const [file, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), `${body}\nexport const here = 1;\n`);
  }
  return dir;
}

describe('module rules', () => {
  it('src/ keeps every rule of .dependency-cruiser.cjs and has no cycle between modules', async () => {
    const result = await cruiseTree(ROOT);
    expect(result.summary.totalCruised).toBeGreaterThan(200);
    expect(violations(result)).toEqual([]);
    expect(moduleCycles(result)).toEqual([]);
  });

  it('the unit tests beside the code import only their own layer and lower ones', async () => {
    const result = await cruiseTree(ROOT, { withTests: true });
    expect(result.modules.some((m) => m.source.endsWith('.test.ts'))).toBe(true);
    expect(violations(result).filter((v) => /\.test\.ts ->/.test(v))).toEqual([]);
  });

  it('every folder under src/modules has a layer, and no layer names a folder that is gone', () => {
    const folders = fs.readdirSync(path.join(ROOT, 'src/modules'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect([...rules.LAYERS.flat()].sort()).toEqual(folders.sort());
    expect(folders).not.toContain('tests');
  });

  it('refuses an import up the layers, a cycle between two modules and another module’s repository file', async () => {
    const dir = tree({
      // lifecycle is below the portal: it may not import it.
      'src/modules/lifecycle/state.ts': "import { here } from '../portal/page.js'; void here;",
      'src/modules/portal/page.ts': '',
      // attempts and assignments importing each other: a cycle, and a layer broken.
      'src/modules/assignments/read.ts': "import { here } from '../attempts/find.js'; void here;",
      'src/modules/attempts/find.ts': "import { here } from '../assignments/assignments-repo.js'; void here;",
      'src/modules/assignments/assignments-repo.ts': "import { here } from './read.js'; void here;",
      // platform importing a module.
      'src/platform/db.ts': "import { here } from '../modules/portal/page.js'; void here;",
    });
    try {
      const result = await cruiseTree(dir);
      const names = new Set(result.summary.violations.map((v) => v.rule.name));
      const layerRule = (module: string) => `layer-${rules.LAYERS.findIndex((l) => l.includes(module)) + 1}-imports-only-lower-layers`;
      expect(names).toContain(layerRule('lifecycle'));
      expect(names).toContain(layerRule('assignments'));
      expect(names).toContain('no-foreign-repository');
      expect(names).toContain('platform-is-the-floor');
      expect(names).toContain('no-circular');
      expect(moduleCycles(result)).toEqual([['modules/assignments', 'modules/attempts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
