import { describe, expect, it } from 'vitest';
import { isEmailAddress as providerRule } from '../../../server/api/schemas';
import { isEmailAddress as browserRule } from './emailAddress';

/** Addresses the provider accepts (RFC 6531/6532) and ones it refuses; both rules must agree on each. */
export const ACCEPTED = [
  'ada@example.com',
  'a.b+tag@example.co.uk',
  "o'neil@example.com",
  'josé@exämple.com',
  '用户@例子.广告',
  'дмитрий@пример.рф',
  'user@xn--bcher-kva.example',
  'USER@EXAMPLE.COM',
  'x@bücher.de',
  `${'a'.repeat(64)}@example.com`,
];
export const REFUSED = [
  '',
  'plainaddress',
  '@example.com',
  'ada@',
  'ada@localhost',
  'ada@例子',
  'a..b@example.com',
  '.ada@example.com',
  'ada.@example.com',
  'ada lovelace@example.com',
  '"ada"@example.com',
  'ada@[127.0.0.1]',
  'ada@exam_ple.com',
  'ada@-example.com',
  'ada@example..com',
  'ada@ex%41mple.com',
  'ada@example.com/',
  'ada@exa mple.com',
  'ada@ex\u00a0ample.com',
  `${'a'.repeat(65)}@example.com`,
  `ada@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}.com`,
  'josé@exämple.com\n',
  // the host parser would stop at '?' and '#' and check only what comes before
  'ada@example.com?x',
  'ada@example.com#x',
];

describe("the browser's email rule", () => {
  it.each(ACCEPTED)('accepts %s as the provider does', (address) => {
    expect(providerRule(address)).toBe(true);
    expect(browserRule(address)).toBe(true);
  });

  it.each(REFUSED)('refuses %j as the provider does', (address) => {
    expect(providerRule(address)).toBe(false);
    expect(browserRule(address)).toBe(false);
  });
});
