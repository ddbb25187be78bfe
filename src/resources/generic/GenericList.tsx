import { TopToolbar, useNavigate, useTranslate } from 'react-admin';
import { useDeclaration } from './DeclarationContext';
import { DeclaredList } from './DeclaredList';
import { DeleteSelectedButton } from './DeleteSelectedButton';
import { ExportCsvButton } from './ExportCsvButton';
import { NewButton } from './NewButton';
import { recordHref } from './recordLink';
import { currentPathContext } from '../../session/session';
import { StatusList } from './StatusList';
import { useListMeta } from './useListMeta';

/**
 * The list screen a declaration gets when it has no screen of its own: search, declared filters,
 * server paging and sort, New, Purge of the selection after a confirmation, CSV export. A
 * read-only type has neither New nor Purge. A soft-deletable type gets the status list (Delete,
 * Recover, Purge).
 */
export default function GenericList() {
  const declaration = useDeclaration();
  return declaration.softDelete ? <StatusList /> : <PlainList />;
}

function PlainList() {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const meta = useListMeta();
  return (
    <DeclaredList
      title={translate(declaration.labelKey, { _: translate(`resources.${declaration.name}.name`, { smart_count: 2 }) })}
      meta={meta}
      // the record's shareable address when it has one (docs/CONSOLE.md, "Routes")
      onRowClick={(record) =>
        navigate(recordHref(declaration.name, record.id, currentPathContext()) ?? declaration.routes.form, { state: { mode: 'view', record } })
      }
      actions={
        <TopToolbar>
          {!declaration.readOnly && (
            <>
              <NewButton onClick={() => navigate(declaration.routes.form, { state: { mode: 'new' } })} />
              <DeleteSelectedButton meta={meta} successMessage="iam.statusList.purged" />
            </>
          )}
          <ExportCsvButton meta={meta} columns={declaration.exportColumns ?? ['id', ...declaration.formFields]} filename={declaration.name} />
        </TopToolbar>
      }
    />
  );
}
