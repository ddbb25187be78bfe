import { lazy } from 'react';
import MailIcon from '@mui/icons-material/Mail';
import type { ResourceDeclaration } from '../types';

const OutboxMessage = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.OutboxMessage })));

/**
 * The domain's outbox (docs/CONSOLE.md, "E-mail, reset links and invitations"): every message the
 * provider wrote, newest first, sent or waiting (without SMTP_URL they only wait here); a row opens
 * to the message and Resend. Support staff see it (users:recover) without the messages' text, which
 * holds the live link: the provider sends the text only to roles holding users:write.
 */
export const outbox: ResourceDeclaration = {
  name: 'outbox',
  labelKey: 'iam.outbox.title',
  icon: MailIcon,
  menu: { group: 'users', order: 30 },
  permission: 'users',
  readPermission: 'users:recover',
  needsDomain: true,
  readOnly: true,
  searchable: true,
  paths: {
    collection: ({ companyId, domainId }) => `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/outbox`,
  },
  fields: [
    { source: 'createdAt', kind: 'dateTime' },
    { source: 'recipient', kind: 'text', sortable: false },
    { source: 'subject', kind: 'text', sortable: false },
    { source: 'purpose', kind: 'select', choices: ['reset', 'invite', 'verify', 'link-identity'], choiceLabelPrefix: 'iam.outbox.purposes', sortable: false },
    { source: 'sentAt', kind: 'dateTime', sortable: false },
  ],
  listColumns: ['createdAt', 'recipient', 'subject', 'purpose', 'sentAt'],
  formFields: [],
  expand: OutboxMessage,
  emptyKeys: { none: 'iam.outbox.empty', filtered: 'iam.outbox.emptyFiltered' },
  defaultSort: { field: 'createdAt', order: 'DESC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/outbox', form: '/outbox-view' },
  screens: { list: lazy(() => import('../lazyParts').then((parts) => ({ default: parts.OutboxList }))) },
};
