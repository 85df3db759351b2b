/**
 * Lengths an activity's texts may have, wherever they come from (a file, the external
 * platform, a PATCH): one definition for the API schema and for the check before storing.
 */
export const MAX_NAME_LENGTH = 255
export const MAX_DESCRIPTION_LENGTH = 10_000
