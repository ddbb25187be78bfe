import type { ReactNode } from 'react';
import { ResourceContextProvider } from 'react-admin';
import type { ResourceDeclaration } from '../types';
import { DeclarationContext } from './DeclarationContext';

/**
 * The contexts a declared screen reads (its declaration, react-admin's resource), for a list shown
 * inside another resource's screen (a tab of the user screen) rather than on a route.
 */
export function DeclaredScope({ declaration, children }: { declaration: ResourceDeclaration; children: ReactNode }) {
  return (
    <DeclarationContext.Provider value={declaration}>
      <ResourceContextProvider value={declaration.name}>{children}</ResourceContextProvider>
    </DeclarationContext.Provider>
  );
}
