import { describe, expect, it } from "vitest";
import { chooseFile, contentObjectPath, videoFileRefusal, detectFileType, downloadName, nextOrderIndex, safeFileName, timestampedName, titleFromFileName } from "./content-file";

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
    // Books are stored at the bucket's root.
    expect(timestampedName("mon  livre final.pdf", 1700000000000)).toBe("1700000000000_mon_livre_final.pdf");
  });
});

describe("order", () => {
  it("appends after the highest order index", () => {
    expect(nextOrderIndex([])).toBe(0);
    expect(nextOrderIndex([{ order_index: 0 }, { order_index: 4 }, { order_index: null }])).toBe(5);
  });
});

describe("chooseFile", () => {
  it("takes the type and title of the first file", () => {
    expect(chooseFile({ title: "", fileType: "" }, "schéma.png", null)).toEqual({ title: "schéma", fileType: "image" });
  });
  it("follows a newly chosen file: a .txt after a .png clears 'Image'", () => {
    const first = chooseFile({ title: "", fileType: "" }, "schéma.png", null);
    expect(chooseFile(first, "notes.txt", "schéma.png")).toEqual({ title: "notes", fileType: "" });
    expect(chooseFile(first, "cours.pdf", "schéma.png")).toEqual({ title: "cours", fileType: "document" });
  });
  it("keeps a title the admin typed", () => {
    expect(chooseFile({ title: "Mon titre", fileType: "image" }, "notes.txt", "schéma.png")).toEqual({ title: "Mon titre", fileType: "" });
    expect(chooseFile({ title: "Mon titre", fileType: "" }, "cours.pdf", null)).toEqual({ title: "Mon titre", fileType: "document" });
  });
});

describe("downloadName", () => {
  it("names the saved file after the lesson, with the stored file's extension", () => {
    expect(downloadName("Les couleurs", "c1/2_lesson.png")).toBe("Les couleurs.png");
    expect(downloadName("Fiche.pdf", "c1/1700_fiche.PDF")).toBe("Fiche.pdf");
    expect(downloadName("  ", "c1/notes")).toBe("contenu");
    expect(downloadName("Fiche : les nombres", "c1/1_lesson.pdf")).toBe("Fiche - les nombres.pdf");
    expect(downloadName("a/b\\c?", "c1/x.pdf")).toBe("a-b-c-.pdf");
  });
});

describe("videoFileRefusal", () => {
  it("refuses video files by extension or by media type, naming the file and where a video goes", () => {
    for (const name of ["cours.mp4", "Cours.MOV", "a.avi", "a.webm"]) expect(videoFileRefusal({ name, type: "" })).toMatch(/^Les fichiers vidéo ne sont pas acceptés/);
    expect(videoFileRefusal({ name: "film.mkv", type: "video/x-matroska" })).toContain("«\u00a0film.mkv\u00a0»");
    expect(videoFileRefusal({ name: "cours.mp4", type: "video/mp4" })).toContain("Vidéo intégrée (embed)");
  });
  it("lets every other file through", () => {
    expect(videoFileRefusal({ name: "cours.pdf", type: "application/pdf" })).toBeNull();
    expect(videoFileRefusal({ name: "dialogue.mp3", type: "audio/mpeg" })).toBeNull();
    expect(videoFileRefusal({ name: "notes.txt", type: "" })).toBeNull();
  });
});
