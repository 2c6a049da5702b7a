// Validation messages next to the field they are about. The core names the
// field in AppError.field; a message it cannot place goes under the form.

import { isAppError, messageOf } from "./api";

/** Which slot shows an error: the named field's, or the form's own. */
export function errorSlot(field: string | null | undefined, known: readonly string[]): string {
  return field && known.includes(field) ? field : "form";
}

export function clearErrors(slots: Record<string, HTMLElement>): void {
  Object.values(slots).forEach((s) => { s.textContent = ""; });
}

export function showError(e: unknown, slots: Record<string, HTMLElement>): void {
  clearErrors(slots);
  const field = isAppError(e) ? e.field : null;
  const slot = slots[errorSlot(field, Object.keys(slots))] ?? slots.form;
  if (slot) slot.textContent = messageOf(e);
}

/** A number input's value: null when empty, NaN passes on so the core names it. */
export function numberOrNull(value: string): number | null {
  const v = value.trim();
  return v === "" ? null : Number(v);
}
