import { useLocation } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import type { ResourceDeclaration } from '../types';
import { useDeclaration } from './DeclarationContext';

export type ListStatus = 'active' | 'deleted';

/** The deleted list is the declaration's `routes.deleted`; every other path shows the active records. */
export function useListStatus(): ListStatus {
  const declaration = useDeclaration();
  const { pathname } = useLocation();
  return declaration.routes.deleted !== undefined && pathname === declaration.routes.deleted ? 'deleted' : 'active';
}

/** The condition that keeps a list to one status (docs/CONSOLE.md, "Data provider conventions"). */
export function statusCondition(declaration: ResourceDeclaration, status: ListStatus): IamMeta['condition'] {
  const soft = declaration.softDelete;
  if (!soft) return undefined;
  return status === 'deleted' ? `${soft.field},=,${soft.deleted}` : `${soft.field},!=,${soft.deleted}`;
}
