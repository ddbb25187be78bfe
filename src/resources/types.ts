/**
 * A resource is declared, not coded: the data provider, the generic list and the generic form
 * read this object. Custom screens (company switch, set primary) extend a declaration.
 */
import type { ComponentType, LazyExoticComponent } from 'react';
import type { PathContext } from '../session/session';

export type FieldKind =
  | 'text'
  | 'textarea'
  | 'email'
  | 'select'
  | 'boolean'
  /** An integer input. */
  | 'number'
  /** A list of URIs edited as one text area, one per line (SPEC 5). */
  | 'uriList'
  /** Several of `choices`, stored as a list. */
  | 'checkboxes';

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
}

/** Formats the provider checks (server/api/schemas.ts and the resource modules). */
export type FieldRule = 'id' | 'email' | 'clientId' | 'clientSecret' | 'noSpaces' | 'scope' | 'httpUrl';

export interface SoftDelete {
  field: string;
  active: string;
  deleted: string;
}

export interface ResourceDeclaration {
  /** react-admin resource name (cache keys, translations under resources.<name>). */
  name: string;
  /** Translation key of the plural label. */
  labelKey: string;
  icon: ComponentType;
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
  /** Sources searched by the list's search box (sent as filter.q). */
  searchable?: boolean;
  formFields: readonly string[];
  /** On create, this field's value becomes the id (SPEC 3: id equal to name). */
  idFromField?: string;
  softDelete?: SoftDelete;
  defaultSort: { field: string; order: 'ASC' | 'DESC' };
  pageSize: number;
  /** How many page numbers the pagination shows at once (SPEC 9). */
  pageWindow: number;
  /** Console routes (SPEC 2.1) and the lazily loaded screens that render them. */
  routes: {
    list: string;
    form: string;
    /** The deleted (soft-deleted) records' list; App renders the list screen there too. */
    deleted?: string;
    /** A detail screen of its own (SPEC 2.1: /applications-view, /apis-view); App renders screens.view there. */
    view?: string;
  };
  screens: {
    list: LazyExoticComponent<ComponentType>;
    form: LazyExoticComponent<ComponentType>;
    view?: LazyExoticComponent<ComponentType>;
  };
  /**
   * Set on a resource reached only inside another resource's screens (an API's permission scopes):
   * the data provider knows it, App gives it no routes.
   */
  embeddedIn?: string;
}
