import { readFileSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Follows static imports (not import()) from a module through the console's own files. */
function staticImports(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^\s*import\s+(?!type\b)(?:[^'"]*?from\s+)?['"]([^'"]+)['"]/gm)) {
      const specifier = match[1];
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const base = resolve(dirname(file), specifier);
      const candidate = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'].map((ext) => base + ext).find((path) => existsSync(path) && !path.endsWith('/'));
      if (candidate && /\.(ts|tsx)$/.test(candidate)) visit(candidate);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('sign-in entry', () => {
  it('loads neither react-admin nor MUI before sign-in', () => {
    const { packages } = staticImports(resolve(__dirname, 'main.tsx'));
    const heavy = [...packages].filter((name) => /^(react-admin|ra-|@mui\/|@emotion\/|react-router)/.test(name));
    expect(heavy).toEqual([]);
    // The walk really reached the sign-in pages and their cookie handling.
    expect(packages).toContain('js-cookie');
    expect(packages).toContain('react-dom/client');
  });
});
