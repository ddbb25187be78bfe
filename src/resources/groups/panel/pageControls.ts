import { useEffect, useState } from 'react';
import { MEMBER_PAGE_SIZE } from '../index';
import type { PageRequest, PageResult } from '../members/membersApi';
import { usePagedRequest } from './usePagedRequest';

/** Page state of one of the group form's server-paged tables (members, candidates, permissions). */
export interface PageControls {
  page: number;
  perPage: number;
  setPage: (page: number) => void;
  setPerPage: (perPage: number) => void;
}

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

/**
 * A tab's rows of the group, a page at a time, that steps back a page when a removal empties the
 * last one (so the table never shows an empty page after the list's end).
 */
export function useGroupRows<T>(load: (request: PageRequest) => Promise<PageResult<T>>, key: string) {
  const controls = usePageControls();
  const rows = usePagedRequest(load, { page: controls.page, perPage: controls.perPage }, key);
  const { page, setPage } = controls;
  useEffect(() => {
    if (!rows.isPending && rows.rows.length === 0 && page > 1) setPage(page - 1);
  }, [rows.isPending, rows.rows.length, page, setPage]);
  return { controls, rows };
}
