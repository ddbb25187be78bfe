import { lazy, Suspense, type ComponentType } from 'react';
import { Loading, ResourceContextProvider } from 'react-admin';
import { hasScreenWords, loadScreenWords } from '../i18n/i18nProvider';
import { useSession } from '../session/useSession';
import { DeclarationContext } from './generic/DeclarationContext';
import { screenOf, type ScreenKind } from './generic/screens';
import { NoDomainScreen } from './domains/NoDomainGuidance';
import type { ResourceDeclaration } from './types';

/**
 * Renders nothing once the screens' words (i18n/screens.ts) are in the i18n provider; until then it
 * suspends, as a lazy screen does (React's `use` would wait for an awaited `act` in the tests).
 */
const ScreenWords = lazy(() => loadScreenWords().then(() => ({ default: () => null })));

/**
 * Renders one of a declaration's screens inside its resource and declaration contexts: `screen` if
 * given (tests), else the declaration's own screen of that kind, else the generic one.
 * A resource that lives in a domain shows the way to the company's first domain while there is no
 * current domain, so none of its screens calls the provider with an empty domain id.
 * A screen's words are not in the first screen after sign-in: they load with the first screen that
 * needs them (React goes on to load the screen while they do), and the Suspense boundary shows the
 * screen once both are there, so that it never shows a raw `iam.` key.
 */
export function DeclaredRoute({ declaration, kind = 'list', screen }: { declaration: ResourceDeclaration; kind?: ScreenKind; screen?: ComponentType }) {
  const { domain } = useSession();
  const Screen = screen ?? screenOf(declaration, kind);
  return (
    <DeclarationContext.Provider value={declaration}>
      <ResourceContextProvider value={declaration.name}>
        {/* a record's address names its domain: it is read there even while the current company has none */}
        {declaration.needsDomain && !domain && kind !== 'record' ? (
          <NoDomainScreen titleKey={declaration.labelKey} />
        ) : (
          <Suspense fallback={<Loading />}>
            {!hasScreenWords() && <ScreenWords />}
            <Screen />
          </Suspense>
        )}
      </ResourceContextProvider>
    </DeclarationContext.Provider>
  );
}
