import { describe, expect, it } from 'vitest';
import { ImportState } from '../../server/jobs/importer.js';
import type { ImportRow } from '../../server/jobs/rows.js';

/**
 * The keys an import has seen in its file (id, e-mail, username: a later row repeating one is
 * refused), kept as hashes in a table that doubles as it fills. Doubling moves every key: at a
 * million rows that held the event loop for 100 to 200 ms, so it moves them a slice at a time.
 */
const row = (n: number): ImportRow => ({ n, id: `id${n}`, username: `User${n}`, displayName: `User ${n}`, email: `User${n}@Example.com`, given: { username: true, displayName: true } });

describe('the keys seen in an import file', () => {
  it('finds every key of 60,000 rows across three doublings, each with its row, and no key it was not given', async () => {
    const state = new ImportState();
    for (let n = 1; n <= 60_000; n++) await state.remember(row(n));
    for (const n of [1, 2, 10_922, 10_923, 32_768, 59_999, 60_000]) {
      expect(state.seen.get(`i:id${n}`)).toBe(n);
      expect(state.seen.get(`e:user${n}@example.com`)).toBe(n);
      expect(state.seen.get(`u:user${n}`)).toBe(n);
    }
    for (let n = 60_001; n <= 70_000; n++) expect(state.seen.has(`i:id${n}`)).toBe(false);
    // a key seen again keeps its first row
    await state.remember({ ...row(70_001), email: 'USER5@example.com' });
    expect(state.seen.get('e:user5@example.com')).toBe(5);
    expect(state.seen.get('i:id70001')).toBe(70_001);
  });

  it('lets the event loop turn while it doubles a large table', async () => {
    const state = new ImportState();
    for (let n = 1; n <= 90_000; n++) await state.remember(row(n));
    // 270,000 keys in 2^20 slots: the next doubling moves them in sixteen slices
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await state.seen.grow();
    counting = false;
    expect(turns).toBeGreaterThanOrEqual(15);
    expect(state.seen.get('u:user90000')).toBe(90_000);
    expect(state.seen.get('e:user1@example.com')).toBe(1);
  });
});
