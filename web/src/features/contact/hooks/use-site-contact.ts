import * as React from "react";
import { getSiteContact, type SiteContact } from "@/features/contact/api/site";

const EMPTY: SiteContact = { whatsapp_number: null, email: null };

export function useSiteContact(): SiteContact {
  const [contact, setContact] = React.useState<SiteContact>(EMPTY);
  React.useEffect(() => {
    let alive = true;
    void getSiteContact().then((c) => alive && setContact(c));
    return () => {
      alive = false;
    };
  }, []);
  return contact;
}
