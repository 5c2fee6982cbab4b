import { describe, expect, it } from "vitest";
import { courseContactMessage, whatsappLink } from "./whatsapp";

describe("contact links", () => {
  it("prefills the course title and the email, or 'Non spécifié'", () => {
    expect(courseContactMessage("Anglais des affaires", "lea@example.fr")).toContain("Anglais des affaires");
    expect(courseContactMessage("Anglais des affaires", "lea@example.fr")).toContain("lea@example.fr");
    expect(courseContactMessage("X", null)).toContain("Non spécifié");
  });
  it("uses the digits of the number", () => {
    expect(whatsappLink("+33 6 12 34 56 78", "Bonjour à tous")).toBe("https://wa.me/33612345678?text=Bonjour%20%C3%A0%20tous");
  });
});
