import { useEffect } from "react";
import { SITE_NAME } from "@/config/app";

export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} — ${SITE_NAME}` : `${SITE_NAME} — Apprenez l'anglais facilement`;
  }, [title]);
}
