import { useState } from 'react';
import { Button } from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import { downloadCSV, useListContext, useNotify, useTranslate, type SortPayload } from 'react-admin';
import { createDataProvider, type IamMeta } from '../../dataProvider';
import { httpClient } from '../../http/httpClient';
import { registry } from '../registry';
import { useDeclaration } from './DeclarationContext';
import { useChosenColumns } from './ListTools';

interface ExportCsvButtonProps {
  meta?: IamMeta;
  /** The columns written when the list has no column chooser (else the id and the columns chosen). */
  columns: readonly string[];
  filename: string;
  /** Filter values the list always sends besides the visible ones (its permanent `filter`). */
  filter?: Record<string, unknown>;
}

/**
 * The provider's streamed export of a list (docs/CONSOLE.md, "Fields, filters and CSV export of the
 * lists"): the list's own request, so the same path, filters, conditions and sort, with
 * `/export.csv` after the path, no range, and the columns and their headers. The request is the one
 * the data provider would send for the list's first page, caught before it leaves.
 */
export async function exportUrl(
  resource: string,
  params: { filter: Record<string, unknown>; sort: SortPayload; meta?: IamMeta },
  columns: readonly string[],
  labels: readonly string[],
): Promise<string> {
  let listUrl = '';
  const probe = createDataProvider({
    resources: registry,
    httpClient: async (url) => {
      listUrl = url;
      return { status: 200, headers: new Headers({ 'Content-Range': 'items 0-0/0' }), body: '[]', json: [] };
    },
  });
  await probe.getList(resource, { pagination: { page: 1, perPage: 1 }, ...params });
  const cut = listUrl.indexOf('?');
  const query = new URLSearchParams(listUrl.slice(cut + 1));
  query.delete('range');
  query.set('columns', columns.join(','));
  query.set('labels', JSON.stringify(labels));
  return `${listUrl.slice(0, cut)}/export.csv?${query.toString()}`;
}

/**
 * Downloads the whole of the list's current search, filters, sort and status as CSV, the columns
 * chosen (with the id first, and what the declaration exports that no column shows last) under
 * their headers, streamed by the provider however long the list
 * is; read through the signed-in http client (the export needs the list's permission).
 */
export function ExportCsvButton({ meta, columns, filename, filter }: ExportCsvButtonProps) {
  const { resource, filterValues, sort, total, data } = useListContext();
  // an uncounted list (total=deferred) has rows when its page has
  const rows = data?.length ?? 0;
  const empty = total === undefined ? rows === 0 : total === 0;
  const translate = useTranslate();
  const notify = useNotify();
  const chosen = useChosenColumns();
  const declaration = useDeclaration();
  // what the declaration exports that no column shows (the Audit log's changes, as JSON) comes last
  const shown = [...declaration.listColumns, ...(declaration.moreColumns ?? [])];
  const exportOnly = (declaration.exportColumns ?? []).filter((column) => column !== 'id' && !shown.includes(column));
  const [exporting, setExporting] = useState(false);
  const label = (column: string) =>
    translate(`resources.${resource}.columns.${column}`, { _: translate(`resources.${resource}.fields.${column}`, { _: column === 'id' ? 'ID' : column }) });

  const exportRows = async () => {
    setExporting(true);
    try {
      const sources = chosen ? [...new Set(['id', ...chosen.sources, ...exportOnly])] : [...columns];
      const labels = chosen ? sources.map((source) => chosen.labels[chosen.sources.indexOf(source)] ?? label(source)) : sources.map(label);
      const url = await exportUrl(resource, { filter: { ...filterValues, ...filter }, sort, meta }, sources, labels);
      const { body } = await httpClient(url, { headers: { Accept: 'text/csv' } });
      // the provider's text starts with a byte-order mark or not; downloadCSV adds none
      downloadCSV(body, filename);
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setExporting(false);
    }
  };

  return (
    <Button startIcon={<DownloadIcon />} disabled={empty || exporting} onClick={exportRows}>
      {translate('iam.statusList.export')}
    </Button>
  );
}
