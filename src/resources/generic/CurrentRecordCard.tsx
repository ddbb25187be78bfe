import type { ReactNode } from 'react';
import { Card, CardContent, Typography } from '@mui/material';

interface CurrentRecordCardProps {
  heading: string;
  name?: string;
  description?: string;
  extra?: ReactNode;
}

/** The "current company" / "current domain" panel above a list. */
export function CurrentRecordCard({ heading, name, description, extra }: CurrentRecordCardProps) {
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
      </CardContent>
    </Card>
  );
}
