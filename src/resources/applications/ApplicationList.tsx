import { useTranslate, type RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import type { FormMode } from '../generic/formMode';
import { StatusList } from '../generic/StatusList';
import { DomainSwitcher } from './DomainSwitcher';

/** /applications-new and /applications-view receive company, domain, application, mode, header (docs/CONSOLE.md, "Routes"). */
export function applicationState(mode: FormMode, header: string, application?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, application, mode, header };
}

export default function ApplicationList() {
  const translate = useTranslate();
  return (
    <StatusList
      toolbarStart={<DomainSwitcher />}
      noExport
      recoverConfirm={{ title: 'iam.applications.recoverTitle', content: 'iam.applications.recoverContent' }}
      formState={(mode, record) =>
        applicationState(mode, translate(mode === 'new' ? 'iam.applications.newTitle' : 'iam.applications.viewTitle'), record)
      }
    />
  );
}
