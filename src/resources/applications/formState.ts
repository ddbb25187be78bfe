// Its own module: the search dialog opens records too, without loading the list screen.
import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import type { FormMode } from '../generic/formMode';

/** /applications-new and /applications-view receive company, domain, application, mode, header (docs/CONSOLE.md, "Routes"). */
export function applicationState(mode: FormMode, header: string, application?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, application, mode, header };
}
