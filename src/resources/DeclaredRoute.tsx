import { Suspense, type ComponentType } from 'react';
import { Loading, ResourceContextProvider } from 'react-admin';
import { useSession } from '../session/useSession';
import { DeclarationContext } from './generic/DeclarationContext';
import { screenOf, type ScreenKind } from './generic/screens';
import { NoDomainScreen } from './domains/NoDomainGuidance';
import type { ResourceDeclaration } from './types';

/**
 * Renders one of a declaration's screens inside its resource and declaration contexts: `screen` if
 * given (tests), else the declaration's own screen of that kind, else the generic one.
 * A resource that lives in a domain shows the way to the company's first domain while there is no
 * current domain, so none of its screens calls the provider with an empty domain id.
 */
export function DeclaredRoute({ declaration, kind = 'list', screen }: { declaration: ResourceDeclaration; kind?: ScreenKind; screen?: ComponentType }) {
  const { domain } = useSession();
  const Screen = screen ?? screenOf(declaration, kind);
  return (
    <DeclarationContext.Provider value={declaration}>
      <ResourceContextProvider value={declaration.name}>
        {declaration.needsDomain && !domain ? (
          <NoDomainScreen titleKey={declaration.labelKey} />
        ) : (
          <Suspense fallback={<Loading />}>
            <Screen />
          </Suspense>
        )}
      </ResourceContextProvider>
    </DeclarationContext.Provider>
  );
}
