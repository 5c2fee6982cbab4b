import { useQuery } from "@tanstack/react-query";
import { getSiteContact, type SiteContact } from "@/features/contact/api/site";

const EMPTY: SiteContact = { whatsapp_number: null, email: null };

/** The teacher's contact, read once per page load (a failure shows empty values and is read again at the next use). */
export function useSiteContact(): SiteContact {
  const { data } = useQuery({ queryKey: ["site-contact"], queryFn: getSiteContact, staleTime: Infinity });
  return data ?? EMPTY;
}
