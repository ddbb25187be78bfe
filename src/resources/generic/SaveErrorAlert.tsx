import { Alert, AlertTitle } from '@mui/material';
import type { SaveFailure } from './saveError';

/** The alert above a form for a save the provider refused (docs/CONSOLE.md, "Errors and messages"). */
export function SaveErrorAlert({ alert }: { alert?: SaveFailure['alert'] }) {
  if (!alert) return null;
  return (
    <Alert severity="error" role="alert" sx={{ mb: 2 }}>
      {alert.title && <AlertTitle>{alert.title}</AlertTitle>}
      {alert.message}
    </Alert>
  );
}
