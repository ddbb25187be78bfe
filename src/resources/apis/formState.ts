// Its own module: the search dialog opens records too, without loading the list screen.
import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import type { FormMode } from '../generic/formMode';

/** /apis-new and /apis-view receive company, domain, api, mode (docs/CONSOLE.md, "Routes"). */
export function apiState(mode: FormMode, api?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, api, mode };
}
