import { Button } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { TopToolbar, useNavigate, useTranslate } from 'react-admin';
import { useDeclaration } from './DeclarationContext';
import { DeclaredList } from './DeclaredList';
import { DeleteSelectedButton } from './DeleteSelectedButton';
import { useListMeta } from './useListMeta';

/** The list screen a declaration gets when it has no screen of its own. */
export default function GenericList() {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const meta = useListMeta();
  return (
    <DeclaredList
      title={translate(declaration.labelKey)}
      meta={meta}
      onRowClick={(record) => navigate(declaration.routes.form, { state: { mode: 'view', record } })}
      actions={
        <TopToolbar>
          <Button startIcon={<AddIcon />} onClick={() => navigate(declaration.routes.form, { state: { mode: 'new' } })}>
            {translate('iam.actions.new')}
          </Button>
          <DeleteSelectedButton meta={meta} successMessage="iam.statusList.purged" />
        </TopToolbar>
      }
    />
  );
}
