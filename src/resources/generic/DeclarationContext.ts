import { createContext, useContext } from 'react';
import type { ResourceDeclaration } from '../types';

export const DeclarationContext = createContext<ResourceDeclaration | undefined>(undefined);

export function useDeclaration(): ResourceDeclaration {
  const declaration = useContext(DeclarationContext);
  if (!declaration) throw new Error('useDeclaration must be used inside a declared resource route');
  return declaration;
}
