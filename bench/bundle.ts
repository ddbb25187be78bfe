import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  src?: string;
}

/**
 * Gzipped JavaScript the browser needs: for the sign-in screen (the entry and its static imports),
 * for the first screen after sign-in (plus the lazily loaded console and its static imports, and the
 * dashboard's), and in total. Reads Vite's manifest (build.manifest) in dist/.vite/manifest.json.
 */
export function bundleReport(dist: string): string | undefined {
  const manifestFile = path.join(dist, '.vite', 'manifest.json');
  if (!fs.existsSync(manifestFile)) return undefined;
  const manifest: Record<string, ManifestChunk> = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  const gz = (file: string) => zlib.gzipSync(fs.readFileSync(path.join(dist, file))).length;
  const closure = (keys: string[], seen = new Set<string>()) => {
    for (const key of keys) {
      if (seen.has(key) || !manifest[key]) continue;
      seen.add(key);
      closure(manifest[key].imports ?? [], seen);
    }
    return seen;
  };
  const size = (keys: Set<string>) => [...keys].filter((k) => manifest[k].file.endsWith('.js')).reduce((sum, k) => sum + gz(manifest[k].file), 0);
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry)!;
  const signIn = closure([entry]);
  const firstScreenKeys = Object.keys(manifest).filter((k) => /(App|Dashboard)\.tsx$/.test(k) && manifest[k].isDynamicEntry);
  const afterSignIn = closure(firstScreenKeys, new Set(signIn));
  const allJs = fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js'));
  const total = allJs.reduce((sum, f) => sum + gz(path.join('assets', f)), 0);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  return [
    '| bundle (gzipped JS) | size | target |',
    '|---|---|---|',
    `| sign-in screen | ${kb(size(signIn))} | <= 80 kB |`,
    `| first screen after sign-in (${firstScreenKeys.join(', ') || 'no lazy App/Dashboard chunk found'}) | ${kb(size(afterSignIn))} | <= 250 kB |`,
    `| total | ${kb(total)} | |`,
  ].join('\n');
}
