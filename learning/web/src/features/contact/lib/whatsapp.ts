import { phoneDigits } from "@/lib/format";

export function whatsappLink(phone: string, text?: string): string {
  const base = `https://wa.me/${phoneDigits(phone)}`;
  return text ? `${base}?text=${encodeURIComponent(text)}` : base;
}

/** Prefilled message of the course contact dialog. */
export function courseContactMessage(courseTitle: string, email: string | null | undefined): string {
  return `Bonjour, je souhaite accéder au cours « ${courseTitle} ». Mon email : ${email || "Non spécifié"}`;
}
