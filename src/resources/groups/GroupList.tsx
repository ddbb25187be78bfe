import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import { StatusList } from '../users/statusList/StatusList';
import type { FormMode } from '../generic/DeclaredFormScreen';

/** SPEC 2.1: /groups-new receives company, domain, group and mode. */
export function groupFormState(mode: FormMode, group?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, group, mode };
}

export default function GroupList() {
  return (
    <StatusList
      nameField="name"
      formState={groupFormState}
      texts={{
        activeTitle: 'iam.groups.listTitle',
        deletedTitle: 'iam.groups.deletedTitle',
        emptyActive: 'iam.groups.emptyActive',
        emptyDeleted: 'iam.groups.emptyDeleted',
        emptySearch: 'iam.groups.emptySearch',
      }}
    />
  );
}
