import { useState } from 'react';
import { Button } from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import { downloadCSV, useDataProvider, useListContext, useNotify, useTranslate, type RaRecord } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { toCsv } from './csv';

/** Rows per request: the provider's largest page. */
export const EXPORT_PAGE = 1000;
/** An export stops here; a narrower search exports the rest. */
export const EXPORT_LIMIT = 10_000;

interface ExportCsvButtonProps {
  meta?: IamMeta;
  columns: readonly string[];
  filename: string;
  /** Filter values the list always sends besides the visible ones (its permanent `filter`). */
  filter?: Record<string, unknown>;
}

/**
 * Downloads the rows of the list's current search, sort and status as CSV. The rows are read
 * page by page from the provider, never as one unbounded request.
 */
export function ExportCsvButton({ meta, columns, filename, filter }: ExportCsvButtonProps) {
  const { resource, filterValues, sort, total } = useListContext();
  const dataProvider = useDataProvider();
  const translate = useTranslate();
  const notify = useNotify();
  const [exporting, setExporting] = useState(false);

  const exportRows = async () => {
    setExporting(true);
    try {
      const rows: RaRecord[] = [];
      let available = Infinity;
      for (let page = 1; rows.length < Math.min(available, EXPORT_LIMIT); page++) {
        const { data, total: counted } = await dataProvider.getList(resource, {
          pagination: { page, perPage: EXPORT_PAGE },
          sort,
          filter: { ...filterValues, ...filter },
          meta,
        });
        rows.push(...data);
        available = counted ?? rows.length;
        if (data.length < EXPORT_PAGE) break;
      }
      const exported = rows.slice(0, EXPORT_LIMIT);
      downloadCSV(toCsv(columns, exported), filename);
      if (available > EXPORT_LIMIT) notify('iam.statusList.exportLimited', { type: 'warning', messageArgs: { count: EXPORT_LIMIT } });
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setExporting(false);
    }
  };

  return (
    <Button startIcon={<DownloadIcon />} disabled={!total || exporting} onClick={exportRows}>
      {translate('iam.statusList.export')}
    </Button>
  );
}
