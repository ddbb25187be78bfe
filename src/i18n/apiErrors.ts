/**
 * The management API's error codes in words (docs/CONSOLE.md, "Errors and messages"): the API
 * answers an English `message` with a stable `code` and the `params` it names; in another language
 * the console shows the sentence of the code (src/http/apiErrorText.ts), else the message. In
 * English the console shows the provider's own message, so these are the translators' source. The
 * generic codes of a refusal that only the message explains (bad_request, conflict, forbidden) have
 * no sentence: their message is shown.
 */
export const apiErrors = {
  validation: {
    required: '%{field} is required.',
    format: '%{field} is not in the expected format (%{format}).',
    tooLong: '%{field} must have at most %{limit} characters.',
    tooShort: '%{field} must have at least %{limit} characters.',
    pattern: '%{field} does not have the expected form.',
    tooLarge: '%{field} must be at most %{limit}.',
    tooSmall: '%{field} must be at least %{limit}.',
    tooMany: '%{field} may have at most %{limit} items.',
    tooFew: '%{field} needs at least %{limit} items.',
    choice: '%{field} must be one of the allowed values.',
    type: '%{field} has the wrong type of value (%{type} expected).',
    unknownField: '%{field} is not a field of this resource.',
    invalid: '%{field} is not valid.',
  },
  permission: {
    missing: 'Your role does not allow %{permission} here. Roles that allow it: %{roles}.',
  },
  containment: {
    roleGroup: 'Group %{group} gives a role to its members: changing its members needs the roles:write permission.',
    give: 'You cannot give the %{role} role over %{place}: your roles there do not give all it gives.',
    higher: 'You cannot act on %{id}: it holds the %{role} role over %{place}, and your roles there do not give all of it.',
  },
  branding: {
    contrastDescendant: '%{companyName} (%{company}), below this company, sets one of the two colours itself: with these colours it would show %{primary} on %{background}, a contrast ratio of %{ratio}; WCAG AA asks at least %{minimum}.',
  },
  not_found: 'Not found: %{what}.',
  duplicate: '%{name} already exists.',
  duplicate_record: 'This record already exists.',
  last_owner: 'This is the last Owner of the provider: give the Owner role to someone else first.',
  last_administrator: 'Domain %{domain} would have no active administrator left. Add another user to %{group} first.',
  reference_missing: 'A record this one refers to does not exist.',
  invalid_value: 'A value was refused as invalid.',
  unauthorized: 'Your session has ended: sign in again.',
  method_not_allowed: 'This action is not allowed here.',
  payload_too_large: 'What was sent is too large.',
  unsupported_media_type: 'This type of content is not accepted.',
  too_many_requests: 'Too many requests: try again in a moment.',
  unavailable: 'The service is unavailable at the moment. Try again in a few seconds.',
  internal: 'The provider met an internal error.',
};
