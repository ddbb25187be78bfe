import { useState } from 'react';
import { MEMBER_PAGE_SIZE } from '../index';
import { memberKey, type PageControls } from './MemberTable';

export function usePageControls(): PageControls {
  const [page, setPage] = useState(1);
  const [perPage, setPerPageState] = useState(MEMBER_PAGE_SIZE);
  return {
    page,
    perPage,
    setPage,
    setPerPage: (value) => {
      setPerPageState(value);
      setPage(1);
    },
  };
}

/** Adds or removes members from a selection kept by key (user:ada, group:ops). */
export function toggleSelection<T extends Parameters<typeof memberKey>[0]>(
  selection: ReadonlyMap<string, T>,
  members: readonly T[],
  selected: boolean,
): Map<string, T> {
  const next = new Map(selection);
  for (const member of members) {
    if (selected) next.set(memberKey(member), member);
    else next.delete(memberKey(member));
  }
  return next;
}
