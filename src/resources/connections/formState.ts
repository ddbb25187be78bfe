import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import type { FormMode } from '../generic/formMode';

/** /connections-new and /connections-view receive company, domain, connection and mode (docs/CONSOLE.md, "Routes"). */
export function connectionState(mode: FormMode, connection?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, connection, mode };
}
