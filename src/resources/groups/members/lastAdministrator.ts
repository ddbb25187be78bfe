import { useGetList } from 'react-admin';
import type { Administrator } from '../../../dataProvider';
import type { PathContext } from '../../../session/session';
import { ADMINISTRATORS_GROUP, lastAdministratorReason, useAdministrators } from '../../users/administrators';
import { groupMembers } from '../index';
import { groupMeta } from '../panel/useGroupList';
import type { Member } from './member';
import { memberKey } from './MemberTable';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Enough for any real administrators group; past it the console leaves the check to the provider. */
const MAX_MEMBERS = 1000;

/**
 * Why removing these members from `administrators` would leave the domain without an active
 * administrator (the provider answers 409, docs/CONSOLE.md "Groups"). Known for sure only when no
 * group member stays: a nested group that stays may still hold one, and then the provider decides.
 * `members` is every direct member of `administrators`.
 */
export function membersRemovalReason(
  selected: readonly Member[],
  members: readonly Member[] | undefined,
  administrators: readonly Administrator[] | undefined,
  translate: Translate,
): string | undefined {
  if (!members || !administrators?.length) return undefined;
  const removed = new Set(selected.map(memberKey));
  const staying = members.filter((member) => !removed.has(memberKey(member)));
  if (staying.some((member) => member.type === 'group')) return undefined;
  const stayingUsers = new Set(staying.map((member) => member.id));
  if (administrators.some((admin) => stayingUsers.has(admin.id))) return undefined;
  return lastAdministratorReason(
    administrators.map((admin) => admin.id),
    administrators,
    translate,
  );
}

/** The reason for the Members tab of `administrators`; other groups' tabs leave it to the provider. */
export function useMembersRemovalReason(context: PathContext, groupId: string, selected: readonly Member[], translate: Translate) {
  const isAdministrators = groupId === ADMINISTRATORS_GROUP;
  const administrators = useAdministrators(context, isAdministrators && selected.length > 0);
  // every direct member, read again with the members list after an Add or a removal
  const members = useGetList<Member>(
    groupMembers.name,
    { pagination: { page: 1, perPage: MAX_MEMBERS }, sort: groupMembers.defaultSort, meta: groupMeta(context, groupId) },
    { enabled: isAdministrators && selected.length > 0 && Boolean(context.companyId && context.domainId) },
  );
  if (!isAdministrators) return undefined;
  const all = members.data && members.total !== undefined && members.data.length >= members.total ? members.data : undefined;
  return membersRemovalReason(selected, all, administrators.data, translate);
}
