import { Suspense, type ComponentType } from 'react';
import { Loading, ResourceContextProvider } from 'react-admin';
import { useSession } from '../session/useSession';
import { DeclarationContext } from './generic/DeclarationContext';
import { NoDomainScreen } from './domains/NoDomainGuidance';
import type { ResourceDeclaration } from './types';

/**
 * Renders one of a declaration's lazily loaded screens inside its resource and declaration contexts.
 * A resource that lives in a domain shows the way to the company's first domain while there is no
 * current domain, so none of its screens calls the provider with an empty domain id.
 */
export function DeclaredRoute({ declaration, screen: Screen }: { declaration: ResourceDeclaration; screen: ComponentType }) {
  const { domain } = useSession();
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
