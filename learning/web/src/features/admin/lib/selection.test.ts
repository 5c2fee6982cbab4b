import { describe, expect, it } from "vitest";
import { bulkConfirmText, canApplyBulk, INITIAL_SELECTION, selectionReducer, type SelectionAction } from "./selection";

const run = (...actions: SelectionAction[]) => actions.reduce(selectionReducer, INITIAL_SELECTION);

describe("selectionReducer", () => {
  it("ignores picks outside select mode", () => {
    expect(run({ type: "toggle", id: "a" }).selected.size).toBe(0);
    expect(canApplyBulk(run({ type: "selectAll", ids: ["a"] }))).toBe(false);
  });
  it("toggles, selects all and none", () => {
    let s = run({ type: "enter" }, { type: "toggle", id: "a" }, { type: "toggle", id: "b" }, { type: "toggle", id: "a" });
    expect([...s.selected]).toEqual(["b"]);
    s = selectionReducer(s, { type: "selectAll", ids: ["a", "b", "c"] });
    expect([...s.selected].sort()).toEqual(["a", "b", "c"]);
    s = selectionReducer(s, { type: "selectNone" });
    expect(s.active).toBe(true);
    expect(canApplyBulk(s)).toBe(false);
  });
  it("leaves select mode and clears after a bulk action or cancel", () => {
    const s = run({ type: "enter" }, { type: "toggle", id: "a" });
    expect(canApplyBulk(s)).toBe(true);
    expect(selectionReducer(s, { type: "done" })).toEqual(INITIAL_SELECTION);
    expect(selectionReducer(s, { type: "cancel" }).active).toBe(false);
  });
});

describe("bulkConfirmText", () => {
  it("names the count and the user", () => {
    expect(bulkConfirmText("grant", 2, "Awa")).toEqual({
      title: "Confirmer l'accès au contenu",
      body: "Voulez-vous vraiment accorder l'accès à 2 éléments sélectionnés pour Awa ?",
      confirm: "Confirmer l'accès",
    });
    expect(bulkConfirmText("revoke", 1, "Awa").body).toBe("Voulez-vous vraiment révoquer l'accès à 1 élément sélectionné pour Awa ?");
  });
});
