import type { ReactElement } from 'react';
import {
  AutocompleteInput,
  DateInput,
  NullableBooleanInput,
  ReferenceInput,
  SearchInput,
  SelectInput,
  TextInput,
  useCanAccess,
  type TranslateFunction,
} from 'react-admin';
import type { FilterDeclaration, ResourceDeclaration } from '../types';

interface ReferenceFilterProps {
  source: string;
  label: string;
  alwaysOn: boolean;
  reference: string;
  optionText?: string;
}

/**
 * A filter on a referenced record: picked from that type's records when the person may read them
 * here, else typed (docs/CONSOLE.md, "Roles": Support filters sign-ins by an application's client
 * id, and no list of applications is asked for).
 */
function ReferenceFilter({ reference, optionText, ...input }: ReferenceFilterProps) {
  const readable = useCanAccess({ resource: reference, action: 'list' }).canAccess === true;
  if (!readable) return <TextInput {...input} resettable />;
  return (
    <ReferenceInput {...input} reference={reference}>
      <AutocompleteInput optionText={optionText} label={input.label} sx={{ minWidth: 200 }} />
    </ReferenceInput>
  );
}

/** The date presets a date range offers, in days counted back from today (1: today). */
export const DATE_PRESETS = [1, 7, 30] as const;

function filterInputs(filter: FilterDeclaration, label: string, translate: TranslateFunction, hasDomain: boolean): ReactElement[] {
  const { source } = filter;
  // a filter offered under "Add filter" is on as soon as it is added: a yes/no one as yes
  const alwaysOn = !filter.more;
  switch (filter.kind) {
    case 'select':
      return [
        <SelectInput
          key={source}
          source={source}
          label={label}
          alwaysOn={alwaysOn}
          emptyText="iam.list.any"
          choices={filter.choices.map((value) => ({
            id: value,
            name: filter.choiceLabelPrefix ? translate(`${filter.choiceLabelPrefix}.${value}`) : value,
          }))}
        />,
      ];
    case 'boolean':
      return [<NullableBooleanInput key={source} source={source} label={label} alwaysOn={alwaysOn} defaultValue={alwaysOn ? undefined : true} nullLabel="iam.list.any" />];
    case 'text':
      return [<TextInput key={source} source={source} label={label} alwaysOn={alwaysOn} resettable />];
    case 'dateRange':
      // the data provider turns these into conditions: the last days (counted when the list is
      // read), and <source> >= from and < the day after until
      return [
        <SelectInput
          key={`${source}_days`}
          source={`${source}_days`}
          alwaysOn={alwaysOn}
          label={translate('iam.list.within', { field: label })}
          defaultValue={alwaysOn ? undefined : 7}
          emptyText="iam.list.any"
          choices={DATE_PRESETS.map((days) => ({ id: days, name: translate(`iam.list.lastDays.${days}`) }))}
        />,
        <DateInput key={`${source}_gte`} source={`${source}_gte`} alwaysOn={alwaysOn} label={translate('iam.list.from', { field: label })} />,
        <DateInput key={`${source}_lte`} source={`${source}_lte`} alwaysOn={alwaysOn} label={translate('iam.list.until', { field: label })} />,
      ];
    case 'reference':
      // records of a domain cannot be offered while the company has none: the id is typed instead
      if (!hasDomain && filter.inDomain) {
        return [<TextInput key={source} source={source} alwaysOn={alwaysOn} label={label} resettable />];
      }
      return [<ReferenceFilter key={source} source={source} reference={filter.reference} alwaysOn={alwaysOn} label={label} optionText={filter.optionText} />];
  }
}

/**
 * The search box (when searchable) and the declared filters (docs/CONSOLE.md, "Lists"): shown at
 * once, or under "Add filter" when declared `more`; but for those a screen fixes itself (`hidden`).
 */
export function declaredFilters(
  declaration: ResourceDeclaration,
  translate: TranslateFunction,
  hidden: readonly string[] = [],
  hasDomain = true,
): ReactElement[] {
  const search = declaration.searchable ? [<SearchInput key="q" source="q" alwaysOn />] : [];
  return [
    ...search,
    ...(declaration.filters ?? [])
      .filter((filter) => !hidden.includes(filter.source))
      .flatMap((filter) => filterInputs(filter, translate(`resources.${declaration.name}.fields.${filter.source}`), translate, hasDomain)),
  ];
}

/** Whether a declaration offers filters under "Add filter" (its list then shows the button). */
export const hasMoreFilters = (declaration: ResourceDeclaration, hidden: readonly string[] = []) =>
  (declaration.filters ?? []).some((filter) => filter.more && !hidden.includes(filter.source));
