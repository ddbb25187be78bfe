// Its own module: the search dialog opens records too, without loading the list screen.
import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import type { FormMode } from '../generic/formMode';

/** /groups-new receives company, domain, group and mode (docs/CONSOLE.md, "Routes"). */
export function groupFormState(mode: FormMode, group?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, group, mode };
}
