import { Button } from '@mui/material';
import ImportExportIcon from '@mui/icons-material/ImportExport';
import { Link } from 'react-router-dom';
import { useTranslate } from 'react-admin';

/** The users list's way to the Import / Export screen (docs/CONSOLE.md, "Import and export"); that screen says what the roles allow. */
export function ImportExportButton() {
  const translate = useTranslate();
  return (
    <Button component={Link} to="/users-import" startIcon={<ImportExportIcon />}>
      {translate('iam.userJobs.screenTitle')}
    </Button>
  );
}
