import type { ReactElement } from 'react';
import { AutocompleteInput, DateInput, NullableBooleanInput, ReferenceInput, SearchInput, SelectInput, TextInput, type TranslateFunction } from 'react-admin';
import type { FilterDeclaration, ResourceDeclaration } from '../types';

function filterInputs(filter: FilterDeclaration, label: string, translate: TranslateFunction, hasDomain: boolean): ReactElement[] {
  const { source } = filter;
  switch (filter.kind) {
    case 'select':
      return [
        <SelectInput
          key={source}
          source={source}
          alwaysOn
          emptyText="iam.list.any"
          choices={filter.choices.map((value) => ({
            id: value,
            name: filter.choiceLabelPrefix ? translate(`${filter.choiceLabelPrefix}.${value}`) : value,
          }))}
        />,
      ];
    case 'boolean':
      return [<NullableBooleanInput key={source} source={source} alwaysOn nullLabel="iam.list.any" />];
    case 'dateRange':
      // the data provider turns these into the conditions <source> >= from and < the day after until
      return [
        <DateInput key={`${source}_gte`} source={`${source}_gte`} alwaysOn label={translate('iam.list.from', { field: label })} />,
        <DateInput key={`${source}_lte`} source={`${source}_lte`} alwaysOn label={translate('iam.list.until', { field: label })} />,
      ];
    case 'reference':
      // records of a domain cannot be offered while the company has none: the id is typed instead
      if (!hasDomain && filter.inDomain) {
        return [<TextInput key={source} source={source} alwaysOn label={label} resettable />];
      }
      return [
        <ReferenceInput key={source} source={source} reference={filter.reference} alwaysOn>
          <AutocompleteInput optionText={filter.optionText} sx={{ minWidth: 200 }} />
        </ReferenceInput>,
      ];
  }
}

/**
 * The search box (when searchable) and the declared filters, all shown at once (docs/CONSOLE.md,
 * "Resources"), but for those a screen fixes itself (`hidden`).
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
