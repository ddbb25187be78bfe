import { useTranslate, type RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import { StatusList } from './statusList/StatusList';
import type { FormMode } from '../generic/DeclaredFormScreen';

/** SPEC 2.1: /users-new receives company, domain, user, mode and header. */
export function userFormState(mode: FormMode, translate: (key: string) => string, user?: RaRecord) {
  const { company, domain } = getSession();
  const header = translate(mode === 'new' ? 'iam.users.newTitle' : 'iam.users.viewTitle');
  return { company, domain, user, mode, header };
}

export default function UserList() {
  const translate = useTranslate();
  return (
    <StatusList
      nameField="username"
      formState={(mode, record) => userFormState(mode, translate, record)}
      texts={{
        activeTitle: 'iam.users.listTitle',
        deletedTitle: 'iam.users.deletedTitle',
        emptyActive: 'iam.users.emptyActive',
        emptyDeleted: 'iam.users.emptyDeleted',
        emptySearch: 'iam.users.emptySearch',
      }}
    />
  );
}
