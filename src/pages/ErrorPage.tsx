import { translate } from '../i18n/translate';

/** Where a failed sign-in ends (SPEC 2.3). SPEC does not show its content; we offer a way back. */
export default function ErrorPage() {
  return (
    <main className="plain-page">
      <h1>{translate('iam.error.title')}</h1>
      <p>{translate('iam.error.text')}</p>
      <a className="plain-button" href="/login">
        {translate('iam.error.login')}
      </a>
    </main>
  );
}
