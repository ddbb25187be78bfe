import { lazy, type ComponentType } from 'react';
import type { ResourceDeclaration } from '../types';

/** The screens every declaration gets unless it brings its own (loaded on first use). */
const GenericList = lazy(() => import('./GenericList'));
const GenericForm = lazy(() => import('./GenericForm'));
/** A record's shareable address: it reads the record, then shows the screen its list row opens (../lazyParts). */
const RecordLink = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.RecordLink })));

export type ScreenKind = 'list' | 'form' | 'view' | 'record';

/** The declaration's own screen of this kind, else the generic one (a view route shows the form in view mode). */
export function screenOf(declaration: ResourceDeclaration, kind: ScreenKind): ComponentType {
  if (kind === 'record') return RecordLink;
  return declaration.screens?.[kind] ?? (kind === 'list' ? GenericList : GenericForm);
}
