import { useState } from 'react';
import { Alert, Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useTranslate } from 'react-admin';

interface CodeSnippetProps {
  intro: string;
  code?: string;
  error?: string;
}

/** A Quick Start snippet: an introduction, the code and a copy button. */
export function CodeSnippet({ intro, code, error }: CodeSnippetProps) {
  const translate = useTranslate();
  const [copied, setCopied] = useState(false);
  if (error) {
    return (
      <Alert severity="error" role="alert">
        {translate('iam.quickStart.discoveryFailed', { error })}
      </Alert>
    );
  }
  if (!code) return <CircularProgress aria-label={translate('iam.list.loading')} />;
  return (
    <>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1, gap: 1, flexWrap: 'wrap' }}>
        <Typography>{intro}</Typography>
        <Button
          startIcon={<ContentCopyIcon />}
          onClick={async () => {
            await navigator.clipboard?.writeText(code).catch(() => undefined);
            setCopied(true);
          }}
        >
          {translate(copied ? 'iam.quickStart.copied' : 'iam.quickStart.copy')}
        </Button>
      </Stack>
      <Box
        component="pre"
        role="region"
        tabIndex={0}
        aria-label={translate('iam.quickStart.code')}
        sx={{
          p: 2,
          m: 0,
          overflow: 'auto',
          maxHeight: 480,
          borderRadius: 1,
          bgcolor: 'action.hover',
          color: 'text.primary',
          fontSize: 13,
        }}
      >
        <code>{code}</code>
      </Box>
    </>
  );
}
