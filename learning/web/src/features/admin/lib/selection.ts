// The access dialog's select mode: which content items are picked for a bulk action.
export interface SelectionState {
  active: boolean;
  selected: ReadonlySet<string>;
}

export type SelectionAction =
  | { type: "enter" }
  | { type: "cancel" }
  | { type: "toggle"; id: string }
  | { type: "selectAll"; ids: string[] }
  | { type: "selectNone" }
  | { type: "done" };

export const INITIAL_SELECTION: SelectionState = { active: false, selected: new Set() };

export function selectionReducer(state: SelectionState, action: SelectionAction): SelectionState {
  switch (action.type) {
    case "enter":
      return { active: true, selected: new Set() };
    case "toggle": {
      if (!state.active) return state;
      const next = new Set(state.selected);
      if (next.has(action.id)) next.delete(action.id);
      else next.add(action.id);
      return { ...state, selected: next };
    }
    case "selectAll":
      return state.active ? { ...state, selected: new Set([...state.selected, ...action.ids]) } : state;
    case "selectNone":
      return { ...state, selected: new Set() };
    // Cancelling, or a finished bulk action, clears the selection and leaves select mode.
    case "cancel":
    case "done":
      return INITIAL_SELECTION;
  }
}

/** The bulk buttons are disabled while nothing is selected. */
export function canApplyBulk(state: SelectionState): boolean {
  return state.active && state.selected.size > 0;
}

export type BulkKind = "grant" | "revoke";

export function bulkConfirmText(kind: BulkKind, count: number, userName: string): { title: string; body: string; confirm: string } {
  const items = `${count} élément${count > 1 ? "s" : ""} sélectionné${count > 1 ? "s" : ""}`;
  return kind === "grant"
    ? { title: "Confirmer l'accès au contenu", body: `Voulez-vous vraiment accorder l'accès à ${items} pour ${userName} ?`, confirm: "Confirmer l'accès" }
    : { title: "Confirmer la révocation d'accès", body: `Voulez-vous vraiment révoquer l'accès à ${items} pour ${userName} ?`, confirm: "Confirmer la révocation" };
}
