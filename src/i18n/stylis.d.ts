/** stylis 4 ships no types: the one export Direction.tsx uses, typed as emotion's plugins are. */
declare module 'stylis' {
  import type { StylisPlugin } from '@emotion/cache';
  export const prefixer: StylisPlugin;
}
