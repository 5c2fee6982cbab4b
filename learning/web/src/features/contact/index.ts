// The contact feature's public entry: what the rest of the app may use.
export { getContactAdmin, isOwnerAccount } from "./api/site";
export { ContactCard } from "./components/contact-card";
export { ContactDialog } from "./components/contact-dialog";
export { useSiteContact } from "./hooks/use-site-contact";
export { whatsappLink } from "./lib/whatsapp";
