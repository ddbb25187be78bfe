/**
 * The one form mode of every form screen (docs/CONSOLE.md, "Resources"): new, view (read-only,
 * with Edit) and edit.
 */
export type FormMode = 'new' | 'view' | 'edit';

export function isFormMode(value: unknown): value is FormMode {
  return value === 'new' || value === 'view' || value === 'edit';
}
