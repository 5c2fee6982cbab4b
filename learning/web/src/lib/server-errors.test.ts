import { describe, expect, it } from "vitest";
import { frenchError, looksFrench, serverError, translateServerMessage } from "./server-errors";

describe("translateServerMessage", () => {
  it("says the backend's known English answers in French", () => {
    expect(translateServerMessage("new row violates row-level security policy for table \"books\"")).toBe("Action refusée : vous n'avez pas les droits nécessaires.");
    expect(translateServerMessage("TypeError: Failed to fetch")).toBe("Connexion au serveur impossible : vérifiez votre connexion puis réessayez.");
    expect(translateServerMessage("JWT expired")).toBe("Votre session a expiré : reconnectez-vous.");
    expect(translateServerMessage("The object exceeded the maximum allowed size")).toBe("Le fichier dépasse la taille maximale autorisée.");
    expect(translateServerMessage("Maximum size exceeded")).toBe("Le fichier dépasse la taille maximale autorisée.");
    expect(translateServerMessage("The resource already exists")).toBe("Cet élément existe déjà.");
    expect(translateServerMessage("Object not found")).toBe("Élément introuvable : il a peut-être été supprimé.");
  });
  it("keeps French as it is, and knows statuses without a message", () => {
    expect(translateServerMessage("Le titre ne doit pas dépasser 200 caractères.")).toBe("Le titre ne doit pas dépasser 200 caractères.");
    expect(translateServerMessage("", 503)).toBe("Le serveur a rencontré une erreur : réessayez plus tard.");
    expect(translateServerMessage("", 403)).toBe("Action refusée : vous n'avez pas les droits nécessaires.");
  });
  it("answers null for English it does not know", () => {
    expect(translateServerMessage("column foo does not exist")).toBeNull();
    expect(translateServerMessage(undefined)).toBeNull();
  });
});

describe("frenchError", () => {
  it("never gives the server's English: the known French, else the fallback", () => {
    expect(frenchError({ message: "permission denied for table profiles", code: "42501" }, "Impossible.")).toBe("Action refusée : vous n'avez pas les droits nécessaires.");
    expect(frenchError(new Error("column foo does not exist"), "Impossible de charger les cours.")).toBe("Impossible de charger les cours.");
    expect(frenchError(new Error("Vous devez être connecté."), "x")).toBe("Vous devez être connecté.");
    expect(frenchError(null, "Impossible.")).toBe("Impossible.");
    expect(serverError({ message: "boom" }, "Impossible de supprimer le cours.").message).toBe("Impossible de supprimer le cours.");
  });
  it("tells French from English", () => {
    expect(looksFrench("Impossible de charger les livres")).toBe(true);
    expect(looksFrench("Failed to load comments")).toBe(false);
  });
});
