// Its own module: the search dialog opens records too, without loading the list screen.
import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import type { FormMode } from '../generic/formMode';

/** /users-new receives company, domain, user, mode and header (docs/CONSOLE.md, "Routes"). */
export function userFormState(mode: FormMode, translate: (key: string) => string, user?: RaRecord) {
  const { company, domain } = getSession();
  const header = translate(mode === 'new' ? 'iam.users.newTitle' : 'iam.users.viewTitle');
  return { company, domain, user, mode, header };
}
