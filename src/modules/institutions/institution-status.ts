/** An institution's status; suspended: its keys get 403 until it is reactivated. A leaf, so the key lookup can type it without importing the institutions service. */
export const INSTITUTION_STATUSES = ['active', 'suspended'] as const;
export type InstitutionStatus = (typeof INSTITUTION_STATUSES)[number];
