import { Suspense, type ComponentType } from 'react';
import { Loading, ResourceContextProvider } from 'react-admin';
import { DeclarationContext } from './generic/DeclarationContext';
import type { ResourceDeclaration } from './types';

/** Renders one of a declaration's lazily loaded screens inside its resource and declaration contexts. */
export function DeclaredRoute({ declaration, screen: Screen }: { declaration: ResourceDeclaration; screen: ComponentType }) {
  return (
    <DeclarationContext.Provider value={declaration}>
      <ResourceContextProvider value={declaration.name}>
        <Suspense fallback={<Loading />}>
          <Screen />
        </Suspense>
      </ResourceContextProvider>
    </DeclarationContext.Provider>
  );
}
