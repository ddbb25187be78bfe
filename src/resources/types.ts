/**
 * A resource is declared, not coded: the data provider, the menu, the generic list and the generic
 * form read this object. Custom screens (company switch, set primary) are overrides of the generic
 * ones, never required (docs/ADDING-A-RESOURCE.md, "Console declaration").
 */
import type { ComponentType, LazyExoticComponent } from 'react';
import type { RaRecord } from 'react-admin';
import type { PathContext } from '../session/session';

export type FieldKind =
  | 'text'
  | 'textarea'
  | 'email'
  | 'select'
  | 'boolean'
  /** An integer input. */
  | 'number'
  /** A list of URIs edited as one text area, one per line (docs/CONSOLE.md, "Applications"). */
  | 'uriList'
  /** Several of `choices`, stored as a list. */
  | 'checkboxes'
  /** An ISO date and time, shown in the browser's locale (read-only types: events, sessions). */
  | 'dateTime';

/** The colours a select field's values may show in lists (a chip tinted like an MUI alert). */
export type ChoiceColor = 'success' | 'info' | 'warning' | 'error';

/**
 * A field that names a record of another declared resource: lists show that record's `optionText`
 * (read in one batched getMany per page) and, with `link`, open it. The resource may depend on the
 * row (an audit record names its changed record's type in another field).
 */
export interface FieldReference {
  resource: string | ((row: Record<string, unknown>) => string | undefined);
  /** The field holding the referenced id, when not the field itself (a login shown, its userId followed). */
  idSource?: string;
  /** The referenced record's field to show; without it the field's own value shows. */
  optionText?: string;
  /** Where a click on the value goes: the referenced record's screen and its navigation state (`row`: the list's own record). */
  link?: (
    record: Record<string, unknown>,
    translate: (key: string, options?: object) => string,
    row: Record<string, unknown>,
  ) => { to: string; state?: unknown } | undefined;
}

export interface FieldDeclaration {
  source: string;
  kind: FieldKind;
  required?: boolean;
  /** For select fields: the stored values; labels come from `${labelPrefix}.${value}`. */
  choices?: readonly string[];
  choiceLabelPrefix?: string;
  defaultValue?: unknown;
  /** For uriList fields: full URIs, or bare origins (scheme://host[:port]). */
  uriKind?: 'uri' | 'origin';
  /**
   * The provider's limits on this field, checked in the browser before sending (docs/CONSOLE.md,
   * "Errors and messages"): a named format, a length in characters, a range for numbers, names
   * the provider keeps for itself.
   */
  rule?: FieldRule;
  maxLength?: number;
  min?: number;
  max?: number;
  reserved?: readonly string[];
  /** For select fields: the chip colour of some values in lists. */
  choiceColors?: Readonly<Record<string, ChoiceColor>>;
  reference?: FieldReference;
  /** Another field shown when this one is empty (a session's first address when it has no last one). */
  fallback?: string;
  /** i18n key of a line of help under the input (forms only). */
  helpKey?: string;
  /** Lists cut the value to this many characters; the whole of it shows on hover and focus. */
  truncate?: number;
  /** Lists show the value in monospace with a button that copies it (an application's client id). */
  copy?: boolean;
  /** false: the list cannot sort by it (the provider does not, or not quickly). */
  sortable?: boolean;
  /**
   * Lists show the value with this component (lazily loaded) instead, given the row and the field: a
   * value that needs more than the field (the Audit log's actor, with where they acted from).
   */
  cell?: ComponentType<{ record: RaRecord; field: FieldDeclaration }>;
}

/** Formats the provider checks (server/api/schemas.ts and the resource modules). */
export type FieldRule = 'id' | 'email' | 'clientId' | 'clientSecret' | 'noSpaces' | 'scope' | 'httpUrl';

export interface SoftDelete {
  field: string;
  active: string;
  deleted: string;
}

/**
 * A list filter beside the search box. Select and boolean filters send `filter.<source>`; a date
 * range sends `<source>_gte` / `<source>_lte` (days) or a preset `<source>_days` (1: today, 7, 30:
 * the last days, counted when the list is read, so a saved view stays relative), which the data
 * provider turns into conditions; a
 * reference offers the records of another declared resource and sends the chosen id (`inDomain`:
 * those records live in a domain, so while the company has none the id is typed instead).
 */
export type FilterDeclaration = (
  | { source: string; kind: 'select'; choices: readonly string[]; choiceLabelPrefix?: string }
  | { source: string; kind: 'boolean' }
  | { source: string; kind: 'dateRange' }
  | { source: string; kind: 'reference'; reference: string; optionText: string; inDomain?: boolean }
  /** A typed value sent as is (an e-mail domain). */
  | { source: string; kind: 'text' }
) & {
  /** Offered under "Add filter" rather than shown at once (a list with many filters). */
  more?: boolean;
};

/**
 * Where the resource sits in the side bar's menu (docs/CONSOLE.md, "Layout"). `group` names a menu
 * group of the template (users, groups, enterprise, onboarding): the entries join it, before the
 * template's own. Any other group, or none, gives the resource a top-level entry of its own.
 */
export interface MenuPlacement {
  group?: string;
  /** Order among the declared entries of the group (and of the top-level declared entries). */
  order?: number;
  /** The deleted list's entry, for a soft-deletable resource with a deleted route. */
  deletedLabelKey?: string;
}

/** A declared resource's labels per language code ('en', 'fr'…): its name and its fields'. */
export type DeclaredLabels = Readonly<Record<string, { name?: string; fields?: Readonly<Record<string, string>> }>>;

export interface ResourceDeclaration {
  /** react-admin resource name (cache keys, translations under resources.<name>). */
  name: string;
  /**
   * Translation key of the plural label (menu, list title). Without a translation the readable form
   * of the name shows ("devices" as "Devices").
   */
  labelKey: string;
  /**
   * Its labels in each language the declaration gives (docs/ADDING-A-RESOURCE.md, "Adding a
   * language"): the name ("Device |||| Devices") and the fields' labels, under the console's own
   * translations; a language it does not give reads its English, and without any, the readable
   * form of the name shows.
   */
  labels?: DeclaredLabels;
  icon: ComponentType;
  /** Omitted: a top-level menu entry of its own, after the template's resource groups. */
  menu?: MenuPlacement;
  /**
   * The permission resource its calls need (`<permission>:read`, `:write`, `:purge`; the server's
   * definition names the same, docs/CONSOLE.md "Roles"): its name by default, its parent's for an
   * embedded type.
   */
  permission?: string;
  /** The one permission that reading it needs, when not `<permission>:read` (the outbox holds live links: users:write). */
  readPermission?: string;
  /**
   * Provider paths below the API base, computed from the session's current company and domain.
   * collection: lists and getMany; records: create, getOne, update, delete (defaults to collection).
   */
  paths: {
    collection: (context: PathContext) => string;
    records?: (context: PathContext) => string;
  };
  /**
   * The resource lives in a domain: with no current domain (a company without one) its screens
   * show how to create the company's first domain instead of calling the provider.
   */
  needsDomain?: boolean;
  fields: readonly FieldDeclaration[];
  listColumns: readonly string[];
  /** Columns the list's column chooser offers besides listColumns, hidden until chosen. */
  moreColumns?: readonly string[];
  /**
   * The fields the list reads besides its shown columns (a name its confirmations quote, a state
   * its rows mark). Declared: the list asks the provider for its shown columns and these only (the
   * `fields` parameter), and a column chosen later is fetched then. Not declared: whole records.
   */
  listReads?: readonly string[];
  /** Sources searched by the list's search box (sent as filter.q). */
  searchable?: boolean;
  filters?: readonly FilterDeclaration[];
  /** No create, edit or delete: the list and the view form only; its rows have no checkboxes. */
  readOnly?: boolean;
  /**
   * A record's detail beyond its fields (lazily loaded; it reads the record's context): shown under a
   * list row, which expands on click, and under the view form (the Audit log's changes).
   */
  expand?: ComponentType;
  /** The CSV export's columns (else the id and the form's fields); a structured value is written as JSON. */
  exportColumns?: readonly string[];
  /** What an empty list says, with nothing filtered and with filters or search set (else "No records yet."). */
  emptyKeys?: { none: string; filtered: string };
  formFields: readonly string[];
  /** For records without an id of their own (a group's permission grants): their key as the id. */
  recordId?: (record: Record<string, unknown>) => string;
  /** On create, this field's value becomes the id (a group's or domain's id is its name). */
  idFromField?: string;
  softDelete?: SoftDelete;
  defaultSort: { field: string; order: 'ASC' | 'DESC' };
  pageSize: number;
  /**
   * The list shows its page first and its total when counted (`total=deferred`, docs/CONSOLE.md,
   * "Lists"): counting a filtered million-user list costs more than the page.
   */
  deferredTotal?: boolean;
  /** How many page numbers the pagination shows at once (docs/CONSOLE.md, "Constants"). */
  pageWindow: number;
  /** Console routes (docs/CONSOLE.md, "Routes"). */
  routes: {
    list: string;
    form: string;
    /** The deleted (soft-deleted) records' list; App renders the list screen there too. */
    deleted?: string;
    /** A detail screen of its own (/applications-view, /apis-view); App renders screens.view there. */
    view?: string;
    /**
     * The record's shareable address (`/users/:id`): the screen a list row opens, its navigation
     * state built from the path and `?company=&domain=` (generic/RecordLink, docs/CONSOLE.md "Routes").
     */
    record?: string;
  };
  /**
   * Lazily loaded screens that replace the generic ones (generic/GenericList, generic/GenericForm);
   * a plain type declares none.
   */
  screens?: {
    list?: LazyExoticComponent<ComponentType>;
    form?: LazyExoticComponent<ComponentType>;
    view?: LazyExoticComponent<ComponentType>;
  };
  /**
   * Set on a resource reached only inside another resource's screens (an API's permission scopes, a
   * group's members): the data provider knows it, App and the menu give it no routes or entries.
   * Its paths read the parent's id from the path context (`parentId`).
   */
  embeddedIn?: string;
  /**
   * Calls besides the CRUD ones, by name: a POST to the path (JSON body, JSON answer) through the
   * data provider's `action` (a user's "Sign out everywhere").
   */
  actions?: Record<string, (context: PathContext) => string>;
  /** The record screens have a History tab: the audit records of the record (docs/CONSOLE.md, "History and audit log"). */
  history?: HistoryDeclaration;
  /** Tabs the record screens add after their own once the record exists (a user's Sign-ins and Sessions). */
  recordTabs?: readonly RecordTabDeclaration[];
}

/** Where a type's changes are in the audit trail (docs/CONSOLE.md, "History and audit log"). */
export interface HistoryDeclaration {
  /** The audit records' resourceType; the declaration's name by default. */
  resourceType?: string;
  /**
   * The company whose log holds the record's changes, given the company and domain the record
   * belongs to; that company by default (a company's own changes are in its parent's log).
   */
  logCompany?: (record: RaRecord, context: PathContext) => string;
}

/** What a record screen's declared tab is given. */
export interface RecordTabProps {
  declaration: ResourceDeclaration;
  record: RaRecord;
  /** The company and domain the record belongs to. */
  context: PathContext;
}

/** A tab of a record screen (generic/RecordTabs), lazily loaded. */
export interface RecordTabDeclaration {
  /** Unique among the screen's tabs. */
  id: string;
  labelKey: string;
  component: ComponentType<RecordTabProps>;
  /** The declared resource the tab lists: it shows to those who may read it. */
  lists: string;
}
