import { useTranslate } from 'react-admin';
import { StatusList } from '../generic/StatusList';
import { DomainSwitcher } from './DomainSwitcher';
import { applicationState } from './formState';

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
