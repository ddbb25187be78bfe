import { MenuItem, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { updateSession } from '../../session/session';
import { useSession } from '../../session/useSession';
import { useCompanyDomains } from './useCompanyDomains';

/**
 * docs/CONSOLE.md, "Applications": the Domains drop-down. Choosing a domain makes it the session's current domain, so
 * the list (whose query carries the domain) shows that domain's records.
 */
export function DomainSwitcher() {
  const translate = useTranslate();
  const { domain } = useSession();
  const { data: domains = [] } = useCompanyDomains();
  const known = domains.some((candidate) => candidate.id === domain?.id);

  return (
    <TextField
      select
      size="small"
      label={translate('iam.applications.domains')}
      value={known ? domain?.id : ''}
      onChange={(event) => {
        const chosen = domains.find((candidate) => candidate.id === event.target.value);
        if (chosen) updateSession({ domain: chosen });
      }}
      sx={{ minWidth: 200 }}
    >
      {domains.map((candidate) => (
        <MenuItem key={candidate.id} value={candidate.id}>
          {candidate.name}
        </MenuItem>
      ))}
    </TextField>
  );
}
