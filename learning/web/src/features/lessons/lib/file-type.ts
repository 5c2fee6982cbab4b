import { FileIcon, FileTextIcon, ImageIcon, MusicIcon, VideoIcon, type LucideIcon } from "lucide-react";

export function fileTypeLabel(type: string): string {
  switch (type) {
    case "video":
      return "Vidéo";
    case "image":
      return "Image";
    case "document":
    case "pdf":
      return "Document";
    case "audio":
      return "Audio";
    default:
      return "Fichier";
  }
}

export function fileTypeIcon(type: string): LucideIcon {
  switch (type) {
    case "video":
      return VideoIcon;
    case "image":
      return ImageIcon;
    case "document":
    case "pdf":
      return FileTextIcon;
    case "audio":
      return MusicIcon;
    default:
      return FileIcon;
  }
}
