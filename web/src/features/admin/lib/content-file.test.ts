import { describe, expect, it } from "vitest";
import { contentObjectPath, detectFileType, nextOrderIndex, nextProgress, safeFileName, titleFromFileName } from "./content-file";

describe("detectFileType", () => {
  it("maps the spec's extensions, case-insensitively", () => {
    for (const ext of ["mp4", "mov", "avi", "webm"]) expect(detectFileType(`a.${ext}`)).toBe("video");
    for (const ext of ["pdf", "doc", "docx"]) expect(detectFileType(`a.${ext}`)).toBe("document");
    for (const ext of ["jpg", "jpeg", "png", "gif", "webp"]) expect(detectFileType(`a.${ext}`)).toBe("image");
    expect(detectFileType("Leçon 1.PDF")).toBe("document");
  });
  it("knows nothing of other or missing extensions", () => {
    expect(detectFileType("notes.txt")).toBeNull();
    expect(detectFileType("README")).toBeNull();
    expect(detectFileType(".pdf")).toBeNull();
  });
});

describe("file names", () => {
  it("prefills the title from the file name", () => {
    expect(titleFromFileName("les_verbes-irreguliers.pdf")).toBe("les verbes irreguliers");
    expect(titleFromFileName("Leçon 2.final.docx")).toBe("Leçon 2.final");
  });
  it("replaces spaces with underscores and prefixes a timestamp under the course", () => {
    expect(safeFileName(" mon fichier  final.pdf ")).toBe("mon_fichier_final.pdf");
    expect(contentObjectPath("c1", "mon fichier.pdf", 1700000000000)).toBe("c1/1700000000000_mon_fichier.pdf");
  });
});

describe("order and progress", () => {
  it("appends after the highest order index", () => {
    expect(nextOrderIndex([])).toBe(0);
    expect(nextOrderIndex([{ order_index: 0 }, { order_index: 4 }, { order_index: null }])).toBe(5);
  });
  it("steps the simulated progress up to its cap", () => {
    expect(nextProgress(5)).toBe(15);
    expect(nextProgress(85)).toBe(90);
    expect(nextProgress(90)).toBe(90);
    expect(nextProgress(90, 5, 95)).toBe(95);
  });
});
