import type { ReactNode } from 'react';
import { Box, Card, CardContent, Typography } from '@mui/material';

interface CurrentRecordCardProps {
  heading: string;
  name?: string;
  description?: string;
  extra?: ReactNode;
  /** Links or buttons about the current record (the current domain's settings). */
  actions?: ReactNode;
}

/** The "current company" / "current domain" panel above a list. */
export function CurrentRecordCard({ heading, name, description, extra, actions }: CurrentRecordCardProps) {
  return (
    <Card sx={{ mt: 2 }} component="section" aria-label={heading}>
      <CardContent>
        <Typography variant="overline" component="h2" color="text.secondary">
          {heading}
        </Typography>
        <Typography variant="h6" component="p">
          {name}
        </Typography>
        {description && <Typography color="text.secondary">{description}</Typography>}
        {extra}
        {actions && <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, mt: 2 }}>{actions}</Box>}
      </CardContent>
    </Card>
  );
}
