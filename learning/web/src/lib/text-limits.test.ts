import { describe, expect, it } from "vitest";
import { limitMessage, maxLength, storedLength, TextLimitError, textLimitError, tooLong } from "./text-limits";

describe("text limits", () => {
  it("counts characters as Postgres does (code points), after trimming", () => {
    expect(storedLength("comment", "😀😀")).toBe(2); // four UTF-16 units
    expect(tooLong("comment", "😀".repeat(maxLength("comment")))).toBeUndefined();
    expect(tooLong("comment", "😀".repeat(maxLength("comment") + 1))).toBe("Le commentaire ne doit pas dépasser 2\u202f000 caractères (2\u202f001 actuellement).");
    expect(tooLong("comment", `  ${"a".repeat(maxLength("comment"))}  `)).toBeUndefined();
    expect(tooLong("fullName", null)).toBeUndefined();
  });

  it("counts object names in bytes, as storage does", () => {
    expect(storedLength("bookFile", "é")).toBe(2);
    expect(tooLong("bookFile", "é".repeat(513))).toBe("Le nom du fichier ne doit pas dépasser 1\u202f024 octets (1\u202f026 actuellement).");
  });

  it("says the bound in French", () => {
    expect(limitMessage("comment")).toBe("Le commentaire ne doit pas dépasser 2\u202f000 caractères.");
    expect(limitMessage("whatsapp")).toBe("Le numéro WhatsApp ne doit pas dépasser 32 caractères.");
  });

  it("recognises PostgREST's refusal by the constraint's name", () => {
    const refusal = { code: "23514", message: 'new row for relation "private_messages" violates check constraint "private_messages_content_max_length"', details: null, hint: null };
    const error = textLimitError(refusal);
    expect(error).toBeInstanceOf(TextLimitError);
    expect(error?.message).toBe(limitMessage("message"));
    expect(error?.cause).toBe(refusal);
    expect(textLimitError(error)).toBe(error);
  });

  it("leaves other errors alone", () => {
    expect(textLimitError({ code: "23514", message: 'violates check constraint "courses_title_check"' })).toBeNull();
    expect(textLimitError({ code: "23505", message: 'check constraint "books_title_max_length"' })).toBeNull();
    expect(textLimitError(new Error("network"))).toBeNull();
    expect(textLimitError(null)).toBeNull();
  });
});
