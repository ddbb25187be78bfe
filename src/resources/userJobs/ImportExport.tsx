import { useEffect, useId, useRef, useState, type ChangeEvent } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  InputLabel,
  LinearProgress,
  MenuItem,
  Radio,
  RadioGroup,
  Select,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Title, useNavigate, useTranslate } from 'react-admin';
import { currentPathContext } from '../../session/session';
import { DisabledReason } from '../generic/DisabledReason';
import { startExport, startImport, type FileFormat, type MatchBy } from './api';
import { useAllowedAt } from './held';
import { jobHref } from './jobHref';
import { duplicateFields, formatOf, guessMapping, isFieldName, mappingToSend, ROW_FIELDS } from './mapping';
import { PREVIEW_ROWS, readPreview, type Preview } from './preview';

const MATCHES: readonly MatchBy[] = ['none', 'email', 'id'];
const FORMATS: readonly FileFormat[] = ['csv', 'jsonl'];

/** How many of the first rows the mapping shows beside each column. */
const SAMPLE_ROWS = Math.min(3, PREVIEW_ROWS);

function FormatSelect({ value, onChange, label }: { value: FileFormat; onChange: (format: FileFormat) => void; label: string }) {
  const translate = useTranslate();
  const id = useId();
  return (
    <FormControl fullWidth={false} sx={{ width: 240 }}>
      <InputLabel id={id}>{label}</InputLabel>
      <Select labelId={id} label={label} value={value} onChange={(event) => onChange(event.target.value as FileFormat)}>
        {FORMATS.map((format) => (
          <MenuItem key={format} value={format}>
            {translate(`iam.userJobs.formats.${format}`)}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}

/** One source column: what it is imported as, and its first values. */
function MappingRow({ column, field, samples, onChange }: { column: string; field: string; samples: string[]; onChange: (field: string) => void }) {
  const translate = useTranslate();
  const label = translate('iam.userJobs.mapColumn', { column });
  return (
    <TableRow>
      <TableCell component="th" scope="row" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
        {column}
      </TableCell>
      <TableCell sx={{ minWidth: 180 }}>
        <Select
          size="small"
          fullWidth
          value={field}
          displayEmpty
          onChange={(event) => onChange(event.target.value)}
          inputProps={{ 'aria-label': label }}
        >
          {/* a column named as a field is read as that field unless mapped to another */}
          <MenuItem value="" disabled={isFieldName(column)}>
            <em>{translate('iam.userJobs.ignore')}</em>
          </MenuItem>
          {ROW_FIELDS.map((name) => (
            <MenuItem key={name} value={name}>
              {translate(`iam.userJobs.fields.${name}`)}
            </MenuItem>
          ))}
        </Select>
      </TableCell>
      {samples.map((sample, index) => (
        <TableCell key={index} sx={{ maxWidth: 220, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={sample}>
          {sample}
        </TableCell>
      ))}
    </TableRow>
  );
}

function ImportCard() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const context = currentPathContext();
  const { 'users:import': mayImport } = useAllowedAt(context, ['users:import']);
  const [file, setFile] = useState<File>();
  const [format, setFormat] = useState<FileFormat>('csv');
  const [preview, setPreview] = useState<Preview>();
  const [previewError, setPreviewError] = useState<string>();
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [match, setMatch] = useState<MatchBy>('email');
  const [groups, setGroups] = useState(false);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<string>();
  const inputRef = useRef<HTMLInputElement>(null);

  // the preview follows the file and the format chosen
  useEffect(() => {
    if (!file) return;
    let current = true;
    setPreview(undefined);
    setPreviewError(undefined);
    readPreview(file, format).then(
      (read) => {
        if (!current) return;
        setPreview(read);
        setMapping(guessMapping(read.columns));
      },
      (error: Error) => current && setPreviewError(error.message),
    );
    return () => {
      current = false;
    };
  }, [file, format]);

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    event.target.value = '';
    if (!chosen) return;
    setFailure(undefined);
    setFormat(formatOf(chosen.name));
    setFile(chosen);
  };

  const duplicates = duplicateFields(mapping);
  const problems = [
    ...(preview && !Object.values(mapping).includes('email') ? [translate('iam.userJobs.emailRequired')] : []),
    ...duplicates.map((field) => translate('iam.userJobs.duplicateField', { field: translate(`iam.userJobs.fields.${field}`) })),
  ];
  const ready = Boolean(file && preview && problems.length === 0 && !sending);

  const start = async (dryRun: boolean) => {
    if (!file) return;
    setSending(true);
    setFailure(undefined);
    try {
      const job = await startImport(context, file, { format, dryRun, match, groups, mapping: mappingToSend(mapping), fileName: file.name });
      navigate(jobHref('import', job.id, context));
    } catch (error) {
      setFailure((error as Error).message);
      setSending(false);
    }
  };

  const samplesOf = (index: number) => (preview?.rows ?? []).slice(0, SAMPLE_ROWS).map((row) => row[index] ?? '');

  return (
    <Card component="section" aria-labelledby="import-heading">
      <CardContent>
        <Typography variant="h6" component="h2" id="import-heading" gutterBottom>
          {translate('iam.userJobs.importTitle')}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          {translate('iam.userJobs.importHelp')}
        </Typography>
        <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Button variant="outlined" startIcon={<UploadFileIcon />} onClick={() => inputRef.current?.click()}>
            {translate('iam.userJobs.chooseFile')}
          </Button>
          <input
            ref={inputRef}
            type="file"
            hidden
            accept=".csv,.jsonl,.ndjson,.json,text/csv,application/x-ndjson"
            onChange={choose}
            aria-label={translate('iam.userJobs.chooseFile')}
          />
          <Typography sx={{ overflowWrap: 'anywhere' }} role="status">
            {file ? translate('iam.userJobs.chosen', { name: file.name, size: sizeOf(file.size) }) : translate('iam.userJobs.noFile')}
          </Typography>
          {file && <FormatSelect value={format} onChange={setFormat} label={translate('iam.userJobs.fileFormat')} />}
        </Stack>

        {file && !preview && !previewError && <LinearProgress sx={{ mt: 2 }} aria-label={translate('iam.userJobs.reading')} />}
        {previewError && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {translate('iam.userJobs.previewFailed', { message: previewError })}
          </Alert>
        )}
        {preview && preview.columns.length === 0 && (
          <Alert severity="warning" sx={{ mt: 2 }}>
            {translate('iam.userJobs.noColumns')}
          </Alert>
        )}
        {preview && preview.columns.length > 0 && (
          <>
            <Typography variant="subtitle1" component="h3" sx={{ mt: 3 }} id="mapping-heading">
              {translate('iam.userJobs.mappingTitle')}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              {translate('iam.userJobs.mappingHelp')}
            </Typography>
            <TableContainer sx={{ maxWidth: '100%', overflowX: 'auto' }}>
              <Table size="small" aria-labelledby="mapping-heading">
                <TableHead>
                  <TableRow>
                    <TableCell>{translate('iam.userJobs.sourceColumn')}</TableCell>
                    <TableCell>{translate('iam.userJobs.importedAs')}</TableCell>
                    {samplesOf(0).map((_, index) => (
                      <TableCell key={index}>{translate('iam.userJobs.rowNumber', { row: index + 1 })}</TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {preview.columns.map((column, index) => (
                    <MappingRow
                      key={`${index}-${column}`}
                      column={column}
                      field={mapping[column] ?? ''}
                      samples={samplesOf(index)}
                      onChange={(field) => setMapping({ ...mapping, [column]: field })}
                    />
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
            {problems.map((problem) => (
              <Alert key={problem} severity="warning" sx={{ mt: 1 }}>
                {problem}
              </Alert>
            ))}
          </>
        )}

        <Stack direction={{ xs: 'column', md: 'row' }} spacing={4} sx={{ mt: 3 }}>
          <FormControl>
            <FormLabel id="import-match">{translate('iam.userJobs.match')}</FormLabel>
            <RadioGroup aria-labelledby="import-match" value={match} onChange={(event) => setMatch(event.target.value as MatchBy)}>
              {MATCHES.map((value) => (
                <FormControlLabel key={value} value={value} control={<Radio />} label={translate(`iam.userJobs.matches.${value}`)} />
              ))}
            </RadioGroup>
          </FormControl>
          <FormControl>
            <FormControlLabel
              control={<Switch checked={groups} onChange={(event) => setGroups(event.target.checked)} />}
              label={translate('iam.userJobs.importGroups')}
            />
            <FormHelperText>{translate('iam.userJobs.importGroupsHelp')}</FormHelperText>
          </FormControl>
        </Stack>

        {failure && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {failure}
          </Alert>
        )}
        {sending && <LinearProgress sx={{ mt: 2 }} aria-label={translate('iam.userJobs.uploading')} />}
        <Stack direction="row" spacing={1} sx={{ mt: 2 }}>
          <DisabledReason reason={mayImport.reason}>
            <Button variant="outlined" disabled={!ready || !mayImport.allowed} onClick={() => start(true)}>
              {translate('iam.userJobs.dryRun')}
            </Button>
          </DisabledReason>
          <DisabledReason reason={mayImport.reason}>
            <Button variant="contained" disabled={!ready || !mayImport.allowed} onClick={() => start(false)}>
              {translate('iam.userJobs.import')}
            </Button>
          </DisabledReason>
        </Stack>
      </CardContent>
    </Card>
  );
}

function ExportCard() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const context = currentPathContext();
  const allowed = useAllowedAt(context, ['users:export', 'roles:owner']);
  const [format, setFormat] = useState<FileFormat>('csv');
  const [groups, setGroups] = useState(true);
  const [passwordHashes, setPasswordHashes] = useState(false);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<string>();
  const owner = allowed['roles:owner'];

  const start = async () => {
    setSending(true);
    setFailure(undefined);
    try {
      const job = await startExport(context, { format, groups, passwordHashes: passwordHashes && owner.allowed });
      navigate(jobHref('export', job.id, context));
    } catch (error) {
      setFailure((error as Error).message);
      setSending(false);
    }
  };

  return (
    <Card component="section" aria-labelledby="export-heading">
      <CardContent>
        <Typography variant="h6" component="h2" id="export-heading" gutterBottom>
          {translate('iam.userJobs.exportTitle')}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          {translate('iam.userJobs.exportHelp')}
        </Typography>
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <FormatSelect value={format} onChange={setFormat} label={translate('iam.userJobs.format')} />
          <FormControlLabel control={<Switch checked={groups} onChange={(event) => setGroups(event.target.checked)} />} label={translate('iam.userJobs.exportGroups')} />
          <FormControl>
            <DisabledReason reason={owner.reason}>
              <FormControlLabel
                disabled={!owner.allowed}
                control={<Switch checked={passwordHashes && owner.allowed} onChange={(event) => setPasswordHashes(event.target.checked)} />}
                label={translate('iam.userJobs.passwordHashes')}
              />
            </DisabledReason>
            <FormHelperText>{translate('iam.userJobs.passwordHashesHelp')}</FormHelperText>
          </FormControl>
        </Stack>
        {failure && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {failure}
          </Alert>
        )}
        {sending && <LinearProgress sx={{ mt: 2 }} aria-label={translate('iam.userJobs.starting')} />}
        <Box sx={{ mt: 2 }}>
          <DisabledReason reason={allowed['users:export'].reason}>
            <Button variant="contained" disabled={sending || !allowed['users:export'].allowed} onClick={start}>
              {translate('iam.userJobs.export')}
            </Button>
          </DisabledReason>
        </Box>
      </CardContent>
    </Card>
  );
}

/** "1.2 MB": a file's size for people. */
export function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * /users-import (docs/CONSOLE.md, "Import and export"): import users from a CSV or JSON Lines file,
 * its columns mapped to the row fields, as a dry run or for real; export them. Either goes on to the
 * job's screen, which follows its progress.
 */
export default function ImportExport() {
  const translate = useTranslate();
  const navigate = useNavigate();
  return (
    <Box sx={{ mt: 2, maxWidth: 1100 }}>
      <Title title={translate('iam.userJobs.screenTitle')} />
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', rowGap: 1 }}>
        <Typography variant="h5" component="h1">
          {translate('iam.userJobs.screenTitle')}
        </Typography>
        <Button onClick={() => navigate('/syncing-results')}>{translate('iam.userJobs.pastJobs')}</Button>
      </Stack>
      <Stack spacing={3}>
        <ImportCard />
        <ExportCard />
      </Stack>
    </Box>
  );
}
