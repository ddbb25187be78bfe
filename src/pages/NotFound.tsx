import { translate } from '../i18n/translate';

/** The 404 page (docs/CONSOLE.md, "Layout"). Plain markup so the same page serves inside and outside the admin app. */
export default function NotFound() {
  return (
    <main className="plain-page">
      <p className="plain-page__code">{translate('iam.notFound.code')}</p>
      <h1>{translate('iam.notFound.title')}</h1>
      <p>{translate('iam.notFound.subtitle')}</p>
      <a className="plain-button" href="/">
        {translate('iam.notFound.home')}
      </a>
    </main>
  );
}
