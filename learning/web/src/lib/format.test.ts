import { describe, expect, it } from "vitest";
import { formatDateFr, formatDateTimeFr, formatFileSize, matchesSearch, phoneDigits } from "./format";

describe("formatFileSize", () => {
  it("uses 1024-based French units (o, Ko, Mo, Go) with one decimal and a comma", () => {
    expect(formatFileSize(512)).toBe("512 o");
    expect(formatFileSize(1024)).toBe("1,0 Ko");
    expect(formatFileSize(1536)).toBe("1,5 Ko");
    expect(formatFileSize(1024 * 1024)).toBe("1,0 Mo");
    expect(formatFileSize(5 * 1024 * 1024 + 200 * 1024)).toBe("5,2 Mo");
  });
  it("shows gigabytes only where allowed", () => {
    expect(formatFileSize(3 * 1024 ** 3)).toBe("3072,0 Mo");
    expect(formatFileSize(3 * 1024 ** 3, { gigabytes: true })).toBe("3,0 Go");
  });
  it("is empty for a missing size", () => {
    expect(formatFileSize(null)).toBe("");
    expect(formatFileSize(undefined)).toBe("");
  });
});

describe("French dates", () => {
  it("shows day, short month, year, hour and minute", () => {
    expect(formatDateTimeFr(new Date(2025, 2, 5, 14, 7))).toBe("5 mars 2025 à 14:07");
    expect(formatDateTimeFr(new Date(2024, 0, 31, 9, 0))).toBe("31 janv. 2024 à 09:00");
  });
  it("formats a date alone", () => {
    expect(formatDateFr(new Date(2025, 11, 1))).toBe("1 déc. 2025");
  });
  it("is empty for missing or invalid input", () => {
    expect(formatDateTimeFr(null)).toBe("");
    expect(formatDateTimeFr("not a date")).toBe("");
  });
});

describe("matchesSearch", () => {
  it("matches title or description case-insensitively", () => {
    const book = { title: "Grammaire Anglaise", description: "Les temps du passé" };
    expect(matchesSearch(book, "grammaire")).toBe(true);
    expect(matchesSearch(book, "PASSÉ")).toBe(true);
    expect(matchesSearch(book, "vocabulaire")).toBe(false);
    expect(matchesSearch(book, "  ")).toBe(true);
  });
});

describe("phoneDigits", () => {
  it("keeps digits only", () => {
    expect(phoneDigits("+33 6 12-34 56 78")).toBe("33612345678");
  });
});
