import { DomainSwitcher } from '../applications/DomainSwitcher';
import { StatusList } from '../generic/StatusList';
import { apiState } from './formState';

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
