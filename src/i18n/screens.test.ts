import englishMessages from 'ra-language-english';
import { describe, expect, it } from 'vitest';
import { en } from './en';
import { i18nProvider, loadScreenWords } from './i18nProvider';
import { reactAdminFirstScreen } from './reactAdmin';
import { screens } from './screens';

/** Every message key of a messages object, 'iam.users.listTitle' for { iam: { users: { listTitle } } }. */
function keysOf(messages: object, prefix = ''): string[] {
  return Object.entries(messages).flatMap(([name, value]) =>
    typeof value === 'string' ? [`${prefix}${name}`] : keysOf(value as object, `${prefix}${name}.`),
  );
}

const valueOf = (messages: object, key: string): unknown =>
  key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], messages);

const RAW_KEY = /^(?:iam|ra|resources)\./;

// One file, in this order: the provider starts with the first screen's words, as in the app.
describe('messages of the first screen (en.ts) and of the screens that load on use (screens.ts)', () => {
  it('define no key in both', () => {
    const first = new Set(keysOf(en));
    expect(keysOf(screens).filter((key) => first.has(key))).toEqual([]);
  });

  it("copy react-admin's words for the first screen as react-admin has them", () => {
    const copied = keysOf(reactAdminFirstScreen);
    expect(copied.length).toBeGreaterThan(20);
    for (const key of copied) expect(valueOf(reactAdminFirstScreen, key), key).toBe(valueOf(englishMessages, key));
  });

  it("before a screen has loaded, the provider has the first screen's words, and a screen's key is missing", () => {
    for (const key of [...keysOf(en), ...keysOf(reactAdminFirstScreen)]) expect(i18nProvider.translate(key, { smart_count: 2 }), key).not.toMatch(RAW_KEY);
    expect(i18nProvider.translate('iam.dashboard.hello', { displayName: 'Ada' })).toBe('Hello Ada');
    expect(i18nProvider.translate('iam.menu.allUsers', { _: 'Users', smart_count: 2 })).toBe('All users');
    // what a screen says is not there yet: the key, or the default given
    expect(i18nProvider.translate('iam.users.listTitle')).toBe('iam.users.listTitle');
    expect(i18nProvider.translate('ra.action.save')).toBe('ra.action.save');
    expect(i18nProvider.translate('iam.sessions.tab', { _: 'Sessions' })).toBe('Sessions');
  });

  it('once a screen has loaded, every key of both, and of react-admin, with the same interpolation and pluralization', async () => {
    await loadScreenWords();
    for (const key of [...keysOf(en), ...keysOf(screens), ...keysOf(englishMessages)]) {
      expect(i18nProvider.translate(key, { smart_count: 2 }), key).not.toMatch(RAW_KEY);
    }
    expect(i18nProvider.translate('iam.users.listTitle')).toBe('Users');
    expect(i18nProvider.translate('iam.sessions.revoked', { application: 'Shop' })).toBe('Session of Shop revoked');
    expect(i18nProvider.translate('resources.users.name', { smart_count: 1 })).toBe('User');
    expect(i18nProvider.translate('resources.users.name', { smart_count: 2 })).toBe('Users');
    expect(i18nProvider.translate('ra.notification.updated', { smart_count: 3 })).toBe('3 elements updated');
    expect(i18nProvider.translate('ra.action.save')).toBe('Save');
    // ours still win over react-admin's, and the first screen's words are still there
    expect(i18nProvider.translate('ra.notification.created', { place: 'Globex › prod' })).toBe('Created in Globex › prod');
    expect(i18nProvider.translate('iam.dashboard.hello', { displayName: 'Ada' })).toBe('Hello Ada');
  });

  it('a key still missing behaves as before: the key, the default, or a declared name in readable form', () => {
    expect(i18nProvider.translate('iam.nothing.here')).toBe('iam.nothing.here');
    expect(i18nProvider.translate('iam.nothing.here', { _: 'Fallback %{n}', n: 1 })).toBe('Fallback 1');
    expect(i18nProvider.translate('resources.devices.fields.serialNumber')).toBe('Serial Number');
    expect(i18nProvider.translate('resources.users.fields.displayName')).toBe('Display Name');
  });
});

describe("the audit trail's words", () => {
  it('label every action the Audit log filters by', async () => {
    const { AUDIT_ACTIONS } = await import('../resources/auditEvents/vocabulary');
    for (const action of AUDIT_ACTIONS) expect(typeof valueOf(screens, `iam.audit.actions.${action}`), action).toBe('string');
  });
});
