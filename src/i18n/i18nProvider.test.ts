/**
 * The console's languages (docs/CONSOLE.md, "Languages"): the six by their own names, each
 * language's module replacing the English of the first screen and of the screens, <html lang dir>,
 * dates in the chosen language, a declaration's labels per language, the default language.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../resources/generic/dateTime';
import { declareLabels, i18nProvider, loadScreenWords } from './i18nProvider';
import { chosenLanguage, LANGUAGE_KEY } from './language';
import { applyLanguage, translate } from './translate';

const t = (key: string, options?: object) => i18nProvider.translate(key, options);

describe('the console in six languages', () => {
  it('lists the six by their own names', () => {
    expect(i18nProvider.getLocales?.()).toEqual([
      { locale: 'en', name: 'English' },
      { locale: 'fr', name: 'Français' },
      { locale: 'de', name: 'Deutsch' },
      { locale: 'es', name: 'Español' },
      { locale: 'ja', name: '日本語' },
      { locale: 'ar', name: 'العربية' },
    ]);
  });

  it("a language's module replaces the first screen's English, and the screens' once they load", async () => {
    await i18nProvider.changeLocale('fr');
    expect(i18nProvider.getLocale()).toBe('fr');
    expect(t('iam.dashboard.hello', { displayName: 'Ada' })).toBe('Bonjour Ada');
    expect(t('ra.action.save')).toBe('Enregistrer');
    expect(document.documentElement.lang).toBe('fr');
    expect(document.documentElement.dir).toBe('ltr');
    // the plain pages inside the console (its 404 page) read the same language
    expect(translate('iam.notFound.home')).toBe("Aller à l'accueil");
    await loadScreenWords();
    expect(t('iam.users.listTitle')).toBe('Utilisateurs');
    expect(t('resources.users.name', { smart_count: 2 })).toBe('Utilisateurs');
    expect(t('iam.bulk.done.block', { smart_count: 3 })).toBe('3 utilisateurs bloqués');
    expect(t('ra.notification.created', { place: 'Globex › prod' })).toBe('Créé dans Globex › prod');
  });

  it('Arabic is right to left, with its six plural forms; a resource name in the plural reads as a plural', async () => {
    await i18nProvider.changeLocale('ar');
    expect(document.documentElement.lang).toBe('ar');
    expect(document.documentElement.dir).toBe('rtl');
    expect(t('iam.menu.allUsers')).toBe('كل المستخدمين');
    expect(t('iam.bulk.done.block', { smart_count: 1 })).toBe('حُظر مستخدم واحد');
    expect(t('iam.bulk.done.block', { smart_count: 2 })).toBe('حُظر مستخدمان');
    expect(t('iam.bulk.done.block', { smart_count: 5 })).toBe('حُظر 5 مستخدمين');
    expect(t('iam.bulk.done.block', { smart_count: 11 })).toBe('حُظر 11 مستخدمًا');
    expect(t('resources.users.name', { smart_count: 2 })).toBe('المستخدمون');
    expect(t('resources.users.name', { smart_count: 1 })).toBe('المستخدم');
  });

  it('back to English', async () => {
    await i18nProvider.changeLocale('en');
    expect(t('iam.users.listTitle')).toBe('Users');
    expect(document.documentElement.dir).toBe('ltr');
  });

  it("a declaration's labels, per language, with English and then the readable name as fallbacks", async () => {
    declareLabels([
      { name: 'devices', labels: { en: { name: 'Device |||| Devices', fields: { serialNumber: 'Serial' } }, fr: { name: 'Appareil |||| Appareils', fields: { serialNumber: 'Numéro de série' } } } },
      { name: 'printers' },
    ]);
    expect(t('resources.devices.name', { smart_count: 2 })).toBe('Devices');
    await i18nProvider.changeLocale('fr');
    expect(t('resources.devices.name', { smart_count: 2 })).toBe('Appareils');
    expect(t('resources.devices.fields.serialNumber')).toBe('Numéro de série');
    await i18nProvider.changeLocale('ar');
    expect(t('resources.devices.fields.serialNumber')).toBe('Serial');
    expect(t('resources.printers.fields.tonerLevel')).toBe('Toner Level');
    await i18nProvider.changeLocale('en');
  });

  it('dates and times through Intl in the language shown', async () => {
    await i18nProvider.changeLocale('fr');
    const date = new Date(2026, 0, 2, 15, 4, 5).toISOString();
    expect(formatDateTime(date)).toContain('02/01/2026');
    await i18nProvider.changeLocale('en');
    expect(formatDateTime(date)).toContain('1/2/2026');
  });
});

describe('the language chosen', () => {
  afterEach(() => {
    localStorage.clear();
    vi.restoreAllMocks();
  });

  it("is the stored choice, else the browser's first among the six, else English", () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['pt-BR', 'ja-JP', 'fr']);
    expect(chosenLanguage()).toBe('ja');
    localStorage.setItem(LANGUAGE_KEY, 'ar');
    expect(chosenLanguage()).toBe('ar');
    localStorage.setItem(LANGUAGE_KEY, 'xx');
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['pt-BR', 'it']);
    expect(chosenLanguage()).toBe('en');
  });

  it('the sign-in pages read it too, and remember a choice', async () => {
    await applyLanguage('fr', true);
    expect(translate('iam.login.submit')).toBe('Se connecter');
    expect(localStorage.getItem(LANGUAGE_KEY)).toBe('fr');
    expect(document.documentElement.lang).toBe('fr');
    await applyLanguage('en');
    expect(translate('iam.login.submit')).toBe('Login');
  });
});
