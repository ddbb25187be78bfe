import { useTranslate } from 'react-admin';
import type { ChoiceColor } from '../types';
import { ColorChip } from '../generic/FieldValue';
import type { Job } from './api';

const COLORS: Partial<Record<Job['status'], ChoiceColor>> = { done: 'success', failed: 'error', running: 'info', queued: 'info', uploading: 'info', cancelled: 'warning' };

/** A job's status as a tinted chip: the words carry it, the colour repeats it. */
export function JobStatusChip({ job }: { job: Job }) {
  const translate = useTranslate();
  const done = job.status === 'done' && job.failed > 0;
  return <ColorChip color={done ? 'warning' : COLORS[job.status]}>{translate(`iam.userJobs.statuses.${done ? 'doneWithErrors' : job.status}`)}</ColorChip>;
}

/** What a job is: an import, a dry run or an export. */
export function useJobKindLabel() {
  const translate = useTranslate();
  return (job: Job) => translate(`iam.userJobs.kinds.${job.kind === 'export' ? 'export' : job.options?.dryRun ? 'dryRun' : 'import'}`);
}
