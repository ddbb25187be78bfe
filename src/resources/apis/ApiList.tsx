import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import { DomainSwitcher } from '../applications/DomainSwitcher';
import type { FormMode } from '../generic/formMode';
import { StatusList } from '../generic/StatusList';

/** /apis-new and /apis-view receive company, domain, api, mode (docs/CONSOLE.md, "Routes"). */
export function apiState(mode: FormMode, api?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, api, mode };
}

export default function ApiList() {
  return (
    <StatusList
      toolbarStart={<DomainSwitcher />}
      noExport
      recoverConfirm={{ title: 'iam.applications.recoverTitle', content: 'iam.applications.recoverContent' }}
      formState={apiState}
    />
  );
}
